"""The system group holds what runs on it at the stack's size (issue 64): CoreDNS's replicas, the Cluster Autoscaler
and the job controllers, beside each node's DaemonSets. Unset sizes follow from that load; a given maxSize too small
for it is refused with the figures; a stack below 300 nodes keeps 2, 2 and 4."""

import json
from fractions import Fraction

import pytest
from support.frontier_p5 import fsdp_p5_grown, validated
from support.plan_records import stack_config
from support.policy_stacks import from_record
from support.rendered_jobs import SHIPPED_STACKS, planned_record
from trainstack.config import ConfigError, SystemNodesConfig
from trainstack.config.system_load import DAEMONSETS, system_node_sizes
from trainstack.controllers.cluster_autoscaler import managed_groups, running_node
from trainstack.kube.quantity import quantity

NODE_GROUP, ADDON, RELEASE = "aws:eks/nodeGroup:NodeGroup", "aws:eks/addon:Addon", "kubernetes:helm.sh/v3:Release"
# The CoreDNS Deployment's requests (kubernetes/kubernetes v1.36.3 cluster/addons/dns/coredns/coredns.yaml.base).
COREDNS_REQUESTS = {"cpu": Fraction(1, 10), "memory": 70 * 2**20}


def one(record, type_token, suffix):
    [found] = [r for r in record["resources"] if r["type"] == type_token and r["name"].endswith(suffix)]
    return found["inputs"]


def requests_of(resources):
    requests = resources["requests"]
    return {"pods": 1, "cpu": quantity(requests["cpu"]), "memory": quantity(requests["memory"])}


def rendered_system_load(record):
    """What the plan record puts on the system nodes, read from it: CoreDNS's most replicas (its add-on's
    autoscaling), the autoscaler's, Kueue's, Trainer's and JobSet's requests as their releases render them."""
    replicas = json.loads(one(record, ADDON, "-coredns")["configurationValues"])["autoScaling"]["maxReplicas"]
    trainer = one(record, RELEASE, "-trainer")["values"]
    pods = [{"pods": replicas, **{k: replicas * v for k, v in COREDNS_REQUESTS.items()}},
            requests_of(one(record, RELEASE, "-autoscaler")["values"]["resources"]),
            requests_of(one(record, RELEASE, "-kueue")["values"]["controllerManager"]["manager"]["resources"]),
            requests_of(trainer["manager"]["resources"]), requests_of(trainer["jobset"]["controller"]["resources"])]
    return replicas, {key: sum(p[key] for p in pods) for key in ("pods", "cpu", "memory")}


def test_frontier_p5s_system_nodes_hold_corednss_129_replicas_the_autoscaler_and_the_controllers():
    """At its minSize, with every node of its DaemonSets' share taken out, each node as the kubelet model admits it
    (controllers/cluster_autoscaler.py: a c5.2xlarge's 58 pods, 7,910m and 15,391Mi): 129 CoreDNS replicas at 100m
    and 70Mi, the autoscaler's core and 768Mi, Kueue's, Trainer's and JobSet's requests, 135 pods in all. The two
    nodes frontier-p5 had (96 pods' room) could not place them; the autoscaler had 100m and 300Mi."""
    record = planned_record("frontier-p5")
    replicas, load = rendered_system_load(record)
    [system] = [g for g in managed_groups(from_record(record), accelerated_only=False) if g.name == "system"]
    node = running_node(system, {}).allocatable
    per_node = {"pods": node["pods"] - DAEMONSETS.pods, "cpu": node["cpu"] - Fraction(DAEMONSETS.cpu_m, 1000),
                "memory": node["memory"] - DAEMONSETS.memory_mi * 2**20}
    scaling = one(record, NODE_GROUP, "-system")["scalingConfig"]
    assert replicas == 129 and load["pods"] == 129 + 4
    assert all(load[key] <= scaling["minSize"] * per_node[key] for key in load), (scaling, load, per_node)
    assert scaling["maxSize"] >= scaling["minSize"] + 1  # room for the autoscaler to replace a lost node
    assert one(record, RELEASE, "-autoscaler")["values"]["resources"] == {
        "requests": {"cpu": "1", "memory": "768Mi"}}


@pytest.mark.parametrize("stack", SHIPPED_STACKS)
def test_every_shipped_stack_but_frontier_p5_keeps_the_system_group_it_had(stack):
    config = validated(stack_config(stack))
    sizes = config.system_node_sizes
    if sizes is None:  # an existing cluster's, or HyperPod's alone
        assert config.eks is None
        return
    expected = (3, 3, 4) if stack == "frontier-p5" else (2, 2, 4)
    assert (sizes.min_size, sizes.desired_size, sizes.max_size) == expected


