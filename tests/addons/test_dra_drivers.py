"""DRA drivers as the offline plan renders them for b200-dra (p6-b200, deviceAllocation: dra): the NVIDIA DRA
driver and aws-dranet on the DRA group's nodes, and no device plugin there; stacks on device plugins get none."""

import pytest
from support import rendered_jobs
from support.policy_stacks import from_record
from trainstack.names import HELM_RELEASE, NODE_GROUP

DRA_LABELS = {"trainstack.io/device-allocation": "dra", "trainstack.io/accelerator": "nvidia-gpu"}


def releases(stack):
    return {r.props["chart"]: r for r in from_record(rendered_jobs.planned_record(stack)).of_type(HELM_RELEASE)}


@pytest.fixture(scope="module")
def b200():
    return releases("b200-dra")


def test_the_nvidia_dra_driver_hands_out_gpus_on_the_dra_nodes_only(b200):
    release = b200["oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"]
    values = release.props["values"]
    assert release.props["version"] == "0.4.1"
    assert values["gpuResourcesEnabledOverride"] is True and values["nvidiaDriverRoot"] == "/"
    assert values["resources"] == {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}}
    plugin = values["kubeletPlugin"]
    assert plugin["nodeSelector"] == DRA_LABELS
    # The chart's own affinity wants Node Feature Discovery's labels, which EKS nodes lack: replaced.
    [term] = plugin["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert {e["key"]: e["values"] for e in term["matchExpressions"]} == {k: [v] for k, v in DRA_LABELS.items()}
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in plugin["tolerations"]


def test_aws_dranet_publishes_efa_from_the_stacks_own_region(b200):
    release = b200["aws-dranet"]
    assert release.props["version"] == "1.0.0"
    assert release.props["values"]["image"]["repository"] == "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/dranet"
    assert release.props["values"]["nodeSelector"] == {"trainstack.io/device-allocation": "dra"}


def test_no_device_plugin_is_installed_for_a_stack_whose_only_group_is_on_dra(b200):
    assert not {"nvidia-device-plugin", "aws-efa-k8s-device-plugin"} & set(b200)


def test_dra_nodes_carry_no_device_plugin_label_and_no_extended_resource_template_tags():
    stack = from_record(rendered_jobs.planned_record("b200-dra"))
    [group] = [g for g in stack.of_type(NODE_GROUP) if g.props["instanceTypes"] == ["p6-b200.48xlarge"]]
    labels = group.props["labels"]
    assert labels["trainstack.io/device-allocation"] == "dra"
    assert not {"nvidia.com/gpu.present", "vpc.amazonaws.com/efa.present"} & set(labels)
    tags = {t.props["tag"]["key"].rsplit("/", 1)[-1] for t in stack.of_type("aws:autoscaling/tag:Tag")
            if "/node-template/resources/" in t.props["tag"]["key"]}
    assert tags == {"hugepages-2Mi"}


@pytest.mark.parametrize("stack", ["fsdp-p5", "dev"])
def test_stacks_on_device_plugins_install_no_dra_driver(stack):
    assert not {"aws-dranet", "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"} & set(
        releases(stack))
