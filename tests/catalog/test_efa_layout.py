"""EFA layouts per type: card 0 a plain interface, then efa-only on every EFA card;
pods per node from the ENIs the layout leaves on card 0."""

import pytest
from trainstack import catalog
from trainstack.catalog.efa_layout import InterfaceSlot, efa_layout, max_pods, node_ip_budget, plain_layout

# Checked by hand against the EC2 data (MaximumEfaInterfaces and each card's InterfaceTypes).
EXPECTED_EFA = {
    "p4d.24xlarge": 4, "p4de.24xlarge": 4, "p5.4xlarge": 1, "p5.48xlarge": 32, "p5e.48xlarge": 32,
    "p5en.48xlarge": 16, "p6-b200.48xlarge": 8, "p6-b300.48xlarge": 16,
    "p6e-gb200.36xlarge": 4, "trn2u.48xlarge": 16, "g5.8xlarge": 1, "g5.12xlarge": 1,
    "g5.16xlarge": 1, "g5.24xlarge": 1, "g5.48xlarge": 1, "g6.48xlarge": 1, "g6e.48xlarge": 4,
    "trn1.32xlarge": 8, "trn1n.32xlarge": 16, "trn2.3xlarge": 1, "trn2.48xlarge": 16,
    "g6e.12xlarge": 1, "g6e.24xlarge": 2, "g7e.48xlarge": 4, "p3dn.24xlarge": 1, "g4dn.12xlarge": 1,
}
EFA_TYPES = sorted(t.name for t in catalog.INSTANCE_TYPES if t.efa.supported and t.efa.max_interfaces is not None)


@pytest.mark.parametrize("name", sorted(EXPECTED_EFA))
def test_the_catalog_has_the_checked_efa_interface_count(name):
    assert catalog.get(name).efa.max_interfaces == EXPECTED_EFA[name]


@pytest.mark.parametrize("name", EFA_TYPES)
def test_every_efa_type_lays_out_one_efa_only_interface_per_efa_card(name):
    instance = catalog.get(name)
    efa = efa_layout(instance)[1:]
    assert len(efa) == instance.efa.max_interfaces
    assert tuple(slot.network_card_index for slot in efa) == instance.efa.cards


@pytest.mark.parametrize("name", sorted(EXPECTED_EFA))
def test_efa_layout_has_one_efa_only_interface_per_efa_card_behind_a_plain_primary(name):
    layout = efa_layout(catalog.get(name))
    assert layout[0] == InterfaceSlot(0, 0, "interface")
    efa = layout[1:]
    assert len(efa) == EXPECTED_EFA[name]
    assert all(slot.interface_type == "efa-only" for slot in efa)
    assert len({slot.network_card_index for slot in efa}) == len(efa)
    assert all(slot.device_index == (1 if slot.network_card_index == 0 else 0) for slot in efa)


def test_p5_48xlarge_gets_32_efa_interfaces_card_0_at_device_1():
    layout = efa_layout(catalog.get("p5.48xlarge"))
    assert layout[1] == InterfaceSlot(0, 1, "efa-only")
    assert [s.network_card_index for s in layout[1:]] == list(range(32))


def test_p6_b300_leaves_card_0_plain_and_puts_efa_on_cards_1_to_16():
    layout = efa_layout(catalog.get("p6-b300.48xlarge"))
    assert [s for s in layout if s.network_card_index == 0] == [InterfaceSlot(0, 0, "interface")]
    assert [s.network_card_index for s in layout[1:]] == list(range(1, 17))
    assert all(s.device_index == 0 for s in layout[1:])


def test_p6e_gb200_gets_4_efa_interfaces_on_cards_1_5_9_13_and_card_0_stays_plain():
    # EC2 User Guide efa-for-p6e: ENA on card 0, EFA-only at device 0 of cards 1, 5, 9 and 13 (one per GPU).
    layout = efa_layout(catalog.get("p6e-gb200.36xlarge"))
    assert layout == (InterfaceSlot(0, 0, "interface"),
                      *(InterfaceSlot(card, 0, "efa-only") for card in (1, 5, 9, 13)))


def test_p6_b200_gets_8_efa_interfaces_card_0_at_device_1():
    # EC2 User Guide efa-for-p6-b200 (read 2026-11-26), use case 1: ENA at card 0 device 0, EFA-only at card 0
    # device 1, EFA-only at device 0 of cards 1-7.
    layout = efa_layout(catalog.get("p6-b200.48xlarge"))
    assert layout == (InterfaceSlot(0, 0, "interface"), InterfaceSlot(0, 1, "efa-only"),
                      *(InterfaceSlot(card, 0, "efa-only") for card in range(1, 8)))


def test_trn2u_gets_16_efa_interfaces_like_trn2():
    assert efa_layout(catalog.get("trn2u.48xlarge")) == efa_layout(catalog.get("trn2.48xlarge"))


@pytest.mark.parametrize("name", [t.name for t in catalog.INSTANCE_TYPES if t.network.max_pods is not None])
def test_without_efa_max_pods_is_nodeadms_default(name):
    instance = catalog.get(name)
    assert max_pods(instance, plain_layout()) == instance.network.max_pods


@pytest.mark.parametrize("name, pods", [
    ("p5.48xlarge", 51), ("p5e.48xlarge", 51), ("trn2.48xlarge", 51),  # card 0 has 2 ENIs: one left for pods
    ("p4d.24xlarge", 688), ("p5en.48xlarge", 149), ("p6-b300.48xlarge", 198),  # b300: no EFA on card 0
    ("p6e-gb200.36xlarge", 100), ("p6-b200.48xlarge", 149),  # gb200: no EFA on card 0; b200: one of 4 ENIs taken
])
def test_efa_on_card_0_costs_pods_an_eni(name, pods):
    instance = catalog.get(name)
    assert max_pods(instance, efa_layout(instance)) == pods


def test_efa_only_interfaces_take_no_subnet_ip():
    p5 = catalog.get("p5.48xlarge")
    assert node_ip_budget(p5, efa_layout(p5)) == 1 + 51
