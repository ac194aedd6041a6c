"""Add-ons that grow with the stack (issue 55): CoreDNS, the VPC CNI's warm-IP targets and Kueue's manager memory
are set from the nodes and pods the groups hold at maxSize; a small stack renders what it did before."""

import json

import pytest
from support.plan_records import record, stack_config
from trainstack.config import validate_stack_config
from trainstack.config.cluster_size import ClusterSize, coredns_configuration, vpc_cni_for
from trainstack.config.controller_resources import kueue_manager_resources
from trainstack.config.system_load import cluster_size_of

ADDON = "aws:eks/addon:Addon"


def frontier(config):
    """fsdp-p5 grown to 2,050 p5.48xlarge: five groups of 410, with Kueue, in an existing VPC whose /16 subnet
    holds them (a new VPC is at most a /16 over every zone)."""
    group = config["trainstack:nodeGroups"][0]
    config["trainstack:nodeGroups"] = [dict(group, name=f"p5-{i}", maxSize=410, desiredSize=0) for i in range(5)]
    config["trainstack:operators"]["kueue"] = True
    config["trainstack:network"] = {"existingVpc": {"vpcId": "vpc-0123456789abcdef0", "privateSubnets": [
        {"id": "subnet-0123456789abcdef0", "zone": "us-east-1a", "cidr": "10.0.0.0/16"},
        {"id": "subnet-0123456789abcdef1", "zone": "us-east-1b", "cidr": "10.1.0.0/20"}]}}


def size_of(config):
    stack = validate_stack_config({key.split(":", 1)[1]: value for key, value in config.items()})
    return cluster_size_of(stack.eks.system_nodes, stack.node_groups)


def addon_configuration(document, addon):
    [found] = [r for r in document["resources"] if r["type"] == ADDON and r["inputs"]["addonName"] == addon]
    value = found["inputs"].get("configurationValues")
    return json.loads(value) if value is not None else None


def kueue_manager(document):
    [release] = [r for r in document["resources"] if "Release" in r["type"] and r["name"].endswith("-kueue")]
    return release["inputs"]["values"]["controllerManager"]


@pytest.fixture(scope="module")
def frontier_record(tmp_path_factory):
    return record(tmp_path_factory.mktemp("frontier"), "fsdp-p5", frontier)


@pytest.fixture(scope="module")
def dev_record(tmp_path_factory):
    return record(tmp_path_factory.mktemp("dev"), "dev")


def test_the_size_is_every_node_at_max_size_and_the_pods_their_kubelets_admit():
    config = stack_config("fsdp-p5")
    frontier(config)
    # 4 system nodes (c5.2xlarge, maxPods 58) and 2,050 p5.48xlarge, each running 6 DaemonSet pods and 8 workers.
    assert size_of(config) == ClusterSize(nodes=2054, pods=4 * 58 + 2050 * (6 + 8))
    assert size_of(config).large
    assert size_of(stack_config("dev")) == ClusterSize(nodes=6, pods=4 * 58 + 2 * (6 + 1))
    assert not size_of(stack_config("dev")).large


def test_a_small_stack_keeps_coredns_the_cni_and_kueue_as_they_were(dev_record):
    assert addon_configuration(dev_record, "coredns") is None
    assert addon_configuration(dev_record, "vpc-cni")["env"] == {"MINIMUM_IP_TARGET": "16", "WARM_IP_TARGET": "8"}
    small = ClusterSize(nodes=300, pods=5000)
    assert coredns_configuration(ClusterSize(nodes=32, pods=100)) is None
    assert kueue_manager_resources(small) is None


def test_coredns_autoscales_up_to_a_replica_per_16_nodes_at_2048_nodes(frontier_record):
    # EKS's managed CoreDNS autoscaling, bounded by the node term of its formula: ceil(2,054 / 16) = 129.
    assert addon_configuration(frontier_record, "coredns") == {
        "autoScaling": {"enabled": True, "minReplicas": 2, "maxReplicas": 129}}


def test_the_cni_floor_holds_what_16_and_8_were_sized_for_so_ipamd_stops_calling_ec2(frontier_record):
    assert addon_configuration(frontier_record, "vpc-cni")["env"] == {
        "MINIMUM_IP_TARGET": "24", "WARM_IP_TARGET": "2"}
    # The IP budget counts what ipamd will hold: 24 pod IPs on every p5.
    budget = frontier_record["ipBudget"]
    assert budget["vpcCni"] == {"MINIMUM_IP_TARGET": "24", "WARM_IP_TARGET": "2"}
    p5 = [g for zone in budget["zones"] for g in zone["groups"] if g["group"].startswith("p5-")]
    assert len(p5) == 5 and all(g["steadyPerNode"]["podIps"] == 24 for g in p5)


def test_a_groups_own_cni_targets_win_on_a_large_stack():
    config = stack_config("fsdp-p5")
    frontier(config)
    stack = validate_stack_config({key.split(":", 1)[1]: value for key, value in config.items()})
    own = stack.eks.vpc_cni.model_copy(update={"minimum_ip_target": 40})
    assert vpc_cni_for(own, size_of(config)).env() == {"MINIMUM_IP_TARGET": "40", "WARM_IP_TARGET": "2"}
    eni = stack.eks.vpc_cni.model_copy(update={"warm_eni_target": 1})
    assert vpc_cni_for(eni, size_of(config)).env() == {"WARM_ENI_TARGET": "1"}


def test_kueue_memory_grows_with_the_nodes_and_pods_its_topology_cache_holds(frontier_record):
    # 512Mi (the chart's) + 28,932 pods x 8 KiB + 2,054 nodes x 64 KiB = 867 MiB, in 256 MiB steps.
    assert kueue_manager(frontier_record)["manager"]["resources"] == {
        "requests": {"cpu": "500m", "memory": "1024Mi"}, "limits": {"cpu": "2", "memory": "1024Mi"}}


def test_kueue_on_a_small_stack_keeps_the_charts_resources(tmp_path):
    def with_kueue(config):
        config["trainstack:operators"]["kueue"] = True

    manager = kueue_manager(record(tmp_path, "fsdp-p5", with_kueue))
    assert "manager" not in manager
