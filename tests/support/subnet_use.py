"""Which subnets a stack's nodes are placed in, and how many nodes each, read two ways: from what the plan record
renders (managed node groups, Karpenter's EC2NodeClasses, HyperPod's instance groups) and from what the IP budget
counts (config/ip_budget.py, from the config or as the record's ``ipBudget`` section holds it). The budget must
count exactly the subnets the nodes use (issue 64)."""

from collections import defaultdict
from typing import Any

from trainstack.config import validate_stack_config
from trainstack.config.ip_budget import ip_budget

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
SUBNET = "aws:ec2/subnet:Subnet"
NODE_GROUP_LABEL = "trainstack.io/node-group"


def budgeted(config: dict[str, Any]) -> dict[tuple[str, str], int]:
    """(group, subnet id) -> nodes the IP budget of a stack configuration (``trainstack:`` keys) counts there."""
    budget = ip_budget(validate_stack_config({key.split(":", 1)[1]: value for key, value in config.items()}))
    assert budget is not None
    nodes: dict[tuple[str, str], int] = defaultdict(int)
    for subnet in budget.zones:
        assert subnet.subnet is not None and subnet.subnet.subnet_id is not None
        for row in subnet.groups:
            nodes[(row.group, subnet.subnet.subnet_id)] += row.nodes
    return dict(nodes)


def rendered(document: dict[str, Any]) -> dict[tuple[str, str], int]:
    """(group, subnet id) -> maxSize of the managed node groups the plan record renders there; the system nodes'
    one group spans a subnet per zone and is counted in each at its maxSize, as the budget counts it."""
    nodes: dict[tuple[str, str], int] = defaultdict(int)
    for resource in document["resources"]:
        if resource["type"] != NODE_GROUP:
            continue
        inputs = resource["inputs"]
        group = inputs["labels"][NODE_GROUP_LABEL]
        group = "system nodes" if group == "system" else group
        for subnet in inputs["subnetIds"]:
            nodes[(group, subnet)] += inputs["scalingConfig"]["maxSize"]
    return dict(nodes)


def placed(document: dict[str, Any]) -> dict[tuple[str, str], int]:
    """(group, subnet id) -> nodes the record places there at their most: the managed node groups (``rendered``),
    each Karpenter pool in the subnets its EC2NodeClass selects by id (at the group's maxNodes in the outputs
    contract, over every subnet it selects), and each HyperPod instance group joining the cluster in its subnets
    (``hyperpod <group>``, at its count)."""
    nodes: dict[tuple[str, str], int] = defaultdict(int, rendered(document))
    contract = document["outputs"]["trainstack"]
    classes = {r["inputs"]["metadata"]["name"]: r["inputs"]["spec"] for r in document["resources"]
               if r["type"] == "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"}
    for pool in (r["inputs"] for r in document["resources"] if r["type"] == "kubernetes:karpenter.sh/v1:NodePool"):
        group = pool["spec"]["template"]["metadata"]["labels"][NODE_GROUP_LABEL]
        node_class = classes[pool["spec"]["template"]["spec"]["nodeClassRef"]["name"]]
        for term in node_class["subnetSelectorTerms"]:
            nodes[(group, term.get("id", f"selected by {term}"))] += contract["acceleratedGroups"][group]["maxNodes"]
    for cluster in (r["inputs"] for r in document["resources"] if r["type"] == "aws-native:sagemaker:Cluster"):
        if "eks" not in (cluster.get("orchestrator") or {}):
            continue
        for group in cluster["instanceGroups"]:
            for subnet in (group.get("overrideVpcConfig") or cluster["vpcConfig"])["subnets"]:
                nodes[(f"hyperpod {group['instanceGroupName']}", subnet)] += group["instanceCount"]
    return dict(nodes)


def budgeted_in_record(document: dict[str, Any]) -> dict[tuple[str, str], int]:
    """(group, subnet id) -> nodes the record's ``ipBudget`` section counts there; a subnet the stack makes (a new
    VPC's, one private subnet a zone) is the record's subnet of that zone that is not public."""
    made = {(r["outputs"]["availabilityZone"]): r["id"] for r in document["resources"]
            if r["type"] == SUBNET and "kubernetes.io/role/elb" not in (r["inputs"].get("tags") or {})}
    nodes: dict[tuple[str, str], int] = defaultdict(int)
    for zone in (document.get("ipBudget") or {}).get("zones", []):
        subnet = zone.get("subnet") or made[zone["zone"]]
        for group in zone["groups"]:
            nodes[(group["group"], subnet)] += group["nodes"]
    return dict(nodes)
