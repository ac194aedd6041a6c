"""Every pulumi-aws-native resource trainstack renders (today: the HyperPod cluster) against
AWS's CloudFormation schema for the stack's region, as cfn-lint ships it: the shipped stacks
and generated variants (Slurm and EKS, several instance types and regions) pass; inputs
that break the schema fail.

How the API model's and the regions' lists of HyperPod types divide the judgement is
decided, with the reasons, in ``support/cloudformation.py``.
"""

import copy
from pathlib import Path

import pytest
from support.cloudformation import HYPERPOD_CLUSTER as CLUSTER
from support.cloudformation import NATIVE_PREFIX, native_resource_errors, template_for
from trainstack.hyperpod import HyperPodCluster
from trainstack.plan import find_project, run_plan, run_program
from trainstack.policy import stack_from_plan

PROJECT = find_project(Path(__file__).resolve().parents[2])
FSX = {"dns_name": "fs-0123456789abcdef0.fsx.us-east-1.amazonaws.com", "mount_name": "abcdefgh",
       "mount_path": "/fsx"}
EKS = {"cluster_arn": "arn:aws:eks:us-east-1:123456789012:cluster/demo", "authentication_mode": "API",
       "kubeconfig": "{}"}
PLAN = "arn:aws:sagemaker:us-east-2:123456789012:training-plan/p5e-weekly-plan"


@pytest.fixture(scope="module")
def shipped():
    """(stack, token, name, inputs, region) of every aws-native resource in the shipped stacks."""
    found = []
    for stack_name in sorted(PROJECT.stacks()):
        for resource in stack_from_plan(run_plan(PROJECT, stack_name)).resources:
            if resource.type.startswith(NATIVE_PREFIX) and not resource.type.startswith("pulumi:providers:"):
                found.append((stack_name, resource.type, resource.name, resource.props, resource.provider["region"]))
    return found


def test_the_shipped_stacks_render_a_hyperpod_cluster_with_slurm_and_one_with_eks(shipped):
    assert [(s, t) for s, t, *_ in shipped] == [("hyperpod", CLUSTER), ("hyperpod-eks", CLUSTER)]


def test_every_aws_native_resource_of_the_shipped_stacks_passes_its_regions_schema(shipped):
    for stack, token, name, inputs, region in shipped:
        assert native_resource_errors(token, inputs, region) == [], (stack, name, region)


def _group(name, instance_type, count=1, **extra):
    return {"name": name, "instanceType": instance_type, "count": count, **extra}


VARIANTS = {
    "slurm us-east-1: p5 and trn1 workers, login node, hyperthreading, EBS": ("us-east-1", {
        "orchestrator": "slurm", "clusterName": "train-east", "nodeRecovery": "None",
        "controller": _group("controller", "ml.m5.xlarge", threadsPerCore=2),
        "login": _group("login", "ml.c5.2xlarge"),
        "workers": [_group("p5", "ml.p5.48xlarge", 2, ebsVolumeGiB=500,
                           deepHealthChecks=["InstanceStress", "InstanceConnectivity"]),
                    _group("trn1", "ml.trn1.32xlarge", 4, partition="neuron")],
        "sshPublicKey": "ssh-ed25519 AAAAC3 me@laptop", "users": [{"name": "alice", "uid": 2001}]}, False),
    "slurm us-west-2: trn2.3xlarge and g6e": ("us-west-2", {
        "orchestrator": "slurm", "clusterName": "train-west", "controller": _group("c", "ml.c5.xlarge"),
        "workers": [_group("trn2", "ml.trn2.3xlarge", 2), _group("g6e", "ml.g6e.48xlarge")]}, False),
    "eks us-east-1: p4d and g5 with hyperthreading": ("us-east-1", {
        "orchestrator": "eks", "clusterName": "eks-east",
        "workers": [_group("p4d", "ml.p4d.24xlarge", 2, deepHealthChecks=["InstanceStress"]),
                    _group("g5", "ml.g5.12xlarge", 1, threadsPerCore=2)]}, True),
    "eks us-east-2: p5e through a training plan, p5en on demand": ("us-east-2", {
        "orchestrator": "eks", "clusterName": "eks-plan",
        "workers": [_group("p5e", "ml.p5e.48xlarge", 2, trainingPlanArn=PLAN),
                    _group("p5en", "ml.p5en.48xlarge", 1)]}, True),
    "slurm eu-west-1: p5 and trn2.3xlarge": ("eu-west-1", {
        "orchestrator": "slurm", "clusterName": "train-eu", "controller": _group("c", "ml.c5.xlarge"),
        "workers": [_group("p5", "ml.p5.48xlarge", 2), _group("trn2", "ml.trn2.3xlarge", 2)]}, False),
}


