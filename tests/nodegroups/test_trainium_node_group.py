"""Trainium node groups: the Neuron AMI, EFA interfaces from the catalog, Neuron
labels and taint, and device plugins that stay where their devices are."""

import re

import pytest
from trainstack import ConfigError
from trainstack.nodegroups import ClusterAttachment, TrainiumNodeGroup
from trainstack.plan import run_program
from trainstack.training_stack import TrainingStack

LT, NG, RELEASE = ("aws:ec2/launchTemplate:LaunchTemplate", "aws:eks/nodeGroup:NodeGroup",
                   "kubernetes:helm.sh/v3:Release")
ATTACHMENT = dict(cluster_name="train", kubernetes_version="1.35", cluster_security_group_id="sg-cluster",
                  efa_security_group_id="sg-efa",
                  node_role_arn="arn:aws:iam::123456789012:role/nodes", subnet_ids={"us-east-2b": "subnet-b"})


def plan_group(**settings):
    settings = {"name": "trn", "zone": "us-east-2b", "maxSize": 4, **settings}
    return run_program(
        lambda: TrainiumNodeGroup("trn", {"settings": settings, "cluster": ClusterAttachment(**ATTACHMENT)}),
        project="demo", stack="test")


@pytest.mark.parametrize("instance_type, efa_cards", [
    ("trn1.32xlarge", range(8)), ("trn1n.32xlarge", range(16)), ("trn2.48xlarge", range(16))])
def test_launch_template_lists_every_efa_interface(instance_type, efa_cards):
    interfaces = plan_group(instanceType=instance_type).get(LT, "trn").inputs["networkInterfaces"]
    rendered = [(i["networkCardIndex"], i["deviceIndex"], i["interfaceType"]) for i in interfaces]
    assert rendered == [(0, 0, "interface")] + [(c, 1 if c == 0 else 0, "efa-only") for c in efa_cards]
    assert all(i["securityGroups"] == ["sg-cluster", "sg-efa"] for i in interfaces)


def test_trainium_nodes_use_the_al2023_neuron_ami_with_neuron_labels_and_taint():
    group = plan_group(instanceType="trn1.32xlarge").get(NG, "trn").inputs
    assert group["amiType"] == "AL2023_x86_64_NEURON"
    assert group["labels"]["aws.amazon.com/neuron.present"] == "true"
    assert group["labels"]["trainstack.io/accelerator"] == "neuron"
    assert "nvidia.com/gpu.present" not in group["labels"]
    assert group["taints"] == [{"key": "aws.amazon.com/neuron", "value": "true", "effect": "NO_SCHEDULE"}]


def test_scale_from_zero_tags_advertise_neuron_devices_cores_efa_and_its_huge_pages():
    plan = plan_group(instanceType="trn1.32xlarge")
    tags = {t.inputs["tag"]["key"].rsplit("/resources/", 1)[1]: t.inputs["tag"]["value"]
            for t in plan.by_type("aws:autoscaling/tag:Tag")}
    assert tags == {"aws.amazon.com/neuron": "16", "aws.amazon.com/neuroncore": "32", "vpc.amazonaws.com/efa": "8",
                    "hugepages-2Mi": "5120Mi"}


def test_trn2_on_a_capacity_block_uses_the_block_market_and_no_placement_group():
    plan = plan_group(instanceType="trn2.48xlarge", capacity={
        "type": "capacityBlock", "reservationId": "cr-0123456789abcdef0", "zone": "us-east-2b", "instanceCount": 4,
        "endsAt": "2026-12-01T11:30:00Z"})
    assert plan.get(LT, "trn").inputs["instanceMarketOptions"] == {"marketType": "capacity-block"}
    assert plan.get(NG, "trn").inputs["capacityType"] == "CAPACITY_BLOCK"
    assert not plan.by_type("aws:ec2/placementGroup:PlacementGroup")


