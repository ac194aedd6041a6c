"""A Karpenter pool that holds a reservation or a capacity block launches only into it (capacity type
reserved, the reservation by id), lays out EFA as a managed group's launch template does, never expires
its nodes, and at a block's end drains within the 10 minutes Karpenter leaves before EC2 terminates; an
elastic pool may run on Spot with an on-demand fallback. Every object validates against Karpenter
v1.14.1's CRDs, and the cost estimate prices the pool's reservation as it prices a managed group's."""

import pytest
from support import crds
from trainstack.catalog import get
from trainstack.catalog.efa_layout import efa_layout
from trainstack.estimate.cost import estimate_cost
from trainstack.plan import run_program
from trainstack.training_stack import TrainingStack

BLOCK = {"type": "capacityBlock", "reservationId": "cr-0123456789abcdef0", "zone": "us-east-1a",
         "instanceCount": 2, "startsAt": "2026-11-24T11:30:00Z", "endsAt": "2026-12-01T11:30:00Z"}
RESERVATION = {"type": "reservation", "reservationId": "cr-0fedcba987654321", "zone": "us-east-1a",
               "instanceCount": 4}
TRAIN = {"name": "train", "instanceType": "p5.48xlarge", "maxSize": 2, "zone": "us-east-1a",
         "autoscaler": "karpenter", "capacity": BLOCK}
PREP = {"name": "prep", "instanceType": "g6.xlarge", "maxSize": 4, "zone": "us-east-1a", "autoscaler": "karpenter",
        "spot": True}
ODCR = {"name": "odcr", "instanceType": "p5.48xlarge", "maxSize": 3, "zone": "us-east-1a",
        "autoscaler": "karpenter", "capacity": RESERVATION}
CONFIG = {"profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
          "eks": {"publicAccessCidrs": ["203.0.113.0/24"]}, "nodeGroups": [TRAIN, PREP, ODCR]}
POOL, NODE_CLASS = "kubernetes:karpenter.sh/v1:NodePool", "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"


@pytest.fixture(scope="module")
def record():
    return run_program(lambda: TrainingStack("k", CONFIG), project="demo", stack="k")


def objects(record, token):
    return {r.inputs["metadata"]["name"]: {"apiVersion": r.type.split(":")[1], "kind": r.type.rsplit(":", 1)[1],
                                           "metadata": r.inputs["metadata"], "spec": r.inputs["spec"]}
            for r in record.resources if r.type == token}


def capacity_types(pool):
    [requirement] = [r for r in pool["spec"]["template"]["spec"]["requirements"]
                     if r["key"] == "karpenter.sh/capacity-type"]
    return requirement["values"]


def test_every_pool_and_node_class_validates_against_karpenter_v1_14_1_crds(record):
    for document in [*objects(record, POOL).values(), *objects(record, NODE_CLASS).values()]:
        crds.validate("karpenter-v1.14.1", document)


def test_a_reserved_pool_launches_only_into_its_own_reservation_or_block(record):
    pools, classes = objects(record, POOL), objects(record, NODE_CLASS)
    assert capacity_types(pools["train"]) == ["reserved"] and capacity_types(pools["odcr"]) == ["reserved"]
    assert classes["train"]["spec"]["capacityReservationSelectorTerms"] == [{"id": "cr-0123456789abcdef0"}]
    assert classes["odcr"]["spec"]["capacityReservationSelectorTerms"] == [{"id": "cr-0fedcba987654321"}]
    assert "capacityReservationSelectorTerms" not in classes["prep"]["spec"]


def test_a_reserved_pool_lays_out_efa_as_the_catalog_says_with_the_efa_security_group_and_no_placement_group(record):
    spec = objects(record, NODE_CLASS)["train"]["spec"]
    expected = [{"networkCardIndex": s.network_card_index, "deviceIndex": s.device_index,
                 "interfaceType": s.interface_type} for s in efa_layout(get("p5.48xlarge"))]
    assert spec["networkInterfaces"] == expected and len(expected) == 33
    [efa_group] = [r for r in record.resources if r.type == "aws:ec2/securityGroup:SecurityGroup"
                   and r.name.endswith("-efa")]
    assert len(spec["securityGroupSelectorTerms"]) == 2
    assert "placementGroupSelector" not in spec
    labels = objects(record, POOL)["train"]["spec"]["template"]["metadata"]["labels"]
    assert labels["trainstack.io/efa-interfaces"] == "32" and labels["vpc.amazonaws.com/efa.present"] == "true"
    assert efa_group


