"""The stack's nodes as they register: one Node object per instance of each node group, shaped
by the library's own node model (``controllers.cluster_autoscaler.running_node``: allocatable
after nodeadm's reservations, the device plugins' resources where the stack's plugins reach
the node, EFA huge pages) with the catalog's capacity and the labels EKS and the kubelet add.

Groups run at their desired size. A group at zero that the Cluster Autoscaler manages grows
when pods wait for it, as the autoscaler model says it would: only for pods that fit the
template node it imagines (``template_node``), up to the group's maximum (``Nodes`` in
``rehearsal.cluster``). A Karpenter pool's nodes are launched by Karpenter itself, its kwok
provider offering the pool's instance type shaped as here (``rehearsal.karpenter``); the
model's answer for the same pods is kept beside it, and a pool Karpenter cannot run here (one
of reserved capacity) grows as that model says.

EC2 places instances in its network when they launch (DescribeInstanceTopology); the offline
plan cannot know where. A group's nodes are put under one network node per layer, as a
cluster placement group and a capacity reservation in one zone aim for, and the rehearsal
says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .. import catalog
from ..catalog.network_topology import network_node_labels
from ..controllers.cluster_autoscaler import (
    installed_charts,
    managed_groups,
    published_devices,
    running_node,
    template_node,
)
from ..controllers.groups import ManagedGroup
from ..controllers.karpenter import pool_groups
from ..controllers.scheduling import Node, Taint
from ..names import (
    DEVICE_ALLOCATION_LABEL,
    HOSTNAME_LABEL,
    HYPERPOD_CLUSTER,
    INSTANCE_TYPE_LABEL,
    REGION_LABEL,
    ZONE_LABEL,
)
from ..policy.model import Stack

MANAGED_GROUP, HYPERPOD_GROUP, KARPENTER_POOL = "managed node group", "HyperPod instance group", "Karpenter NodePool"
# SageMaker developer guide, HyperPod EKS node health labels: a node that passed its health
# checks carries this label, which trainstack's HyperPod launcher requires.
HYPERPOD_HEALTHY = {"sagemaker.amazonaws.com/node-health-status": "Schedulable"}
NETWORK_BLOCK = "placed in one network block per group (EC2 assigns network nodes at launch; the plan cannot know)"


@dataclass(frozen=True)
class GroupShape:
    """A node group's nodes as they register, and how many of them there are."""

    name: str
    instance_type: str
    desired: int
    maximum: int
    node: Node
    """The running node of the library's model: labels, taints, allocatable."""
    template: Node | None
    """The Cluster Autoscaler's template node for a group it may grow from zero; None where nothing grows it."""
    zone: str | None
    kind: str
    """``managed node group``, ``HyperPod instance group`` or ``Karpenter NodePool`` (whose nodes Karpenter launches:
    ``rehearsal.karpenter``)."""
    devices: dict[str, int] = field(default_factory=dict)
    """On a DRA group, the devices each node's drivers publish (DeviceClass -> count; ``rehearsal.dra``)."""
    part: str = ""
    """Which managed node group of a pool this is (config/node_pool.py): the second and later parts of a group
    are ``<group>-part<k>``; empty for a group's first (or only) one."""

    @property
    def key(self) -> str:
        """Names this managed node group among the stack's: its nodes' names begin with it."""
        return self.part or self.name


PART_ANNOTATION = "rehearsal.trainstack.io/managed-node-group"


def group_shapes(stack: Stack) -> list[GroupShape]:
    """Every EKS managed node group and HyperPod-on-EKS instance group of the stack."""
    plugins = installed_charts(stack)
    autoscaled = "cluster-autoscaler" in plugins
    shapes: list[GroupShape] = []
    for group in managed_groups(stack, accelerated_only=False):
        scaling = group.resource.props.get("scalingConfig") or {}
        desired, maximum = int(scaling.get("desiredSize", 0)), int(scaling.get("maxSize", 0))
        template = template_node(group) if autoscaled and group.instance.accelerator and maximum > desired else None
        node = running_node(group, plugins)
        # A pool's parts share the group's name (its node label); each still has nodes of its own.
        earlier = sum(1 for shape in shapes if shape.name == group.name)
        shapes.append(GroupShape(group.name, group.instance.name, desired, maximum, node, template, group.zone,
                                 MANAGED_GROUP, _published(group, node, plugins),
                                 part=f"{group.name}-part{earlier}" if earlier else ""))
    for group in _hyperpod_groups(stack):
        shapes.append(GroupShape(group.name, group.instance.name, group.min_size, group.min_size,
                                 running_node(group, plugins), None, None, HYPERPOD_GROUP))
    for group, limit in _karpenter_pools(stack):
        # Karpenter launches a node for pods that fit the pool's instance type once it runs (its model,
        # controllers/karpenter.py), so that node is also the one it scales on (and Karpenter's instance type).
        node = running_node(group, plugins)
        shapes.append(GroupShape(group.name, group.instance.name, 0, limit, node, node, group.zone, KARPENTER_POOL))
    return shapes


