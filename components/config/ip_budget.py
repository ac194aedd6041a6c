"""Do the nodes fit their subnets' addresses at max size?

A node takes subnet addresses for its IP-carrying interfaces (the primary ENI;
``efa-only`` interfaces take none), for every further ENI ipamd attaches (each has
a primary IP), and for the secondary IPs ipamd holds for pods: the pods running
plus the warm pool its settings ask for (``config/vpc_cni.py``). That follows the
VPC CNI's documented behaviour (amazon-vpc-cni-k8s ``docs/eni-and-ip-target.md``):

* IP targets: ``max(pods + WARM_IP_TARGET, MINIMUM_IP_TARGET)`` secondary IPs;
* ``WARM_ENI_TARGET``: whole ENIs, enough for the pods plus that many free ENIs;

never more than the ENIs left on network card 0 can hold.

Budgeted per private subnet, counting exactly the subnets each group is given (config/subnet_placement.py, the
rule the rendering reads too): a zone with several subnets spreads a pool's parts over them, and a node's pods
take addresses from its own subnet. Two cases per subnet, both at every group's maxSize:

* steady state: accelerated nodes run their expected pods (an estimate: the
  DaemonSet pods that take a pod IP, plus one worker per accelerator). It must fit,
  or the config is refused with the numbers.
* worst case: every node filled to maxPods. Beyond the subnet it is a warning with
  the numbers and the settings that change it: pods past the subnet's end would
  stay ContainerCreating for want of an address, but no training layout runs there.

System nodes are given each zone's first subnet and may all land in any one zone, so each zone's first subnet
counts them at max size, and at maxPods in both cases (they run the cluster's services, whose count grows
with the add-ons).

HyperPod's instance groups on an EKS-orchestrated cluster count too: their instances join the
cluster as nodes in the HyperPod cluster's subnet (``hyperpod_zone``, the same private subnets
as the EKS groups, its first one there), and the VPC CNI gives their pods addresses there as on any EKS node (SageMaker
HyperPod EKS prerequisites, "each instance ... IP addresses ... from the subnet":
https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-prerequisites.html). They
are counted at their instance count, with every EFA interface the type has (as HyperPod sets up,
stack_contract's assumption) and the type's default maxPods.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Optional

from .. import catalog
from ..catalog.efa_layout import PRIMARY, InterfaceSlot, layout_for
from .base import ConfigValueError
from .cluster_size import DAEMONSET_PODS_WITH_IP, vpc_cni_for
from .node_pool import parts
from .pods import PodsPerNode, pods_per_node
from .subnet_placement import FIRST, PrivateSubnet, part_subnet_index, private_subnets
from .system_load import cluster_size_of, system_node_sizes
from .vpc_cni import VpcCniConfig

if TYPE_CHECKING:
    from .nodegroups import NodeGroupConfig
    from .stack_view import StackView


@dataclass(frozen=True)
class NodeAddresses:
    """Subnet addresses one node holds."""

    interfaces: int
    """IP-carrying interfaces of the launch template's layout."""
    extra_enis: int
    """ENIs ipamd attaches beyond the primary one, one primary IP each."""
    pod_ips: int
    """Secondary IPs ipamd holds: pods running plus the warm pool."""

    @property
    def total(self) -> int:
        return self.interfaces + self.extra_enis + self.pod_ips

    def describe(self) -> str:
        return f"{self.interfaces} interface + {self.extra_enis} ENI + {self.pod_ips} pod IPs"

    def as_dict(self) -> dict[str, int]:
        return {"interfaces": self.interfaces, "extraEnis": self.extra_enis, "podIps": self.pod_ips,
                "total": self.total}


def addresses_held(instance: catalog.InstanceType, layout: tuple[InterfaceSlot, ...], pods: int,
                   cni: VpcCniConfig) -> NodeAddresses:
    """What a node of ``instance`` with ``layout`` holds while it runs ``pods`` pods."""
    enis = instance.require("ENIs on network card 0", instance.network.enis_on_card0, "size subnet addresses")
    per_eni = instance.require("IPv4 addresses per ENI", instance.network.ipv4_per_eni,
                               "size subnet addresses") - 1
    # The VPC CNI attaches pod ENIs on card 0 only; the layout's other slots there are taken.
    pod_enis = enis - sum(1 for slot in layout if slot.network_card_index == 0 and slot != PRIMARY)
    if cni.warm_eni_target is not None:
        attached = min(pod_enis, max(1, math.ceil((pods + cni.warm_eni_target * per_eni) / per_eni)))
        pod_ips = attached * per_eni
    else:
        pod_ips = min(pod_enis * per_eni, max(pods + cni.warm_ips, cni.minimum_ips))
        attached = max(1, math.ceil(pod_ips / per_eni))
    return NodeAddresses(sum(1 for slot in layout if slot.takes_ip), attached - 1, pod_ips)


