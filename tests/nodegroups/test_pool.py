"""A group larger than one EKS managed node group may be, or spanning several reservations, is a pool: made as
several managed node groups that Kubernetes, Kueue and the launchers see as one group."""

from pathlib import Path
from typing import Any

import pytest
from support import plan_records
from trainstack.config import ConfigError, validate, validate_stack_config
from trainstack.config.node_pool import parts
from trainstack.config.nodegroups import NodeGroupConfig
from trainstack.outputs import parse_outputs

RESERVATIONS = [f"cr-0123456789abcdef{i}" for i in range(4)]


def group(max_size: int, counts: list[int], minimum: int = 0, desired: int = 0, kind: str = "reservation",
          **extra: Any) -> dict[str, Any]:
    capacity: dict[str, Any] = {"type": kind, "zone": "us-east-1a",
                                "reservations": [{"reservationId": r, "instanceCount": c}
                                                 for r, c in zip(RESERVATIONS, counts, strict=False)]}
    if kind == "capacityBlock":
        capacity.update(startsAt="2026-12-01T11:30:00Z", endsAt="2026-12-15T11:30:00Z")
    return {"name": "p5", "instanceType": "p5.48xlarge", "zone": "us-east-1a", "maxSize": max_size,
            "minSize": minimum, "desiredSize": desired, "efa": True, "capacity": capacity, **extra}


def sizes(config: dict[str, Any], nodes_per_group: int = 450) -> list[tuple[str | None, int, int, int]]:
    return [(p.reservation_id, p.min_size, p.desired_size, p.max_size)
            for p in parts(NodeGroupConfig.model_validate(config), nodes_per_group)]


def test_a_group_that_fits_one_managed_node_group_is_one_part_as_it_always_was():
    single = {"name": "p5", "instanceType": "p5.48xlarge", "zone": "us-east-1a", "maxSize": 16}
    assert sizes(single) == [(None, 0, 0, 16)]


def test_four_reservations_of_512_are_eight_managed_node_groups_of_256_each_within_its_reservation():
    assert sizes(group(2048, [512] * 4, 2048, 2048)) == [
        (reservation, 256, 256, 256) for reservation in RESERVATIONS for _ in range(2)]


def test_min_and_desired_sizes_fill_the_parts_in_order_and_the_pool_stops_at_its_max_size():
    assert sizes(group(700, [300, 300, 300], minimum=400, desired=500)) == [
        (RESERVATIONS[0], 300, 300, 300), (RESERVATIONS[1], 100, 200, 300), (RESERVATIONS[2], 0, 0, 100)]


def test_a_raised_quota_makes_fewer_parts():
    assert len(sizes(group(2048, [2048]), nodes_per_group=1000)) == 3


@pytest.mark.parametrize("edit, says", [
    (lambda g: g["capacity"].update(reservationId="cr-0123456789abcdef9"), "'reservationId' is set beside"),
    (lambda g: g["capacity"]["reservations"].append(dict(g["capacity"]["reservations"][0])), "is listed twice"),
    (lambda g: g.update(maxSize=1300), "holds 1200 instances but maxSize is 1300"),
    (lambda g: g.update(autoscaler="karpenter"), "which Karpenter does not run"),
])
def test_a_pool_the_stack_cannot_make_is_refused_with_the_fix(edit, says):
    config = group(1200, [300, 300, 300, 300])
    edit(config)
    with pytest.raises(Exception) as error:
        validate(NodeGroupConfig, config, prefix="nodeGroups[0]")
    assert says in str(error.value)


def test_a_capacity_block_of_a_pool_holds_at_most_64_instances():
    with pytest.raises(ConfigError) as error:
        validate(NodeGroupConfig, group(128, [64, 65], kind="capacityBlock"), prefix="nodeGroups[0]")
    assert "at most 64 instances" in str(error.value)
    assert "nodeGroups[0]:capacity.reservations[1].instanceCount = 65" in str(error.value)


def test_two_groups_cannot_hold_one_reservation_of_a_pool():
    config = {k.removeprefix("trainstack:"): v for k, v in plan_records.stack_config("fsdp-p5").items()}
    config["nodeGroups"] = [group(600, [300, 300]), {**group(300, [300]), "name": "other"}]
    with pytest.raises(ConfigError) as error:
        validate_stack_config(config)
    assert "cr-0123456789abcdef0 is already held by node group 'p5'" in str(error.value)