def test_efa_on_trn1_2xlarge_is_refused_with_the_efa_sizes_of_the_family():
    with pytest.raises(ConfigError) as raised:
        plan_group(instanceType="trn1.2xlarge", efa=True)
    issue = raised.value.issues[0]
    assert issue.path == "TrainiumNodeGroup(trn):efa"
    assert issue.message == "trn1.2xlarge has no EFA."
    assert "trn1.32xlarge" in issue.fix and "efa: false" in issue.fix


def test_a_gpu_type_is_not_a_trainium_group():
    with pytest.raises(ConfigError, match=re.escape("p5.48xlarge has no neuron accelerator")):
        plan_group(instanceType="p5.48xlarge")


# Each group in a zone EC2 offers its type in (us-east-2 names zones alike in every account; trn1 is in 2c only).
MIXED = {
    "profile": "dev", "region": "us-east-2", "network": {"zones": ["us-east-2b", "us-east-2c"]},
    "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
    "nodeGroups": [
        {"name": "p5", "instanceType": "p5.48xlarge", "maxSize": 2, "zone": "us-east-2b"},
        {"name": "trn1", "instanceType": "trn1.32xlarge", "maxSize": 2, "zone": "us-east-2c"},
        {"name": "small", "instanceType": "g5.2xlarge", "maxSize": 2, "zone": "us-east-2b"},
    ],
}


@pytest.fixture(scope="module")
def mixed():
    return run_program(lambda: TrainingStack("mixed", MIXED), project="demo", stack="mixed")


def _selects(selector: dict, labels: dict) -> bool:
    return selector.items() <= labels.items()


def test_in_a_mixed_cluster_each_device_plugin_selects_only_nodes_with_its_devices(mixed):
    labels = {g.name.removeprefix("mixed-eks-"): g.inputs["labels"] for g in mixed.by_type(NG)}
    releases = {r.inputs["chart"]: r.inputs["values"] for r in mixed.by_type(RELEASE)}
    nvidia = releases["nvidia-device-plugin"]["nodeSelector"]
    neuron = releases["oci://public.ecr.aws/neuron/neuron-helm-chart"]["devicePlugin"]["nodeSelector"]
    efa = releases["aws-efa-k8s-device-plugin"]["nodeSelector"]
    assert {name for name, node in labels.items() if _selects(nvidia, node)} == {"p5", "small"}
    assert {name for name, node in labels.items() if _selects(neuron, node)} == {"trn1"}
    assert {name for name, node in labels.items() if _selects(efa, node)} == {"p5", "trn1"}


def test_the_efa_plugin_tolerates_both_accelerator_taints_and_each_plugin_only_its_own(mixed):
    releases = {r.inputs["chart"]: r.inputs["values"] for r in mixed.by_type(RELEASE)}
    keys = lambda tolerations: {t["key"] for t in tolerations}  # noqa: E731
    health = "sagemaker.amazonaws.com/node-health-status"
    assert keys(releases["aws-efa-k8s-device-plugin"]["tolerations"]) == {
        "nvidia.com/gpu", "aws.amazon.com/neuron", health}
    assert keys(releases["nvidia-device-plugin"]["tolerations"]) == {"nvidia.com/gpu", health}
    neuron = releases["oci://public.ecr.aws/neuron/neuron-helm-chart"]
    assert "nvidia.com/gpu" not in keys(neuron["devicePlugin"]["tolerations"])


def test_the_neuron_scheduler_extension_runs_on_system_nodes(mixed):
    neuron = next(r for r in mixed.by_type(RELEASE) if r.inputs["chart"].endswith("neuron-helm-chart"))
    values = neuron.inputs["values"]
    assert values["scheduler"]["enabled"] is True
    assert values["scheduler"]["nodeSelector"] == {"trainstack.io/node-group": "system"}
    assert values["scheduler"]["customScheduler"]["nodeSelector"] == {"trainstack.io/node-group": "system"}
    assert neuron.inputs["version"] == "1.9.0" and "repositoryOpts" not in neuron.inputs
