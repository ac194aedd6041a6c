"""What the plan record says each node group's nodes are: how many (minSize, desiredSize, maxSize), the labels and
taints they carry as rendered, the network-topology labels EKS gives their instance type, the devices the catalog
says each node advertises, the huge pages the group's pods request, and whether node auto repair watches them.

Read from the plan alone, through what the rehearsal registers its nodes from (``rehearsal.nodes.group_shapes``: the
library's own model of a running node of each group), the device check of ``trainstack up`` and ``preflight nodes``
(``preflight.node_devices.needs_from_outputs``: the catalog's counts per instance type) and the launchers' requests
(``launch.node_needs.hugepages_needs``), so doctor judges nodes by the same facts as they do."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from .. import catalog
from ..catalog.network_topology import network_node_labels
from ..config.device_wait import DeviceNeed, group_devices
from ..controllers.cluster_autoscaler import managed_groups
from ..controllers.groups import ManagedGroup
from ..controllers.scheduling import Taint
from ..launch.node_needs import hugepages_needs
from ..names import NODE_GROUP_LABEL
from ..outputs import StackOutputs, parse_outputs
from ..plan import Plan
from ..policy import stack_from_plan
from ..preflight.node_devices import needs_from_outputs
from ..rehearsal.nodes import HYPERPOD_GROUP, KARPENTER_POOL, MANAGED_GROUP, GroupShape, group_shapes

__all__ = ["HYPERPOD_GROUP", "KARPENTER_POOL", "MANAGED_GROUP", "PlannedGroup", "Where", "planned_groups", "where"]


@dataclass(frozen=True)
class PlannedGroup:
    """One node group of the plan (a pool's managed node groups taken together, as its label does)."""

    name: str
    kind: str
    """``managed node group``, ``HyperPod instance group`` or ``Karpenter NodePool``."""
    instance_type: str
    minimum: int
    desired: int
    maximum: int
    labels: Mapping[str, str]
    """The labels every node of the group carries as rendered (the group's own, the device and accelerator ones)."""
    taints: tuple[Taint, ...]
    topology_labels: tuple[str, ...]
    """The network-topology label keys EKS puts on nodes of the instance type (their values are EC2's to give)."""
    devices: Optional[DeviceNeed]
    """What each node advertises (extended resources, or devices per DRA driver); None on a group without
    accelerators."""
    hugepages: Optional[str]
    """The 2 MiB huge pages each of the group's pods requests (EFA groups), as the pods request it."""
    auto_repair: bool
    """EKS node auto repair watches the group's nodes (the managed node group's ``nodeRepairConfig``)."""
    resource: str
    """The Pulumi name of the group's (first) managed node group, which EKS's own name begins with."""

    @property
    def selector(self) -> dict[str, str]:
        return {NODE_GROUP_LABEL: self.name}


@dataclass(frozen=True)
class Where:
    """What the fixes name: the EKS cluster, its region, the HyperPod cluster."""

    cluster: Optional[str]
    region: Optional[str]
    hyperpod: Optional[str]


def planned_groups(plan: Plan) -> list[PlannedGroup]:
    """Every node group of the plan, in the plan's order: managed node groups (a pool's parts as one), HyperPod
    instance groups that join the EKS cluster, and Karpenter NodePools."""
    stack = stack_from_plan(plan)
    outputs = parse_outputs(plan.outputs)
    shapes: dict[str, list[GroupShape]] = {}
    for shape in group_shapes(stack):
        shapes.setdefault(shape.name, []).append(shape)
    parts: dict[str, list[ManagedGroup]] = {}
    for group in managed_groups(stack, accelerated_only=False):
        parts.setdefault(group.name, []).append(group)
    devices = _devices(outputs)
    hugepages = {need.group: need.request for need in hugepages_needs(outputs)}
    planned = []
    for name, same in shapes.items():
        first = same[0]
        minimum = (sum(g.min_size for g in parts.get(name, [])) if first.kind == MANAGED_GROUP
                   else first.desired if first.kind == HYPERPOD_GROUP else 0)
        resource = parts[name][0].resource if name in parts else None
        planned.append(PlannedGroup(
            name=name, kind=first.kind, instance_type=first.instance_type, minimum=minimum,
            desired=sum(s.desired for s in same), maximum=sum(s.maximum for s in same),
            labels=dict(first.node.labels), taints=tuple(first.node.taints),
            topology_labels=network_node_labels(first.instance_type), devices=devices.get(name),
            hugepages=hugepages.get(name), auto_repair=_auto_repair(resource.props if resource else {}, first.kind),
            resource=resource.name if resource else name))
    return planned


def where(plan: Plan) -> Where:
    outputs = parse_outputs(plan.outputs)
    return Where(outputs.cluster.name if outputs.cluster is not None else None, outputs.region or plan.default_region,
                 outputs.hyperpod.cluster_name if outputs.hyperpod is not None else None)


def _devices(outputs: StackOutputs) -> dict[str, DeviceNeed]:
    """Each accelerated group's devices per node (the EKS groups as ``preflight nodes`` reads them, and the
    HyperPod instance groups, whose nodes the device plugins serve as EKS's)."""
    needs = {need.group: need for need in needs_from_outputs(outputs, {})}
    hyperpod = outputs.hyperpod
    for group in hyperpod.instance_groups if hyperpod is not None and hyperpod.orchestrator == "eks" else []:
        instance_type = group.instance_type.removeprefix("ml.")
        if group.accelerator_resource and catalog.find(instance_type) is not None:
            needs[group.name] = DeviceNeed(group.name, instance_type, "device-plugins",
                                           group_devices("device-plugins", instance_type,
                                                         group.efa_interfaces_per_node),
                                           group.count, {NODE_GROUP_LABEL: group.name})
    return needs


def _auto_repair(props: Mapping[str, Any], kind: str) -> bool:
    """A managed node group's ``nodeRepairConfig.enabled`` (EKS CreateNodegroup); a Karpenter pool or a HyperPod
    group repairs by its own rules (Karpenter's NodeRepair gate, HyperPod's node recovery), not EKS's."""
    return kind == MANAGED_GROUP and bool((props.get("nodeRepairConfig") or {}).get("enabled"))