def test_the_default_grows_with_the_load_one_node_spare_at_max_size_and_min_size_follows_the_groups_minimum():
    """frontier-p5's groups on c5.xlarge system nodes (3,420m CPU each once the DaemonSets' share is out): its
    15,200m of requests take 5, so 6 at most; fsdp-p5 grown to 2,048 p5 that idle at zero runs CoreDNS's two
    replicas then, so its minSize stays 2 while its maxSize holds all 129."""
    frontier = validated(stack_config("frontier-p5"))
    sizes = system_node_sizes(SystemNodesConfig(instanceType="c5.xlarge"), frontier.node_groups)
    assert (sizes.min_size, sizes.desired_size, sizes.max_size, sizes.holding) == (5, 5, 6, 5)
    idle = validated(fsdp_p5_grown())
    assert {g.min_size for g in idle.node_groups} == {0}
    sizes = idle.system_node_sizes
    assert (sizes.min_size, sizes.desired_size, sizes.max_size, sizes.holding) == (2, 2, 4, 3)


def refusal(config):
    with pytest.raises(ConfigError) as refused:
        validated(config)
    [issue] = refused.value.issues
    return issue


def test_a_given_max_size_too_small_for_what_runs_there_is_refused_with_the_figures_and_the_fix():
    config = stack_config("frontier-p5")
    config["trainstack:eks"]["systemNodes"] = {"maxSize": 2}
    issue = refusal(config)
    assert (issue.path, issue.value) == ("trainstack:eks.systemNodes.maxSize", 2)
    assert issue.message.startswith("2 system nodes cannot hold what runs on them at the stack's size (2,050 nodes")
    assert "CoreDNS (129 replicas) 12,900m CPU and 9,030Mi" in issue.message
    assert "the Cluster Autoscaler 1,000m CPU and 768Mi" in issue.message
    assert "which 3 c5.2xlarge (7,410m CPU, 14,879Mi and 48 pods each" in issue.message
    assert issue.fix.startswith("set maxSize to at least 3 (4 keeps a node spare")


def test_given_sizes_are_kept_and_a_larger_type_needs_fewer_nodes():
    config = stack_config("frontier-p5")
    config["trainstack:eks"]["systemNodes"] = {"minSize": 2, "maxSize": 3}
    sizes = validated(config).system_node_sizes
    assert (sizes.min_size, sizes.desired_size, sizes.max_size) == (2, 2, 3)
    config["trainstack:eks"]["systemNodes"] = {"instanceType": "c5.9xlarge"}
    sizes = validated(config).system_node_sizes
    assert (sizes.min_size, sizes.desired_size, sizes.max_size, sizes.holding) == (2, 2, 4, 1)


def test_a_system_node_with_no_room_beside_its_daemonsets_is_refused():
    config = stack_config("dev")
    config["trainstack:eks"] = {**config.get("trainstack:eks", {}), "systemNodes": {"maxPods": 10}}
    issue = refusal(config)
    assert (issue.path, issue.value) == ("trainstack:eks.systemNodes.instanceType", "c5.2xlarge")
    assert "which no number up to EKS's 450 nodes per managed node group of c5.2xlarge" in issue.message
    assert "0 pods each" in issue.message


def test_sizes_out_of_order_are_refused_naming_the_one_given():
    config = stack_config("dev")
    config["trainstack:eks"] = {**config.get("trainstack:eks", {}), "systemNodes": {"minSize": 5, "maxSize": 4}}
    issue = refusal(config)
    assert (issue.path, issue.value) == ("trainstack:eks.systemNodes.minSize", 5)
    assert "5 / 5 / 4" in issue.message and "min <= desired <= max" in issue.message


def test_a_cluster_used_on_its_own_refuses_a_max_size_too_small_the_same_way():
    from trainstack import GpuEksCluster

    config = validated(fsdp_p5_grown())
    groups = [g.model_dump(by_alias=True, exclude_none=True) for g in config.node_groups]
    with pytest.raises(ConfigError) as refused:
        GpuEksCluster("eks", {"settings": {"systemNodes": {"maxSize": 2}}, "region": "us-east-1", "cluster_name": "c",
                              "vpc_id": "vpc-1", "private_subnet_ids": {"us-east-1a": "subnet-1",
                                                                        "us-east-1b": "subnet-2"},
                              "node_groups": groups})
    [issue] = refused.value.issues
    assert issue.path == "GpuEksCluster(eks):settings.systemNodes.maxSize"
    assert "CoreDNS (129 replicas)" in issue.message