@pytest.fixture(scope="module")
def pooled(tmp_path_factory) -> dict[str, Any]:
    """fsdp-p5 with its group a pool of three reservations of 300 p5.48xlarge, run whole, shared by two teams."""
    def edit(config: dict[str, Any]) -> None:
        config["trainstack:nodeGroups"] = [group(900, [300, 300, 300], 900, 900)]
        config["trainstack:network"].update(vpcCidr="10.0.0.0/16", privateSubnetPrefixLength=18)
        config["trainstack:eks"]["vpcCni"] = {"minimumIpTarget": 4, "warmIpTarget": 2}
        config.pop("trainstack:fsx")
        config.pop("trainstack:datasets")
        config["trainstack:operators"]["kueue"] = True
        config["trainstack:scheduling"] = {"teams": [
            {"name": "llm", "namespace": "llm", "guaranteedNodes": {"p5": 600}},
            {"name": "vision", "namespace": "vision"}]}
    return plan_records.record(Path(tmp_path_factory.mktemp("pool")), "fsdp-p5", edit)


def of_type(record: dict[str, Any], type_: str) -> list[dict[str, Any]]:
    return [r for r in record["resources"] if r["type"] == type_]


def test_each_part_is_a_managed_node_group_on_its_own_reservation_with_the_groups_node_label(pooled):
    groups = [g for g in of_type(pooled, "aws:eks/nodeGroup:NodeGroup") if g["name"].startswith("fsdp-p5-eks-p5")]
    assert [g["inputs"]["scalingConfig"]["maxSize"] for g in groups] == [300, 300, 300]
    assert {g["inputs"]["labels"]["trainstack.io/node-group"] for g in groups} == {"p5"}
    templates = {t["name"]: t["inputs"]["capacityReservationSpecification"]["capacityReservationTarget"][
        "capacityReservationId"] for t in of_type(pooled, "aws:ec2/launchTemplate:LaunchTemplate")
        if t["name"].startswith("fsdp-p5-eks-p5")}
    assert sorted(templates.values()) == RESERVATIONS[:3]


def test_kueue_sees_the_pool_as_one_flavor_with_the_quota_of_all_its_nodes(pooled):
    flavors = [f for f in pooled["resources"] if f["type"].endswith(":ResourceFlavor")]
    assert [f["inputs"]["spec"]["nodeLabels"] for f in flavors] == [{"trainstack.io/node-group": "p5"}]
    cohort = next(c for c in pooled["resources"] if c["type"].endswith(":Cohort"))
    (flavor,) = cohort["inputs"]["spec"]["resourceGroups"][0]["flavors"]
    quota = {r["name"]: r["nominalQuota"] for r in flavor["resources"]}
    assert quota["nvidia.com/gpu"] == str(300 * 8)  # 900 nodes, 600 guaranteed to llm: the cohort lends 300


def test_the_launchers_see_one_group_of_900_nodes(pooled):
    outputs = parse_outputs(pooled["outputs"])
    assert list(outputs.accelerated_groups) == ["p5"] and outputs.accelerated_groups["p5"].max_nodes == 900


def test_the_cost_bills_each_reservation_once_and_the_controller_models_and_policies_pass(pooled):
    reserved = [line for line in pooled["cost"]["lines"] if line.get("capacity")]
    held = {}
    for line in reserved:
        held[line["capacity"]] = held.get(line["capacity"], 0) + line["max"]
    assert held == dict.fromkeys(RESERVATIONS[:3], 300)
    assert pooled["controllers"]["errors"] == 0, pooled["controllers"]["text"]
    assert all(rule["passed"] for rule in pooled["policies"]["rules"])


def test_the_rehearsal_registers_each_parts_nodes_under_its_own_names_with_the_groups_label(pooled):
    from trainstack.plan import Plan
    from trainstack.policy import stack_from_plan
    from trainstack.rehearsal.nodes import group_shapes, node_object

    shapes = [s for s in group_shapes(stack_from_plan(Plan.from_dict(pooled))) if s.name == "p5"]
    assert [s.key for s in shapes] == ["p5", "p5-part1", "p5-part2"]
    nodes = [node_object(shape, 0) for shape in shapes]
    assert [n["metadata"]["name"] for n in nodes] == ["p5-0", "p5-part1-0", "p5-part2-0"]
    assert {n["metadata"]["labels"]["trainstack.io/node-group"] for n in nodes} == {"p5"}
    # One top network layer, a block of its own below it for each part (a reservation's instances).
    top = {n["metadata"]["labels"]["topology.k8s.aws/network-node-layer-1"] for n in nodes}
    below = {n["metadata"]["labels"]["topology.k8s.aws/network-node-layer-3"] for n in nodes}
    assert len(top) == 1 and len(below) == 3
