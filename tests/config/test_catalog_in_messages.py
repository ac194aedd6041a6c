"""Fixes that name instance families name the ones the catalog knows, not a list written by hand:
a type added to the catalog shows up in the advice without editing the message."""

import pytest
from trainstack import catalog, cli
from trainstack.config import ConfigError, validate
from trainstack.config.cluster import SystemNodesConfig

BLOCK = {"type": "capacityBlock", "reservationId": "cr-0123456789abcdef0", "zone": "us-east-1a", "instanceCount": 2,
         "endsAt": "2026-12-01T11:30:00Z"}


def refusal(valid_config, scratch_project, capsys, **group) -> str:
    valid_config["nodeGroups"][0].update(group)
    project = scratch_project("broken", valid_config)
    assert cli.main(["plan", "--stack", "broken", "--cwd", project]) == 2
    return capsys.readouterr().err


def test_a_capacity_block_of_a_type_not_sold_so_is_told_every_type_the_catalog_sells_as_blocks(
        valid_config, scratch_project, capsys):
    stderr = refusal(valid_config, scratch_project, capsys, instanceType="g6e.48xlarge", capacity=BLOCK)
    # p4de.24xlarge is sold as blocks; the hand-written list this replaced left it out.
    assert ("capacity-block type (p4d, p4de, p5, p5e, p5en, p6-b200, p6-b300, p6e-gb200, trn1.32xlarge, trn2, trn2u)."
            in stderr)
    sold = [t for t in catalog.INSTANCE_TYPES if t.capacity_block]
    assert all(t.family in stderr for t in sold)


def test_efa_on_a_family_without_any_efa_type_is_told_the_accelerated_families_that_have_it(
        valid_config, scratch_project, capsys):
    no_efa = next(t for t in catalog.INSTANCE_TYPES if t.accelerator is not None and not any(
        other.efa.supported for other in catalog.INSTANCE_TYPES if other.family == t.family)
        and t.accelerator.kind is catalog.AcceleratorKind.GPU)
    stderr = refusal(valid_config, scratch_project, capsys, instanceType=no_efa.name, efa=True)
    assert f"{no_efa.name} has no EFA." in stderr
    with_efa = {t.family for t in catalog.INSTANCE_TYPES if t.efa.supported and t.accelerator is not None}
    assert all(family in stderr for family in with_efa) and "p6-b300" in stderr


def test_system_nodes_of_an_accelerated_type_are_told_the_cpu_families_of_the_catalog():
    with pytest.raises(ConfigError) as refused:
        validate(SystemNodesConfig, {"instanceType": "g5.2xlarge"}, prefix="systemNodes")
    (issue,) = refused.value.issues
    cpu = catalog.families(t for t in catalog.INSTANCE_TYPES if t.accelerator is None)
    assert issue.fix == f"use a CPU type (families {', '.join(cpu)}), and put accelerated instances in nodeGroups."
    assert {"c5", "m7i"} <= set(cpu)


def test_family_names_name_a_whole_family_once_and_single_types_of_a_family_only_partly_chosen():
    chosen = [catalog.get("p5.4xlarge"), catalog.get("p5.48xlarge"), catalog.get("trn1.32xlarge")]
    assert catalog.family_names(chosen) == ["p5", "trn1.32xlarge"]


def test_a_hyperpod_type_is_the_catalog_entry_of_its_ec2_name():
    assert catalog.get_hyperpod("ml.p5.48xlarge") is catalog.get("p5.48xlarge")
    assert catalog.find_hyperpod("p5.48xlarge") is catalog.get("p5.48xlarge")
    assert catalog.find_hyperpod("ml.nope.xlarge") is None
