"""The IP budget counts exactly the subnets each node group is given (issue 64, class 5): a pool's part i takes
its zone's private subnet i mod n, everything else the zone's first, and the budget and the rendered managed
node groups read that one rule (config/subnet_placement.py). A subnet that cannot hold its nodes is refused,
naming the group, the subnet and the numbers."""

from typing import Any

import pytest
from hypothesis import Phase, example, given, note, settings
from hypothesis import strategies as st
from support.plan_records import record, stack_config
from support.subnet_use import budgeted, rendered
from trainstack.config import ConfigError, validate_stack_config

ZONES = ["us-east-1a", "us-east-1b"]
# Each example is a whole offline plan (a few seconds); a failure is shown as drawn, not shrunk, which would
# take minutes of plans.
FEW = settings(max_examples=6, phases=[Phase.explicit, Phase.reuse, Phase.generate])


def existing_vpc(subnets_per_zone: list[int], prefix: int = 16) -> dict[str, Any]:
    subnets = [{"id": f"subnet-{zone[-1]}{index:016x}", "zone": zone, "cidr": f"10.{10 * z + index}.0.0/{prefix}"}
               for z, (zone, count) in enumerate(zip(ZONES, subnets_per_zone, strict=True)) for index in range(count)]
    return {"existingVpc": {"vpcId": "vpc-0123456789abcdef0", "privateSubnets": subnets}}


@st.composite
def stacks(draw: st.DrawFn) -> dict[str, Any]:
    """dev, in an existing VPC of one to three /16 private subnets per zone, with one to three groups of up to
    1,400 nodes (up to four managed node groups each), in either zone."""
    config = stack_config("dev")
    config["trainstack:network"] = existing_vpc([draw(st.integers(1, 3)) for _ in ZONES])
    config["trainstack:nodeGroups"] = [
        {"name": f"gpu{index}", "instanceType": "g5.2xlarge", "minSize": 0, "desiredSize": 0,
         "maxSize": draw(st.integers(1, 1400)), "zone": draw(st.sampled_from(ZONES))}
        for index in range(draw(st.integers(1, 3)))]
    config.pop("trainstack:cost", None)  # a large group passes the dev stack's cost ceiling
    return config


def spread_example() -> dict[str, Any]:
    """Three subnets in one zone, two in the other, a pool of four parts and one of two."""
    config = stack_config("dev")
    config["trainstack:network"] = existing_vpc([3, 2])
    config["trainstack:nodeGroups"] = [
        {"name": "gpu0", "instanceType": "g5.2xlarge", "minSize": 0, "desiredSize": 0, "maxSize": 1400,
         "zone": "us-east-1a"},
        {"name": "gpu1", "instanceType": "g5.2xlarge", "minSize": 0, "desiredSize": 0, "maxSize": 900,
         "zone": "us-east-1b"}]
    config.pop("trainstack:cost", None)
    return config


@FEW
@given(config=stacks())
@example(config=spread_example())
def test_the_budget_counts_exactly_the_subnets_and_nodes_the_rendered_node_groups_are_given(tmp_path_factory, config):
    note(f"network: {config['trainstack:network']}\nnodeGroups: {config['trainstack:nodeGroups']}")
    assert budgeted(config) == rendered(record(tmp_path_factory.mktemp("stack"), "dev", config=config))


def test_frontier_p5s_eight_parts_alternate_over_the_zones_two_subnets():
    document = record_of_frontier()
    p5 = {(g, s): n for (g, s), n in rendered(document).items() if g == "p5"}
    assert p5 == {("p5", "subnet-0123456789abcdef0"): 1024, ("p5", "subnet-0123456789abcdef1"): 1024}
    # The budget names each subnet and the parts it holds; each /16 holds its half with room to spare.
    zones = {z.get("subnet"): z for z in document["ipBudget"]["zones"]}
    first, second = zones["subnet-0123456789abcdef0"], zones["subnet-0123456789abcdef1"]
    assert [(g["group"], g.get("parts"), g["nodes"]) for g in second["groups"]] == [("p5", [1, 3, 5, 7], 1024)]
    assert (first["usable"], first["worst"], second["worst"]) == (65531, 240 + 1024 * 50, 1024 * 50)
    assert document["ipBudget"]["warnings"] == []


def test_the_network_interface_quota_counts_every_node_once_wherever_its_part_is_placed():
    """Each part in its subnet is a row of the budget; the quota once kept one row a group and zone, and counted
    frontier-p5's 2,048 p5 nodes as 1,024."""
    quota = next(need for need in record_of_frontier()["quotas"]["quotas"] if need["quotaCode"] == "L-DF5E4CA3")
    assert quota["need"] == 2048 * 33 + 4 * (1 + 3)  # p5: 33 interfaces each; the 4 system nodes: 1 + 3 ENIs


_FRONTIER: dict[str, Any] = {}


def record_of_frontier() -> dict[str, Any]:
    if not _FRONTIER:
        import tempfile
        from pathlib import Path
        with tempfile.TemporaryDirectory() as directory:
            _FRONTIER.update(record(Path(directory), "frontier-p5"))
    return _FRONTIER


def test_a_pool_in_one_subnet_too_small_for_it_is_refused_naming_the_group_the_subnet_and_the_numbers():
    config = stack_config("dev")
    config["trainstack:network"] = existing_vpc([1, 1], prefix=17)
    config["trainstack:nodeGroups"][0].update(maxSize=1400)
    with pytest.raises(ConfigError) as raised:
        validate_stack_config({key.split(":", 1)[1]: value for key, value in config.items()})
    [issue] = raised.value.issues
    assert issue.path == "trainstack:nodeGroups[0].maxSize" and issue.value == 1400
    assert "the nodes in us-east-1a subnet-a0000000000000000 hold" in issue.message
    assert "but its private subnet holds 32763" in issue.message
    assert "gpu (parts 0, 1, 2, 3): 1400 x" in issue.message
    assert "subnet i mod n" in issue.fix
    # A second subnet in the zone takes parts 1 and 3: each now holds its half.
    config["trainstack:network"] = existing_vpc([2, 1], prefix=17)
    spread = budgeted(config)
    assert spread[("gpu", "subnet-a0000000000000000")] == spread[("gpu", "subnet-a0000000000000001")] == 700