@dataclass(frozen=True)
class GroupAddresses:
    group: str
    instance_type: str
    zone: Optional[str]
    """None for the system nodes, which may run in any zone."""
    nodes: int
    """maxSize."""
    max_pods: PodsPerNode
    expected_pods: int
    steady: NodeAddresses
    worst: NodeAddresses
    index: Optional[int]
    """Position in nodeGroups (None for the system nodes and HyperPod's groups)."""
    size_key: tuple[str | int, ...] = ("eks", "systemNodes", "maxSize")
    """The key that sets ``nodes``: what to lower when the zone does not fit."""
    layout_interfaces: int = 1
    """Interfaces the launch template's layout attaches to a node, EFA-only ones included (they take no address,
    so ``steady.interfaces`` leaves them out; the region's quota of network interfaces counts them,
    ``config/quotas.py``)."""
    parts: tuple[int, ...] = ()
    """The parts of a pool (config/node_pool.py) given this subnet; empty for a group made whole."""


    @property
    def label(self) -> str:
        return f"{self.group} (parts {', '.join(map(str, self.parts))})" if self.parts else self.group


@dataclass(frozen=True)
class ZoneBudget:
    """One private subnet of a zone and the nodes given it (one per zone where the stack makes the VPC)."""

    zone: str
    usable: int
    """Addresses the subnet offers (5 are AWS's)."""
    groups: tuple[GroupAddresses, ...]
    subnet: Optional[PrivateSubnet] = None
    """The subnet; None only where a caller built a budget without one."""

    @property
    def label(self) -> str:
        return self.subnet.label if self.subnet is not None else self.zone

    @property
    def steady(self) -> int:
        return sum(g.nodes * g.steady.total for g in self.groups)

    @property
    def worst(self) -> int:
        return sum(g.nodes * g.worst.total for g in self.groups)

    def lines(self, case: str) -> list[str]:
        return [f"{g.label}: {g.nodes} x ({getattr(g, case).describe()}) = {g.nodes * getattr(g, case).total}"
                for g in self.groups]


@dataclass(frozen=True)
class IpBudget:
    key: ClassVar[str] = "ipBudget"
    """Its key in a plan record (a ``plan.Section``)."""

    cni: VpcCniConfig
    zones: tuple[ZoneBudget, ...]

    def warnings(self) -> list[str]:
        found = []
        for zone in self.zones:
            if zone.worst > zone.usable:
                found.append(
                    f"if every node ran maxPods pods, the nodes in {zone.label} would hold {zone.worst} addresses but "
                    f"its private subnet holds {zone.usable} ({'; '.join(zone.lines('worst'))}); pods past the "
                    "subnet's end would wait for an address. To change it: lower nodeGroups[].maxPods or "
                    "eks.systemNodes.maxPods, lower eks.vpcCni.warmIpTarget, give the zone a larger private "
                    "subnet (network.privateSubnetPrefixLength or a bigger existing subnet), list another private "
                    "subnet in the zone (a pool's parts spread over them), or lower maxSize.")
        return found

    def as_dict(self) -> dict[str, Any]:
        return {
            "vpcCni": self.cni.env(),
            "zones": [{
                "zone": zone.zone,
                **({"subnet": zone.subnet.subnet_id} if zone.subnet and zone.subnet.subnet_id else {}),
                "usable": zone.usable, "steady": zone.steady, "worst": zone.worst,
                "groups": [{
                    "group": g.group, **({"parts": list(g.parts)} if g.parts else {}),
                    "instanceType": g.instance_type, "nodes": g.nodes,
                    "maxPods": g.max_pods.value, "maxPodsSource": g.max_pods.source,
                    "layoutCeiling": g.max_pods.ceiling, "eksRecommendation": g.max_pods.recommended,
                    "expectedPods": g.expected_pods,
                    "steadyPerNode": g.steady.as_dict(),
                    "worstPerNode": g.worst.as_dict(),
                } for g in zone.groups],
            } for zone in self.zones],
            "warnings": self.warnings(),
        }

    def render(self) -> str:
        lines = [f"Pods per node and subnet addresses (VPC CNI: {self.cni.describe()})"]
        seen: set[str] = set()
        for zone in self.zones:
            for g in zone.groups:
                if g.group not in seen:
                    seen.add(g.group)
                    lines.append(f"  {g.group} ({g.instance_type}): maxPods {g.max_pods.describe()}")
        for zone in self.zones:
            flag = "  WARNING: worst case exceeds the subnet" if zone.worst > zone.usable else ""
            lines.append(f"  {zone.label}: {zone.usable} usable; steady state {zone.steady}, "
                         f"worst case (maxPods everywhere) {zone.worst}{flag}")
            lines += [f"    steady  {line}" for line in zone.lines("steady")]
            lines += [f"    worst   {line}" for line in zone.lines("worst")]
        return "\n".join(lines)


