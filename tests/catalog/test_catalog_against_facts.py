"""The catalog agrees with the checked instance facts, field by field, type by type.

The facts are tests/data/instance_facts.json (tests/data/README.md says where they were
read); where the catalog decides between conflicting sources,
the decision and its reason are recorded in the data's ``decisions``. The
research checked 41 types by hand; the catalog now generates many more from the
EC2 data (tests/catalog/test_catalog_against_aws.py checks those), and every
researched type must still be in it with the researched facts.
"""

import json
from pathlib import Path

import pytest
from trainstack import catalog
from trainstack.catalog import AcceleratorKind


def _facts_for(instance_facts, name):
    facts = dict(instance_facts["instances"][name])
    for dotted, decision in instance_facts["decisions"].get(name, {}).items():
        target, key = facts, dotted
        if "." in dotted:
            head, key = dotted.split(".", 1)
            target = facts[head] = dict(facts[head])
        target[key] = decision["value"]
    return facts


def _efa_cards(facts):
    if "efa_cards" in facts:  # a decision: the cards of AWS's recommended layout (p6e-gb200)
        return tuple(facts["efa_cards"])
    if not facts["efa_supported"] or facts["max_efa_interfaces"] is None:
        return () if not facts["efa_supported"] else None
    card_types = facts["card_interface_types"]
    if isinstance(card_types, dict):
        return tuple(sorted(int(card) for card, kinds in card_types.items() if "efa" in kinds))
    return tuple(range(min(facts["max_efa_interfaces"], facts["max_network_cards"])))


RESEARCHED = sorted(json.loads(
    (Path(__file__).parents[1] / "data" / "instance_facts.json").read_text())["instances"])


def test_catalog_holds_every_researched_type(instance_facts):
    assert set(instance_facts["instances"]) <= set(catalog.names())


@pytest.mark.parametrize("name", RESEARCHED)
def test_every_fact_of_an_instance_type_matches_the_research(instance_facts, name):
    facts = _facts_for(instance_facts, name)
    entry = catalog.get(name)
    observed = {
        "arch": entry.arch,
        "vcpus": entry.vcpus,
        "memory_gib": entry.memory_gib,
        "efa_supported": entry.efa.supported,
        "max_efa_interfaces": entry.efa.max_interfaces,
        "efa_cards": entry.efa.cards,
        "max_network_cards": entry.network.cards,
        "enis_on_card0": entry.network.enis_on_card0,
        "ipv4_per_eni": entry.network.ipv4_per_eni,
        "max_pods": entry.network.max_pods,
        "ami_types": list(entry.ami_types),
        "capacity_block": entry.capacity_block,
        "hyperpod": entry.hyperpod,
        "hyperpod_training_plan": entry.hyperpod_training_plan,
    }
    expected = {
        "arch": facts["arch"][0].split()[0],
        "vcpus": facts["vcpus"],
        "memory_gib": None if facts["memory_gib"] is None else int(facts["memory_gib"]),
        "efa_supported": facts["efa_supported"],
        "max_efa_interfaces": facts["max_efa_interfaces"],
        "efa_cards": _efa_cards(facts),
        "max_network_cards": facts["max_network_cards"],
        "enis_on_card0": facts["network_interfaces_on_default_card"],
        "ipv4_per_eni": facts["ipv4_per_eni"],
        "max_pods": facts["eks_max_pods_al2023_nodeadm_default"],
        "ami_types": facts["eks_ami_types"],
        "capacity_block": facts["capacity_block_usage_class"],
        "hyperpod": facts["hyperpod_cluster_instance_type"],
        "hyperpod_training_plan": facts["hyperpod_training_plan_instance_type"],
    }
    assert observed == expected


@pytest.mark.parametrize("name", [n for n in RESEARCHED if catalog.get(n).accelerator])
def test_accelerators_match_the_research(instance_facts, name):
    facts = _facts_for(instance_facts, name)["accelerator"]
    accelerator = catalog.get(name).accelerator
    assert accelerator.kind is {"gpu": AcceleratorKind.GPU, "neuron": AcceleratorKind.NEURON}[facts["kind"]]
    assert accelerator.name == facts["name"].split()[0]
    assert accelerator.count == facts["count"]
    assert accelerator.memory_mib == facts["memory_per_accelerator_mib"]
    assert accelerator.neuron_cores == facts.get("neuron_cores_total")


def test_types_without_accelerators_are_the_system_types(instance_facts):
    cpu_types = {n for n, f in instance_facts["instances"].items() if f["accelerator"] is None}
    assert cpu_types == {n for n in RESEARCHED if catalog.get(n).accelerator is None}


@pytest.mark.parametrize("region", ["us-east-1", "us-west-2"])
def test_on_demand_prices_are_the_published_ones_and_absent_where_none_is(instance_facts, region):
    published = instance_facts["prices_on_demand_usd_per_hour"][region]
    for name, usd in published.items():
        price = catalog.get(name).price(region)
        assert (price.usd_per_hour if price else None) == usd, name
    unpriced = [n for n in catalog.names() if n not in published]
    extra = {n: catalog.get(n).price(region) for n in unpriced if catalog.get(n).price(region)}
    # Beyond the research's table, only us-east-1 prices from the AWS Price List file
    # (the research's own us-east-1 source) are allowed; see catalog/prices.py.
    assert all(p.region == "us-east-1" and "AWS Price List" in p.source for p in extra.values()), extra


def test_types_sold_only_as_capacity_blocks_or_ultraservers_have_no_on_demand_price():
    for name in ("p5e.48xlarge", "trn2.3xlarge", "trn2.48xlarge", "p6e-gb200.36xlarge"):
        assert catalog.get(name).prices == (), name


def test_every_price_says_where_and_when_it_was_valid():
    for entry in catalog.INSTANCE_TYPES:
        for price in entry.prices:
            assert price.region and price.valid_on.year >= 2026 and price.source


def test_every_entry_names_its_source_and_date():
    for entry in catalog.INSTANCE_TYPES:
        assert entry.source.description and entry.source.as_of.year == 2026