def test_reserved_nodes_never_expire_and_a_blocks_drain_ends_before_ec2_terminates(record):
    train = objects(record, POOL)["train"]["spec"]["template"]["spec"]
    odcr = objects(record, POOL)["odcr"]["spec"]["template"]["spec"]
    assert (train["expireAfter"], train["terminationGracePeriod"]) == ("Never", "10m")
    assert odcr["expireAfter"] == "Never" and "terminationGracePeriod" not in odcr


def test_an_elastic_pool_on_spot_falls_back_to_on_demand_and_has_no_efa(record):
    pool, node_class = objects(record, POOL)["prep"], objects(record, NODE_CLASS)["prep"]
    assert capacity_types(pool) == ["spot", "on-demand"]
    assert "networkInterfaces" not in node_class["spec"] and "expireAfter" not in pool["spec"]["template"]["spec"]


def test_an_elastic_efa_pool_launches_into_its_own_cluster_placement_group():
    config = {**CONFIG, "nodeGroups": [{**PREP, "name": "efa", "instanceType": "p5.48xlarge", "spot": False,
                                         "efa": True}]}
    record = run_program(lambda: TrainingStack("k", config), project="demo", stack="k")
    [group] = [r for r in record.resources if r.type == "aws:ec2/placementGroup:PlacementGroup"]
    assert group.inputs["strategy"] == "cluster"
    spec = objects(record, NODE_CLASS)["efa"]["spec"]
    assert spec["placementGroupSelector"] == {"name": group.outputs["name"]}
    crds.validate("karpenter-v1.14.1", objects(record, NODE_CLASS)["efa"])


def test_the_cost_estimate_prices_a_pools_block_and_reservation_as_a_managed_groups(record):
    cost = estimate_cost(record)
    items = [line.item for line in cost.lines]
    assert any("in capacity block cr-0123456789abcdef0" in item for item in items), items
    assert any("in reservation cr-0fedcba987654321" in item for item in items), items
    [commitment] = cost.commitments
    assert commitment.reserved.target == "cr-0123456789abcdef0" and commitment.reserved.hours == 168


def test_a_spot_pool_is_priced_at_most_at_the_on_demand_rate_and_says_it_is_a_range(record):
    [line] = [line for line in estimate_cost(record).lines if "-prep-" in line.item]
    assert line.item == "k-eks-prep-nodepool (g6.xlarge, Karpenter pool, Spot: at most)"
    assert line.unit_usd_per_hour == get("g6.xlarge").price("us-east-1").usd_per_hour
    assert "ec2-fleet-price-overrides" in line.source and "DescribeSpotPriceHistory" in line.source


def test_the_plan_says_karpenter_drains_a_blocks_pool_40_minutes_before_its_end_and_ec2_takes_it_at_30(record):
    [notice] = [d["message"] for d in record.diagnostics if "capacity block" in d["message"]]
    assert notice.startswith("capacity block cr-0123456789abcdef0 of group train ends 2026-12-01T11:30:00Z")
    assert ("2026-12-01T10:50:00Z Karpenter: Karpenter deletes the block's NodeClaims and drains its nodes for at "
            "most 10 minutes") in notice
    assert "2026-12-01T11:00:00Z AWS: EC2 terminates the instances left" in notice
    assert "2026-12-01T10:30:00Z trainstack: " in notice


def test_the_controller_models_see_a_reserved_pools_nodes_with_its_efa_interfaces_and_an_elastic_pools_without(record):
    from trainstack.controllers.karpenter import pool_groups
    from trainstack.policy import stack_from_plan
    groups = {g.name: g for g in pool_groups(stack_from_plan(record))}
    assert groups["train"].efa_interfaces == 32 and groups["prep"].efa_interfaces == 0
