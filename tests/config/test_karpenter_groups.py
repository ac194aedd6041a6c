"""One group, one autoscaler: a group with autoscaler: karpenter is an elastic pool, or the one holder
of a reservation or capacity block it names by id, with EFA and a placement group as a managed group
has them, as far as the pinned Karpenter (v1.14.1) supports them. What it cannot do is refused with the
key, the value, the reason and the fix, before anything is built."""

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


def accepted(**changes):
    return validate(NodeGroupConfig, {**DEV, **changes}, prefix="nodeGroups[0]")


def test_a_karpenter_group_may_hold_a_reservation_or_a_block_by_id_with_efa_on_and_no_placement_group():
    reserved = accepted(capacity=RESERVATION)
    block = accepted(instanceType="p5.48xlarge", capacity={**BLOCK, "instanceCount": 4})
    for group in (reserved, block):
        assert group.efa_enabled is True and group.in_placement_group is False


def test_an_elastic_karpenter_pool_may_ask_for_efa_and_then_gets_a_placement_group_like_a_managed_group():
    group = accepted(efa=True)
    assert group.efa_enabled is True and group.in_placement_group is True


def test_a_reservation_by_resource_group_is_refused_as_karpenter_cannot_select_one():
    resource_group = {**RESERVATION, "reservationId": None,
                      "resourceGroupArn": "arn:aws:resource-groups:us-east-1:123456789012:group/odcrs"}
    issue = refusal(capacity=resource_group)
    assert issue.path.endswith("capacity.resourceGroupArn")
    assert "capacityReservationSelectorTerms" in issue.message and "autoscaler: cluster-autoscaler" in issue.fix


@pytest.mark.parametrize(("pinned", "group", "missing"), [
    ("1.2.0", {**DEV, "capacity": RESERVATION}, "came in v1.3.0"),
    ("1.5.2", {**DEV, "instanceType": "p5.48xlarge", "capacity": {**BLOCK, "instanceCount": 4}}, "came in v1.6.0"),
    ("1.10.3", {**DEV, "efa": True}, "came in v1.11.0"),
    ("1.10.3", {**DEV, "instanceType": "g6.xlarge", "placementGroup": True}, "came in v1.11.0"),
])
def test_what_an_older_karpenter_release_lacks_is_refused_with_the_release_it_came_in(pinned, group, missing):
    from trainstack.config.base import ConfigValueError
    from trainstack.config.checks.karpenter_groups import check_karpenter_group
    settings = NodeGroupConfig.model_construct(**validate(NodeGroupConfig, group, prefix="g").__dict__)
    with pytest.raises(ConfigValueError) as raised:
        check_karpenter_group(settings, pinned=pinned)
    assert missing in str(raised.value) and f"Karpenter {pinned}" in str(raised.value)
    check_karpenter_group(settings)  # the pinned v1.14.1 has every one of them


def test_an_elastic_karpenter_group_on_an_efa_type_runs_without_efa_or_placement_group_unless_asked():
    group = validate(NodeGroupConfig, DEV, prefix="nodeGroups[0]")
    assert group.efa_enabled is False and group.in_placement_group is False and group.efa_interfaces_per_node == 0


def test_the_same_group_on_the_cluster_autoscaler_gets_efa_by_default():
    group = validate(NodeGroupConfig, {**DEV, "autoscaler": "cluster-autoscaler"}, prefix="nodeGroups[0]")
    assert group.efa_enabled is True


def test_an_unknown_autoscaler_is_refused_with_the_choices():
    issue = refusal(autoscaler="keda")
    assert issue.path.endswith("autoscaler") and "karpenter" in issue.message + issue.fix


def test_one_reservation_is_held_by_one_group_whichever_autoscaler_each_has():
    from trainstack.config import StackConfig
    managed = {**DEV, "name": "managed", "autoscaler": "cluster-autoscaler", "capacity": RESERVATION}
    stack = {"profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
             "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
             "nodeGroups": [managed, {**DEV, "name": "pool", "capacity": RESERVATION}]}
    with pytest.raises(ConfigError) as raised:
        validate(StackConfig, stack, prefix="trainstack")
    [issue] = raised.value.issues
    assert issue.path.endswith("nodeGroups[1].capacity.reservationId") and issue.value == RESERVATION["reservationId"]
    assert "already held by node group 'managed' (autoscaler: cluster-autoscaler)" in issue.message
    validate(StackConfig, {**stack, "nodeGroups": [managed]}, prefix="trainstack")


@pytest.mark.parametrize(("changes", "reason"), [
    ({"spot": True, "efa": True}, "an EFA group cannot run on Spot"),
    ({"spot": True, "capacity": RESERVATION}, "a group that holds a reservation cannot also run on Spot"),
    ({"spot": True, "autoscaler": "cluster-autoscaler"}, "spot is launched by Karpenter"),
])
def test_spot_is_refused_on_efa_groups_reserved_groups_and_managed_groups(changes, reason):
    issue = refusal(**changes)
    assert issue.path.endswith("spot") and issue.value is True and reason in issue.message


def test_an_elastic_pool_may_run_on_spot():
    assert accepted(spot=True).spot is True
