"""An existing cluster's stack (``existingCluster``) makes no AWS resource: every block that would make one is
refused with the key, the value and the route to take instead, before anything is built; the cluster is reached
one way, a kubeconfig file or an endpoint with its certificate authority."""

import pytest
import yaml
from support.kubernetes_layer import REPO
from trainstack.config import ConfigError, StackConfig, validate
from trainstack.plan import find_project

SHIPPED = yaml.safe_load(find_project(REPO).stack_file("byo-p5").read_text())["config"]
BYO = {key.removeprefix("trainstack:"): value for key, value in SHIPPED.items()}


def refusal(**changes):
    with pytest.raises(ConfigError) as raised:
        validate(StackConfig, {**BYO, **changes}, prefix="trainstack")
    [issue] = raised.value.issues
    return issue


def test_the_shipped_existing_cluster_stack_is_valid():
    config = validate(StackConfig, BYO, prefix="trainstack")
    assert config.existing_cluster is not None and config.eks is None
    assert config.job_namespaces == ["default", "research"]


@pytest.mark.parametrize(("changes", "key", "instead"), [
    ({"fsx": {"zone": "us-east-1a"}}, "fsx", "existingCluster.fileSystem"),
    ({"hyperpod": {"orchestrator": "slurm", "clusterName": "ml-cluster", "controller": {
        "name": "controller", "instanceType": "ml.c5.xlarge", "count": 1}, "workers": [{
            "name": "workers", "instanceType": "ml.g5.8xlarge", "count": 2, "partition": "dev"}]}},
     "hyperpod", "a stack of its own"),
    ({"datasets": [{"name": "corpus", "bucket": "ml-datasets", "mountPath": "/data"}]}, "datasets", "eks block"),
    ({"checkpointBucket": {"enabled": True}}, "checkpointBucket.enabled", "checkpointBucket.enabled: false"),
    ({"observability": {"containerInsights": True}}, "observability.containerInsights",
     "observability.containerInsights: false"),
])
def test_a_block_that_makes_something_in_aws_is_refused_with_the_route_instead(changes, key, instead):
    issue = refusal(**changes)
    assert issue.path.endswith(key), issue.path
    assert "makes no AWS resource" in issue.message and instead in issue.fix


def test_eks_beside_an_existing_cluster_is_refused():
    issue = refusal(eks={})
    assert issue.path.endswith("existingCluster") and "remove eks, or existingCluster" in issue.fix


def test_an_existing_cluster_needs_the_vpc_it_runs_in_described():
    issue = refusal(network={"zones": ["us-east-1a", "us-east-1b"]})
    assert issue.path.endswith("network.existingVpc") and "privateSubnets" in issue.fix


def test_a_karpenter_pool_is_not_a_group_an_existing_cluster_can_describe():
    groups = [{**BYO["nodeGroups"][0], "name": "dev", "instanceType": "g6.xlarge", "efa": False,
               "autoscaler": "karpenter", "minSize": 0, "desiredSize": 0}]
    issue = refusal(nodeGroups=[*BYO["nodeGroups"], *groups], scheduling=None)
    assert issue.path.endswith("nodeGroups[1].autoscaler") and issue.value == "karpenter"


@pytest.mark.parametrize(("reach", "key"), [
    ({"kubeconfig": "~/.kube/config"}, "kubeconfig"),
    ({"endpoint": None, "certificateAuthority": None}, "kubeconfig"),
    ({"endpoint": None}, "endpoint"),
    ({"certificateAuthority": None, "context": "prod"}, "certificateAuthority"),
])
def test_the_cluster_is_reached_one_way_and_whole(reach, key):
    existing = {k: v for k, v in {**BYO["existingCluster"], **reach}.items() if v is not None}
    issue = refusal(existingCluster=existing)
    assert issue.path.endswith(f"existingCluster.{key}"), issue.path
