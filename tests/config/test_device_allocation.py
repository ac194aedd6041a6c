"""A group's device-allocation profile: device plugins by default, DRA where EKS and the autoscaler
can serve it, and every Kubernetes version a new cluster may use able to run DRA."""

import pytest
from trainstack.catalog.device_allocation import DRA_MINIMUM_KUBERNETES, supports_dra
from trainstack.config import ConfigError, NodeGroupConfig, validate
from trainstack.config.cluster import EKS_VERSIONS

GROUP = {"name": "gpu", "instanceType": "p6-b200.48xlarge", "minSize": 1, "desiredSize": 1, "maxSize": 2,
         "zone": "us-east-1a"}


def test_groups_stay_on_device_plugins_unless_they_opt_in():
    assert validate(NodeGroupConfig, GROUP, prefix="group").device_allocation == "device-plugins"


def test_a_p6_b200_group_on_the_cluster_autoscaler_with_a_node_up_may_use_dra():
    assert validate(NodeGroupConfig, {**GROUP, "deviceAllocation": "dra"}, prefix="group").device_allocation == "dra"


def test_a_dra_group_that_could_scale_to_zero_is_refused_with_the_key_and_the_fix():
    with pytest.raises(ConfigError) as raised:
        validate(NodeGroupConfig, {**GROUP, "deviceAllocation": "dra", "minSize": 0, "desiredSize": 0},
                 prefix="group")
    (issue,) = raised.value.issues
    assert issue.path == "group:minSize"
    assert "ResourceClaims" in issue.message and "minSize to at least 1" in issue.fix


def test_dra_needs_kubernetes_1_34():
    assert DRA_MINIMUM_KUBERNETES == "1.34"
    assert not supports_dra("1.33") and supports_dra("1.34") and supports_dra("v1.35.2")


def test_a_dra_group_is_refused_on_the_windows_minors_before_1_34_and_planned_from_1_34():
    older = [version for version in EKS_VERSIONS if not supports_dra(version)]
    assert older == ["1.32", "1.33"]
    for version in older:
        with pytest.raises(ConfigError, match=f"which needs Kubernetes 1.34 or later .*eks.version is {version}"):
            b200_dra_on(version)
    assert b200_dra_on("1.34").eks.version == "1.34"


def b200_dra_on(version):
    from support.plan_records import stack_config
    from trainstack.config import validate_stack_config

    config = {key.split(":", 1)[1]: value for key, value in stack_config("b200-dra").items()}
    config["eks"] = {**config["eks"], "version": version}
    return validate_stack_config(config)


TRN1 = {**GROUP, "name": "trn1", "instanceType": "trn1.32xlarge", "deviceAllocation": "dra"}


def test_a_trainium_group_may_use_the_neuron_dra_driver():
    assert validate(NodeGroupConfig, TRN1, prefix="group").device_allocation == "dra"


def test_an_inferentia_group_on_dra_is_refused_because_the_chart_runs_its_driver_on_trainium_only():
    with pytest.raises(ConfigError) as raised:
        validate(NodeGroupConfig, {**TRN1, "instanceType": "inf2.48xlarge"}, prefix="group")
    (issue,) = raised.value.issues
    assert issue.path == "group:deviceAllocation" and "inf2.48xlarge" in issue.message
    assert "Trainium (trn) nodes only" in issue.message and "device-plugins" in issue.fix


@pytest.mark.parametrize(("change", "path"), [({"minSize": 0, "desiredSize": 0}, "group:minSize"),
                                              ({"autoscaler": "karpenter"}, "group:deviceAllocation")])
def test_a_trainium_dra_group_meets_the_same_checks_as_a_gpu_one(change, path):
    with pytest.raises(ConfigError) as raised:
        validate(NodeGroupConfig, {**TRN1, **change}, prefix="group")
    assert [issue.path for issue in raised.value.issues] == [path]
