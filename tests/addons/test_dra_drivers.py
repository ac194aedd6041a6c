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


NEURON_CHART = "oci://public.ecr.aws/neuron/neuron-helm-chart"
NEURON_DRA_LABELS = {"trainstack.io/device-allocation": "dra", "trainstack.io/accelerator": "neuron"}


def variant_releases(variant):
    """Every Helm release of a generated variant (tests/support/rendered_jobs.py), by release name."""
    return {r.name: r for r in from_record(rendered_jobs.variant_record(variant)).of_type(HELM_RELEASE)}


def neuron_components(values):
    return {part for part in ("devicePlugin", "scheduler", "draDriver") if (values.get(part) or {}).get("enabled")}


def test_the_neuron_dra_driver_runs_alone_in_its_release_on_the_dra_trainium_nodes():
    releases_ = variant_releases("trn1-dra")
    [neuron] = [r for r in releases_.values() if r.props["chart"] == NEURON_CHART]
    values = neuron.props["values"]
    assert neuron.props["version"] == "1.9.0" and neuron_components(values) == {"draDriver"}
    assert values["npd"] == {"enabled": False}
    assert values["draDriver"]["nodeSelector"] == NEURON_DRA_LABELS
    assert {"key": "aws.amazon.com/neuron", "operator": "Exists", "effect": "NoSchedule"} in values["draDriver"][
        "tolerations"]
    charts = {r.props["chart"] for r in releases_.values()}
    assert "aws-dranet" in charts
    assert not {"aws-efa-k8s-device-plugin", "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"} & (
        charts)


def test_beside_a_device_plugin_group_the_neuron_chart_is_released_once_per_component():
    """The chart's validateConfig refuses draDriver with devicePlugin or scheduler in one release."""
    neuron = [r for r in variant_releases("trn1-dra-beside-plugins").values() if r.props["chart"] == NEURON_CHART]
    assert sorted(neuron_components(r.props["values"]) for r in neuron) == [
        {"devicePlugin", "scheduler"}, {"draDriver"}]
    [plugin] = [r for r in neuron if "devicePlugin" in neuron_components(r.props["values"])]
    assert plugin.props["values"]["devicePlugin"]["nodeSelector"] == {"aws.amazon.com/neuron.present": "true"}


def test_a_dra_trainium_node_carries_no_neuron_device_plugin_label():
    stack = from_record(rendered_jobs.variant_record("trn1-dra-beside-plugins"))
    labels = {g.props["labels"]["trainstack.io/node-group"]: g.props["labels"] for g in stack.of_type(NODE_GROUP)
              if "trainstack.io/node-group" in g.props["labels"]}
    assert "aws.amazon.com/neuron.present" not in labels["trn1-dra"]
    assert labels["trn1"]["aws.amazon.com/neuron.present"] == "true"


def test_a_dra_trainium_group_names_no_custom_scheduler_and_a_device_plugin_one_does():
    groups = rendered_jobs.variant_outputs("trn1-dra-beside-plugins").accelerated_groups
    assert groups["trn1-dra"].scheduler_name is None and groups["trn1"].scheduler_name == "my-scheduler"
