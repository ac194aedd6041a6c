"""A node group with autoscaler: karpenter is a Karpenter NodePool and EC2NodeClass, not a managed
node group: the group's type, zone, labels and taints, a limit of maxSize nodes, consolidation of
empty nodes, every object valid against Karpenter's v1.14.1 CRDs; its nodes carry what a managed
group's would, so the outputs contract and the launchers serve it alike."""

import copy

import jsonschema
import pytest
from support import crds
from support.rendered_jobs import outputs_of, variant_outputs
from trainstack.launch import QueueRequest, render_pytorchjob, render_trainjob
from trainstack.plan import run_program
from trainstack.training_stack import TrainingStack

DEV = {"name": "dev", "instanceType": "g6.xlarge", "maxSize": 8, "zone": "us-east-1a", "autoscaler": "karpenter",
       "labels": {"team": "research"}, "taints": [{"key": "dedicated", "value": "dev", "effect": "NoSchedule"}]}
CONFIG = {"profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
          "eks": {"publicAccessCidrs": ["203.0.113.0/24"]}, "nodeGroups": [DEV]}
KARPENTER = ("kubernetes:karpenter.sh/v1:NodePool", "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass")


def plan(config):
    return run_program(lambda: TrainingStack("k", config), project="demo", stack="k")


def karpenter_objects(record):
    return {r.type.rsplit(":", 1)[1]: {"apiVersion": r.type.split(":")[1], "kind": r.type.rsplit(":", 1)[1],
                                       "metadata": r.inputs["metadata"], "spec": r.inputs["spec"]}
            for r in record.resources if r.type in KARPENTER}


@pytest.fixture(scope="module")
def record():
    return plan(CONFIG)


@pytest.fixture(scope="module")
def objects(record):
    return karpenter_objects(record)


def test_every_rendered_nodepool_and_ec2nodeclass_validates_against_karpenter_v1_14_1_crds(objects):
    assert set(objects) == {"NodePool", "EC2NodeClass"}
    for document in objects.values():
        crds.validate("karpenter-v1.14.1", document)


def test_the_shipped_kueue_p5_dev_pool_validates_against_the_crds_too():
    shipped = karpenter_objects(plan(_shipped()))
    assert shipped["NodePool"]["metadata"]["name"] == "dev"
    for document in shipped.values():
        crds.validate("karpenter-v1.14.1", document)


def test_a_misspelt_field_or_a_bad_policy_fails_the_crd_validation(objects):
    misspelt = copy.deepcopy(objects["NodePool"])
    misspelt["spec"]["disruption"]["consolidateAfterr"] = "5m"
    with pytest.raises(jsonschema.ValidationError):
        crds.validate("karpenter-v1.14.1", misspelt)
    bad = copy.deepcopy(objects["EC2NodeClass"])
    bad["spec"]["metadataOptions"]["httpTokens"] = "sometimes"
    with pytest.raises(jsonschema.ValidationError):
        crds.validate("karpenter-v1.14.1", bad)


def test_the_pool_makes_only_the_groups_type_in_its_zone_on_demand_and_at_most_max_size_nodes(objects):
    spec = objects["NodePool"]["spec"]
    requirements = {r["key"]: (r["operator"], r["values"]) for r in spec["template"]["spec"]["requirements"]}
    assert requirements == {"node.kubernetes.io/instance-type": ("In", ["g6.xlarge"]),
                            "topology.kubernetes.io/zone": ("In", ["us-east-1a"]),
                            "karpenter.sh/capacity-type": ("In", ["on-demand"])}
    # g6.xlarge: 4 vCPUs, 16 GiB, 1 NVIDIA L4; 8 nodes of it.
    assert spec["limits"] == {"cpu": "32", "memory": "128Gi", "nvidia.com/gpu": "8"}
    assert spec["template"]["spec"]["nodeClassRef"] == {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                        "name": "dev"}


def test_only_empty_nodes_are_consolidated_and_one_in_ten_is_disrupted_at_a_time(objects):
    assert objects["NodePool"]["spec"]["disruption"] == {
        "consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m", "budgets": [{"nodes": "10%"}]}


