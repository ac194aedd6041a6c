"""trainstack:deviceWait: what `trainstack up` waits for once deployed, read from the catalog per group and
profile, typed and checked before anything exists; shown by the offline plan with its timeout, only on a stack
that sets it."""

import pytest
from trainstack.config import ConfigError, validate_stack_config
from trainstack.config.device_wait import FABRIC_MANAGER_UNCHECKED, device_needs
from trainstack.names import NODE_GROUP_LABEL

B200 = {"name": "b200", "instanceType": "p6-b200.48xlarge", "minSize": 1, "desiredSize": 2, "maxSize": 4,
        "zone": "us-east-1a"}
TRN1 = {"name": "trn1", "instanceType": "trn1.32xlarge", "minSize": 0, "desiredSize": 1, "maxSize": 2,
        "zone": "us-east-1a"}


def needs(valid_config, *groups, **wait):
    config = validate_stack_config({**valid_config, "eks": {**valid_config["eks"], "version": "1.34"},
                                    "nodeGroups": list(groups), "deviceWait": wait})
    return {need.group: need for need in device_needs(config.node_groups)}, config.device_wait


def test_each_profile_waits_for_the_catalogs_devices_where_that_profile_shows_them(valid_config):
    p5 = {**valid_config["nodeGroups"][0], "desiredSize": 1}
    found, wait = needs(valid_config, p5, TRN1, {**B200, "deviceAllocation": "dra"})
    # p5.48xlarge: 8 H100 and 32 EFA interfaces; trn1.32xlarge: 16 Trainium chips and 8 EFA interfaces;
    # p6-b200.48xlarge: 8 B200 and 8 EFA interfaces (catalog/ec2_instance_types.json, EC2 DescribeInstanceTypes).
    assert found["gpu"].devices == {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32}
    assert found["trn1"].devices == {"aws.amazon.com/neuron": 16, "vpc.amazonaws.com/efa": 8}
    # A DRA group shows no extended resource: its drivers publish ResourceSlices (catalog/device_allocation.py).
    assert found["b200"].devices == {"gpu.nvidia.com": 8, "dra.net": 8} and found["b200"].allocation == "dra"
    assert {n.group: n.nodes for n in found.values()} == {"gpu": 1, "trn1": 1, "b200": 2}
    assert found["b200"].node_selector == {NODE_GROUP_LABEL: "b200"}
    assert (wait.timeout_minutes, wait.poll_seconds) == (20, 15)


def test_nvswitch_types_say_the_fabric_manager_is_not_checked_and_others_say_nothing(valid_config):
    found, _ = needs(valid_config, valid_config["nodeGroups"][0], TRN1)
    assert found["gpu"].fabric_manager == FABRIC_MANAGER_UNCHECKED and found["trn1"].fabric_manager == ""


def test_a_group_without_efa_waits_for_its_accelerators_alone(valid_config):
    g6e = {"name": "g6e", "instanceType": "g6e.xlarge", "minSize": 0, "desiredSize": 1, "maxSize": 2,
           "zone": "us-east-1a"}
    found, _ = needs(valid_config, g6e)
    assert found["g6e"].devices == {"nvidia.com/gpu": 1}


@pytest.mark.parametrize("wait, path, words", [
    ({"timeoutMinutes": 0}, "trainstack:deviceWait.timeoutMinutes", "greater than or equal to 1"),
    ({"timeoutMinutes": 600}, "trainstack:deviceWait.timeoutMinutes", "less than or equal to 240"),
    ({"timeout": 20}, "trainstack:deviceWait.timeout", "timeoutMinutes"),
])
def test_bad_wait_settings_are_refused_naming_the_key_the_value_and_the_fix(valid_config, wait, path, words):
    with pytest.raises(ConfigError) as raised:
        validate_stack_config({**valid_config, "deviceWait": wait})
    (issue,) = raised.value.issues
    assert issue.path == path and words in str(raised.value)
    assert str(next(iter(wait.values()))) in str(raised.value)


def test_the_plan_shows_the_wait_and_its_timeout_only_on_a_stack_that_sets_it(valid_config, scratch_project):
    from pathlib import Path

    from trainstack.analysis import plan_stack

    project = Path(scratch_project("waits", {**valid_config, "deviceWait": {"timeoutMinutes": 35}}))
    scratch_project("no-wait", valid_config)
    section = plan_stack("waits", project).sections.device_wait
    assert section.as_dict()["timeoutMinutes"] == 35
    assert section.as_dict()["groups"] == [{"group": "gpu", "instanceType": "p5.48xlarge",
                                            "allocation": "device-plugins", "nodes": 0, "fabricManager":
                                            FABRIC_MANAGER_UNCHECKED,
                                            "devices": {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32}}]
    assert "timeout 35 min" in section.render()
    assert plan_stack("no-wait", project).sections.device_wait is None


def test_a_wait_on_a_stack_without_accelerated_groups_is_refused_with_the_fix(valid_config):
    with pytest.raises(ConfigError) as raised:
        validate_stack_config({**valid_config, "nodeGroups": [], "deviceWait": {}})
    (issue,) = raised.value.issues
    assert issue.path == "trainstack:deviceWait" and "add nodeGroups" in issue.fix


def test_hyperpod_workers_in_the_cluster_are_named_as_not_waited_for_never_passed_over_in_silence(valid_config):
    from trainstack.analysis.planning import device_wait_plan
    from trainstack.config.device_wait import HYPERPOD_NOT_WAITED

    hyperpod = {"orchestrator": "eks", "clusterName": "ml-cluster",
                "workers": [{"name": "h100", "instanceType": "ml.p5.48xlarge", "count": 2},
                            {"name": "trn", "instanceType": "ml.trn1.32xlarge", "count": 1}]}
    config = validate_stack_config({**valid_config, "hyperpod": hyperpod, "deviceWait": {}})
    section = device_wait_plan(config)
    # The node group is waited for as before; the HyperPod groups are named with why they are not.
    assert [need["group"] for need in section.as_dict()["groups"]] == ["gpu"]
    assert section.as_dict()["hyperPodGroupsNotWaited"] == {
        "groups": ["h100 (ml.p5.48xlarge, 2 instances)", "trn (ml.trn1.32xlarge, 1 instance)"],
        "why": HYPERPOD_NOT_WAITED}
    assert "HyperPod h100 (ml.p5.48xlarge, 2 instances), trn (ml.trn1.32xlarge, 1 instance): not waited for" in \
        section.render()
    assert "deep health checks" in HYPERPOD_NOT_WAITED


def test_a_stack_without_hyperpod_workers_in_its_cluster_says_nothing_of_them(valid_config):
    from trainstack.analysis.planning import device_wait_plan

    section = device_wait_plan(validate_stack_config({**valid_config, "deviceWait": {}}))
    assert "hyperPodGroupsNotWaited" not in section.as_dict() and "HyperPod" not in section.render()