def render(region: str, settings: dict, eks: bool) -> dict:
    args = {"settings": settings, "region": region, "subnet_id": "subnet-0123456789abcdef0",
            "security_group_ids": ["sg-0123456789abcdef0"], "fsx_mount": FSX}
    if eks:
        args["eks"] = EKS
    plan = run_program(lambda: HyperPodCluster("hp", args), project="demo", stack="variant",
                       config={"aws-native:region": region})
    return plan.get(CLUSTER, "hp").inputs


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_generated_variants_pass_their_regions_schema(variant):
    region, settings, eks = VARIANTS[variant]
    inputs = render(region, settings, eks)
    assert native_resource_errors(CLUSTER, inputs, region) == []


@pytest.fixture(scope="module")
def seed_inputs(shipped) -> tuple[dict, str]:
    (_, _, _, inputs, region), = [entry for entry in shipped if entry[0] == "hyperpod"]  # the Slurm cluster
    return inputs, region


def broken(inputs: dict, edit) -> dict:
    inputs = copy.deepcopy(inputs)
    edit(inputs)
    return inputs


BREAKS = {
    "a node recovery mode AWS does not have": (
        lambda c: c.update(nodeRecovery="Sometimes"), "E3030", "NodeRecovery"),
    "a Slurm node type AWS does not have": (
        lambda c: c["instanceGroups"][0]["slurmConfig"].update(nodeType="Worker"), "E3030", "SlurmConfig/NodeType"),
    "a deep health check AWS does not have": (
        lambda c: c["instanceGroups"][1].update(onStartDeepHealthChecks=["InstanceBurnIn"]), "E3030",
        "OnStartDeepHealthChecks/0"),
    "threads per core out of range": (
        lambda c: c["instanceGroups"][0].update(threadsPerCore=3), "E3034", "ThreadsPerCore"),
    "an ml type the region does not offer (trn2.3xlarge in us-east-1)": (
        lambda c: c["instanceGroups"][1].update(instanceType="ml.trn2.3xlarge"), "E3644", "InstanceType"),
    "an EBS volume larger than HyperPod takes": (
        lambda c: c["instanceGroups"][1]["instanceStorageConfigs"].append(
            {"ebsVolumeConfig": {"volumeSizeInGb": 20000}}), "E3034", "VolumeSizeInGB"),
    "a property the schema does not declare": (
        lambda c: c["instanceGroups"][0].update(instanceGroupTitle="x"), "E3002", "InstanceGroups/0"),
    "a Slurm worker in two partitions": (
        lambda c: c["instanceGroups"][1]["slurmConfig"].update(partitionNames=["a", "b"]), "E3", "PartitionNames"),
}


@pytest.mark.parametrize("case", list(BREAKS))
def test_a_hyperpod_input_that_breaks_the_schema_fails(seed_inputs, case):
    inputs, _ = seed_inputs
    edit, rule, where = BREAKS[case]
    errors = native_resource_errors(CLUSTER, broken(inputs, edit), "us-east-1")
    assert any(e.startswith(rule) and where in e for e in errors), errors


def test_a_training_plan_does_not_admit_a_type_the_api_does_not_list(seed_inputs):
    inputs, _ = seed_inputs
    planned = broken(inputs, lambda c: c["instanceGroups"][1].update(instanceType="ml.inf2.48xlarge",
                                                                      trainingPlanArn=PLAN))
    assert native_resource_errors(CLUSTER, planned, "us-east-2") == [
        "InstanceGroups/1/InstanceType: ml.inf2.48xlarge is not a ClusterInstanceType in the SageMaker API model"]


def test_camel_case_inputs_map_back_to_the_schemas_names_and_label_keys_stay_data():
    inputs = {"instanceGroups": [{"instanceGroupName": "g", "instanceStorageConfigs": [
        {"ebsVolumeConfig": {"volumeSizeInGb": 100}}, {"fsxLustreConfig": {"dnsName": "d", "mountName": "m"}}],
        "kubernetesConfig": {"labels": {"nvidia.com/gpu.present": "true"}}}],
        "vpcConfig": {"securityGroupIds": ["sg-1"], "subnets": ["subnet-1"]}}
    properties = template_for(CLUSTER, inputs, "us-east-1")["Resources"]["Rendered"]["Properties"]
    assert properties == {"InstanceGroups": [{"InstanceGroupName": "g", "InstanceStorageConfigs": [
        {"EbsVolumeConfig": {"VolumeSizeInGB": 100}}, {"FsxLustreConfig": {"DnsName": "d", "MountName": "m"}}],
        "KubernetesConfig": {"Labels": {"nvidia.com/gpu.present": "true"}}}],
        "VpcConfig": {"SecurityGroupIds": ["sg-1"], "Subnets": ["subnet-1"]}}