def test_the_node_class_launches_the_al2023_ami_with_imdsv2_an_encrypted_root_and_the_groups_max_pods(objects):
    spec = objects["EC2NodeClass"]["spec"]
    assert spec["amiSelectorTerms"] == [{"alias": "al2023@latest"}]
    assert spec["metadataOptions"]["httpTokens"] == "required"
    assert spec["blockDeviceMappings"][0]["ebs"]["encrypted"] is True
    assert spec["blockDeviceMappings"][0]["ebs"]["volumeSize"] == "500Gi"
    assert spec["kubelet"]["maxPods"] > 0
    assert spec["role"].startswith("k-eks-karpenter-nodes")


def test_pool_nodes_carry_the_labels_and_taints_a_managed_group_of_the_same_config_would(objects):
    managed = plan({**CONFIG, "nodeGroups": [{**DEV, "autoscaler": "cluster-autoscaler"}]})
    [group] = [r for r in managed.resources if r.type == "aws:eks/nodeGroup:NodeGroup"
               and r.inputs["labels"].get("trainstack.io/node-group") == "dev"]
    template = objects["NodePool"]["spec"]["template"]
    assert template["metadata"]["labels"] == group.inputs["labels"]
    assert template["metadata"]["labels"]["trainstack.io/node-group"] == "dev"
    effects = {"NO_SCHEDULE": "NoSchedule"}
    assert template["spec"]["taints"] == [{**t, "effect": effects[t["effect"]]} for t in group.inputs["taints"]]


def test_a_karpenter_group_has_no_managed_node_group_so_the_cluster_autoscaler_never_sees_it(record):
    assert not [r for r in record.resources if r.type == "aws:eks/nodeGroup:NodeGroup"
                and r.inputs["labels"].get("trainstack.io/node-group") == "dev"]
    assert not [r for r in record.resources if r.type == "aws:autoscaling/tag:Tag" and "-dev-" in r.name]


def test_the_nvidia_device_plugin_runs_on_pool_nodes_under_their_taints(record):
    [plugin] = [r for r in record.resources if r.type == "kubernetes:helm.sh/v3:Release"
                and "nvidia-device-plugin" in str(r.inputs.get("chart"))]
    tolerated = {t["key"] for t in plugin.inputs["values"]["tolerations"]}
    assert {"dedicated", "nvidia.com/gpu"} <= tolerated


def test_launchers_place_a_job_on_the_dev_pool_by_its_node_group_label_and_taint():
    outputs = outputs_of("kueue-p5")
    group = outputs.accelerated_groups["dev"]
    assert group.node_selector == {"trainstack.io/node-group": "dev"}
    gpu_taint = {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
    job = render_trainjob(outputs, name="nb", group_name="dev", nodes=2, image="img:1", command=["torchrun", "x.py"],
                          queue=QueueRequest(team="llm"))
    (patch,) = job["spec"]["runtimePatches"]
    pod = patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"trainstack.io/node-group": "dev"} and gpu_taint in pod["tolerations"]
    assert job["spec"]["trainer"]["resourcesPerNode"]["limits"]["nvidia.com/gpu"] == "1"
    v1 = render_pytorchjob(variant_outputs("kueue-v1"), name="nb", group_name="dev", nodes=2, image="img:1",
                           command=["torchrun", "x.py"], queue=QueueRequest(team="llm"))
    pod = v1["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]
    assert pod["nodeSelector"] == {"trainstack.io/node-group": "dev"} and gpu_taint in pod["tolerations"]


def _shipped():
    from support.plan_records import stack_config
    return {key.split(":", 1)[1]: value for key, value in stack_config("kueue-p5").items()}


def test_the_one_autoscaler_rule_passes_the_shipped_pool_and_fails_it_when_it_claims_the_p5_group():
    from trainstack.policy import stack_from_plan
    from trainstack.policy.scheduling import one_autoscaler_per_group
    record = plan(_shipped())
    assert [r for r in record.resources if r.type == KARPENTER[0]]
    assert list(one_autoscaler_per_group(stack_from_plan(record), {})) == []
    stack = stack_from_plan(record)
    [pool] = [r for r in stack.resources if r.type == KARPENTER[0]]
    pool.props["spec"]["template"]["spec"]["requirements"].append(
        {"key": "trainstack.io/node-group", "operator": "In", "values": ["p5"]})
    [violation] = one_autoscaler_per_group(stack, {})
    assert "node group 'p5'" in violation.message
