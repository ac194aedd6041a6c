"""nodeGroups[].nodeRepair: EKS node auto repair's thresholds, pace and per-condition actions, typed and checked
before any resource exists; reserved capacity repairs one node at a time unless told otherwise."""

import pytest
from trainstack.config import ConfigError, NodeGroupConfig, validate

GROUP = {"name": "gpu", "instanceType": "p5.48xlarge", "maxSize": 4, "zone": "us-east-1a"}
RESERVED = {**GROUP, "capacity": {"type": "reservation", "reservationId": "cr-0123456789abcdef0",
                                  "zone": "us-east-1a", "instanceCount": 4}}
XID = {"condition": "AcceleratedHardwareReady", "reason": "NvidiaXID79Error", "waitMinutes": 15, "action": "Reboot"}


def group(settings, **repair):
    return validate(NodeGroupConfig, {**settings, "nodeRepair": repair}, prefix="group")


def refused(settings, **repair):
    with pytest.raises(ConfigError) as raised:
        group(settings, **repair)
    (issue,) = raised.value.issues
    return issue


def test_a_reserved_group_repairs_one_node_at_a_time_and_reboots_where_it_is_told():
    rendered = group(RESERVED, overrides=[XID]).node_repair.rendered(reserved=True)
    assert rendered == {"enabled": True, "max_parallel_nodes_repaired_count": 1, "node_repair_config_overrides": [
        {"node_monitoring_condition": "AcceleratedHardwareReady", "node_unhealthy_reason": "NvidiaXID79Error",
         "min_repair_wait_time_mins": 15, "repair_action": "Reboot"}]}


def test_on_demand_groups_keep_eks_pace_unless_set_and_a_percentage_replaces_the_default():
    assert group(GROUP).node_repair.rendered(reserved=False) == {"enabled": True}
    assert group(RESERVED, maxParallelPercent=50, maxUnhealthyNodes=2).node_repair.rendered(reserved=True) == {
        "enabled": True, "max_unhealthy_node_threshold_count": 2, "max_parallel_nodes_repaired_percentage": 50}


@pytest.mark.parametrize("repair, path, words", [
    ({"maxUnhealthyNodes": 2, "maxUnhealthyPercent": 10}, "group:nodeRepair.maxUnhealthyPercent",
     "remove maxUnhealthyNodes or maxUnhealthyPercent"),
    ({"maxParallelRepairs": 5}, "group:nodeRepair.maxParallelRepairs", "at most 4"),
    ({"overrides": [XID, {**XID, "action": "Replace"}]}, "group:nodeRepair.overrides[1].reason",
     "one override per condition and reason"),
    ({"overrides": [{**XID, "condition": "GpuReady"}]}, "group:nodeRepair.overrides[0].condition",
     "AcceleratedHardwareReady"),
    ({"overrides": [{**XID, "action": "Terminate"}]}, "group:nodeRepair.overrides[0].action", "Reboot"),
    ({"maxParallelPercent": 101}, "group:nodeRepair.maxParallelPercent", "100"),
])
def test_bad_repair_settings_are_refused_with_the_key_and_the_fix(repair, path, words):
    issue = refused(GROUP, **repair)
    assert issue.path == path and words in issue.message + issue.fix


def test_repair_settings_on_a_group_with_repair_off_are_refused():
    with pytest.raises(ConfigError) as raised:
        validate(NodeGroupConfig, {**GROUP, "autoRepair": False, "nodeRepair": {"maxParallelRepairs": 1}},
                 prefix="group")
    (issue,) = raised.value.issues
    assert issue.path == "group:autoRepair" and "remove nodeRepair" in issue.fix