def _published(group: ManagedGroup, node: Node, plugins: dict[str, dict[str, Any]]) -> dict[str, int]:
    """The devices a DRA group's node publishes, as the DRA model says (none on a device-plugin group)."""
    if group.labels.get(DEVICE_ALLOCATION_LABEL) != "dra":
        return {}
    devices, _ = published_devices(group, node, plugins)
    return {device_class: count for device_class, count in devices.items() if count}


def _karpenter_pools(stack: Stack) -> list[tuple[ManagedGroup, int]]:
    """Karpenter NodePools as the model reads them (controllers/karpenter.py: the one instance type and zone their
    requirements allow, the template's labels and taints, the node class's maxPods and EFA interfaces, which
    Karpenter's instance types in the rehearsal carry too); at most as many nodes as their ``limits`` allow."""
    pools = []
    for group in pool_groups(stack):
        accelerator = group.instance.require("the accelerator", group.instance.accelerator, "shape a Karpenter node")
        limit = int(group.resource.props["spec"]["limits"][accelerator.resource_names[0]]) // accelerator.count
        pools.append((group, limit))
    return pools


def _hyperpod_groups(stack: Stack) -> list[ManagedGroup]:
    """HyperPod instance groups of an EKS-orchestrated cluster, as nodes that joined with their
    ``KubernetesConfig`` labels and taints and every EFA interface of the type (HyperPod attaches them)."""
    groups = []
    for cluster in stack.of_type(HYPERPOD_CLUSTER):
        if "eks" not in (cluster.props.get("orchestrator") or {}):
            continue
        for group in cluster.props.get("instanceGroups") or []:
            instance = catalog.get(str(group["instanceType"]).removeprefix("ml."))
            kubernetes = group.get("kubernetesConfig") or {}
            groups.append(ManagedGroup(
                resource=cluster, name=group["instanceGroupName"], instance=instance,
                min_size=int(group["instanceCount"]), labels={**kubernetes.get("labels", {}), **HYPERPOD_HEALTHY},
                taints=[Taint(t["key"], t.get("value") or "", t["effect"]) for t in kubernetes.get("taints") or []],
                asg_tags={}, zone=None, max_pods=None,
                efa_interfaces=(instance.efa.max_interfaces or 0) if instance.efa else 0))
    return groups


def node_object(shape: GroupShape, index: int) -> dict[str, Any]:
    """The Node the kubelet of the group's ``index``-th instance registers (with its status)."""
    name = f"{shape.key}-{index}"
    instance = catalog.get(shape.instance_type)
    labels = {**shape.node.labels, HOSTNAME_LABEL: name, INSTANCE_TYPE_LABEL: shape.instance_type,
              "kubernetes.io/os": "linux", "kubernetes.io/arch": "arm64" if instance.arch == "arm64" else "amd64"}
    if shape.zone:
        labels |= {ZONE_LABEL: shape.zone, REGION_LABEL: shape.zone[:-1]}
    layers = network_node_labels(shape.instance_type)
    # A pool's parts share the top layer and each has its own blocks below it, as separate reservations would.
    labels |= {label: f"nn-{shape.name if depth == 1 else shape.key}-{depth}" for depth, label in enumerate(layers, 1)}
    allocatable = {resource: _quantity(resource, amount) for resource, amount in shape.node.allocatable.items()}
    capacity = dict(allocatable)
    capacity["cpu"] = str(instance.vcpus)
    capacity["memory"] = f"{instance.memory_gib}Gi"
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": labels,
                     # kwok's own marker for the nodes it plays (kwok's README, "manage nodes"), and the managed
                     # node group the node is of (a pool's parts share its node label).
                     "annotations": {"kwok.x-k8s.io/node": "fake", PART_ANNOTATION: shape.key}},
        "spec": {"taints": [_taint(t) for t in shape.node.taints]} if shape.node.taints else {},
        "status": {"capacity": capacity, "allocatable": allocatable},
    }


def _taint(taint: Taint) -> dict[str, str]:
    return {"key": taint.key, "value": taint.value, "effect": taint.effect} if taint.value else {
        "key": taint.key, "effect": taint.effect}


def _quantity(resource: str, amount: Fraction) -> str:
    if resource == "cpu":
        return f"{int(amount * 1000)}m"
    return str(int(amount))