def group_subnets(group: NodeGroupConfig, subnets_in_zone: int) -> dict[int, tuple[int, ...]]:
    """The subnets (positions in the group's zone) a managed node group's parts are given, and the parts each
    holds; a Karpenter pool takes the zone's first (config/subnet_placement.py)."""
    if group.autoscaler != "cluster-autoscaler":
        return {FIRST: ()}
    pieces = parts(group)
    given: dict[int, tuple[int, ...]] = {}
    for part in pieces:
        index = part_subnet_index(part.index, subnets_in_zone)
        given[index] = (*given.get(index, ()), part.index)
    return {index: held if len(pieces) > 1 else () for index, held in given.items()}


def _group_addresses(name: str, instance_type: str, efa: bool, nodes: int, max_pods: PodsPerNode,
                     expected_pods: int, cni: VpcCniConfig, zone: Optional[str], index: Optional[int],
                     path: tuple[str | int, ...], size_key: tuple[str | int, ...]) -> GroupAddresses:
    instance = catalog.get(instance_type)
    layout = layout_for(instance, efa)
    try:
        steady = addresses_held(instance, layout, min(expected_pods, max_pods.value), cni)
        worst = addresses_held(instance, layout, max_pods.value, cni)
    except catalog.UnknownFactError as error:
        raise ConfigValueError(f"{error} Its subnet addresses cannot be sized.",
                               fix="use an instance type whose network facts are in the catalog.",
                               path=path, value=instance_type) from None
    return GroupAddresses(name, instance_type, zone, nodes, max_pods, min(expected_pods, max_pods.value),
                          steady, worst, index, size_key, len(layout))


def ip_budget(config: StackView) -> Optional[IpBudget]:
    """Per zone, the addresses the nodes hold at max size; None without an EKS cluster."""
    if config.eks is None:
        return None
    # What ipamd runs on a stack of this size (a large stack's targets: config/cluster_size.py).
    cni = vpc_cni_for(config.eks.vpc_cni, cluster_size_of(config.eks.system_nodes, config.node_groups))
    system = config.eks.system_nodes
    system_pods = system.pods_per_node
    system_max = system_node_sizes(system, config.node_groups).max_size
    system_row = _group_addresses("system nodes", system.instance_type, False, system_max, system_pods,
                                  system_pods.value, cni, None, None, ("eks", "systemNodes", "instanceType"),
                                  ("eks", "systemNodes", "maxSize"))
    subnets = private_subnets(config.network)
    rows: dict[tuple[str, int], list[GroupAddresses]] = {
        (zone, subnet.index): [system_row] if subnet.index == FIRST else [] for zone in config.network.private_zones
        for subnet in subnets[zone]}
    for index, group in enumerate(config.node_groups):
        accelerators = group.instance.accelerator.count if group.instance.accelerator else 0
        pieces = parts(group)
        for subnet_index, held in group_subnets(group, len(subnets[group.zone])).items():
            nodes = sum(pieces[i].max_size for i in held) if held else group.max_size
            row = _group_addresses(
                group.name, group.instance_type, group.efa_enabled, nodes, group.pods_per_node,
                DAEMONSET_PODS_WITH_IP + accelerators, cni, group.zone, index, ("nodeGroups", index, "instanceType"),
                ("nodeGroups", index, "maxSize"))
            rows[(group.zone, subnet_index)].append(dataclasses.replace(row, parts=held))
    if config.hyperpod_zone in config.network.private_zones:
        rows[(config.hyperpod_zone, FIRST)] += _hyperpod_rows(config, cni)
    zones = [ZoneBudget(zone, subnet.usable, tuple(rows[(zone, subnet.index)]), subnet)
             for zone in config.network.private_zones for subnet in subnets[zone]]
    return IpBudget(cni, tuple(zones))


def _hyperpod_rows(config: StackView, cni: VpcCniConfig) -> list[GroupAddresses]:
    """HyperPod's instance groups, when they join this EKS cluster as nodes (in the HyperPod zone)."""
    hyperpod = config.hyperpod
    if hyperpod is None or hyperpod.orchestrator != "eks":
        return []
    rows = []
    for index, group in enumerate(hyperpod.workers):
        instance = catalog.get_hyperpod(group.instance_type)
        efa = instance.efa.supported
        key: tuple[str | int, ...] = ("hyperpod", "workers", index)
        accelerators = instance.accelerator.count if instance.accelerator else 0
        rows.append(_group_addresses(
            f"hyperpod {group.name}", instance.name, efa, group.count, pods_per_node(instance.name, efa, None),
            DAEMONSET_PODS_WITH_IP + accelerators, cni, config.hyperpod_zone, None, (*key, "instanceType"),
            (*key, "count")))
    return rows
