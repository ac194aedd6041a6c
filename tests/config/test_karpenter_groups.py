"""One group, one autoscaler: a group with autoscaler: karpenter may not ask for what only the
Cluster Autoscaler's managed node groups give (EFA, a reservation, a capacity block, a placement
group); the refusal names the key, the value, the reason and the fix, before anything is built."""

import pytest
from trainstack.config import ConfigError, NodeGroupConfig, validate

DEV = {"name": "dev", "instanceType": "g5.12xlarge", "maxSize": 4, "zone": "us-east-1a", "autoscaler": "karpenter"}
RESERVATION = {"type": "reservation", "reservationId": "cr-0123456789abcdef0", "zone": "us-east-1a",
               "instanceCount": 4}
BLOCK = {"type": "capacityBlock", "reservationId": "cr-0123456789abcdef0", "zone": "us-east-1a", "instanceCount": 2,
         "endsAt": "2026-12-01T11:30:00Z"}


def refusal(**changes):
    with pytest.raises(ConfigError) as raised:
        validate(NodeGroupConfig, {**DEV, **changes}, prefix="nodeGroups[0]")
    [issue] = raised.value.issues
    return issue


@pytest.mark.parametrize(("changes", "key", "reason"), [
    ({"efa": True}, "efa", "EFA jobs need every node of a placement group or reservation"),
    ({"placementGroup": True}, "placementGroup", "a cluster placement group is fixed capacity"),
    ({"capacity": RESERVATION}, "capacity.type", "a reservation is capacity that was bought"),
    ({"capacity": {**BLOCK, "instanceCount": 4}}, "capacity.type", "a capacityBlock is capacity that was bought"),
])
def test_a_karpenter_group_with_efa_a_reservation_a_block_or_a_placement_group_is_refused(changes, key, reason):
    issue = refusal(**changes)
    assert issue.path.endswith(key), issue.path
    assert issue.value == (changes["capacity"]["type"] if "capacity" in changes else True)
    assert reason in issue.message and "autoscaler: karpenter" in issue.message
    assert "autoscaler: cluster-autoscaler" in issue.fix


def test_a_karpenter_group_on_an_efa_type_runs_without_efa_or_placement_group_unless_asked():
    group = validate(NodeGroupConfig, DEV, prefix="nodeGroups[0]")
    assert group.efa_enabled is False and group.in_placement_group is False and group.efa_interfaces_per_node == 0


def test_the_same_group_on_the_cluster_autoscaler_gets_efa_by_default():
    group = validate(NodeGroupConfig, {**DEV, "autoscaler": "cluster-autoscaler"}, prefix="nodeGroups[0]")
    assert group.efa_enabled is True


def test_an_unknown_autoscaler_is_refused_with_the_choices():
    issue = refusal(autoscaler="keda")
    assert issue.path.endswith("autoscaler") and "karpenter" in issue.message + issue.fix
