"""Correctness rules for training clusters: EFA layout and security group, one zone,
FSx next to its clients with Lustre ports open, capacity blocks launched as blocks."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Optional

from .. import catalog
from ..catalog.efa_layout import EFA_INTERFACE_TYPES, efa_layout
from ..estimate.checkpoint import checkpoint_timing
from ..names import (
    LAUNCH_TEMPLATE,
    LUSTRE_FILE_SYSTEM,
    LUSTRE_FILE_SYSTEM_COMPONENT,
    NODE_GROUP,
    SECURITY_GROUP,
    SECURITY_GROUP_EGRESS_RULE,
    SECURITY_GROUP_INGRESS_RULE,
    SUBNET,
)
from .model import Resource, Rule, Stack, Violation

LUSTRE_PORTS = ((988, 988), (1018, 1023))


def _efa_interfaces(template: Resource) -> list[dict]:
    return [i for i in template.props.get("networkInterfaces") or [] if i.get("interfaceType") in EFA_INTERFACE_TYPES]


def _accelerated(group: Resource) -> bool:
    ami = group.props.get("amiType") or ""
    return "NVIDIA" in ami or "NEURON" in ami


def _template_of(stack: Stack, group: Resource) -> Optional[Resource]:
    templates = stack.referenced(group, "launchTemplate", LAUNCH_TEMPLATE)
    return templates[0] if templates else None


def _zones(stack: Stack, resource: Resource) -> Optional[set[str]]:
    """Zones of the subnets a resource sits in; None when its subnets are not in this stack."""
    subnets = stack.referenced(resource, "subnetIds", SUBNET)
    if not subnets:
        return None
    return {str(s.props.get("availabilityZone")) for s in subnets}


def _rules_between(stack: Stack, token: str, group: Resource, peer: Resource) -> list[Resource]:
    return [r for r in stack.of_type(token)
            if group.urn in r.property_dependencies.get("securityGroupId", [])
            and peer.urn in r.property_dependencies.get("referencedSecurityGroupId", [])]


def efa_security_group_self_rules(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    for template in stack.of_type(LAUNCH_TEMPLATE):
        if not _efa_interfaces(template):
            continue
        groups = stack.referenced(template, "networkInterfaces", SECURITY_GROUP)
        self_referencing = [
            g for g in groups
            if any(r.props.get("ipProtocol") == "-1" for r in _rules_between(stack, SECURITY_GROUP_INGRESS_RULE, g, g))
            and any(r.props.get("ipProtocol") == "-1" for r in _rules_between(stack, SECURITY_GROUP_EGRESS_RULE, g, g))]
        if not self_referencing:
            yield Violation(template.urn, f"launch template {template.name} has EFA interfaces but none of their "
                                          "security groups allows all traffic from and to itself; EFA OS bypass "
                                          "needs such a group on every EFA interface.")


def efa_layout_matches_catalog(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    for group in stack.of_type(NODE_GROUP):
        template = _template_of(stack, group)
        types = group.props.get("instanceTypes") or []
        if template is None or not types or not _efa_interfaces(template):
            continue
        instance = catalog.find(types[0])
        if instance is None:
            continue  # nothing to judge by: missing catalog facts are not a fault of the template
        rendered = [(i.get("networkCardIndex"), i.get("deviceIndex"), i.get("interfaceType"))
                    for i in template.props.get("networkInterfaces") or []]
        try:
            expected = [(s.network_card_index, s.device_index, s.interface_type) for s in efa_layout(instance)]
        except catalog.UnknownFactError:
            continue
        except ValueError as error:  # EFA interfaces on a type without EFA: the launch fails
            yield Violation(template.urn, f"{instance.name}: {error}")
            continue
        if rendered != expected:
            efa = sum(1 for r in rendered if r[2] in EFA_INTERFACE_TYPES)
            yield Violation(template.urn, f"launch template {template.name} for {instance.name} lays out {efa} EFA "
                                          f"interfaces as {rendered}; the type takes {instance.efa.max_interfaces} "
                                          f"as {expected} (card 0 plain interface, then efa-only per EFA card).")


def _zonal(stack: Stack, group: Resource) -> Optional[str]:
    """Why a group must sit in one zone (EFA, a reservation or capacity block), or None."""
    template = _template_of(stack, group)
    if template is not None and _efa_interfaces(template):
        return "EFA traffic does not cross zones"
    if template is not None and (template.props.get("capacityReservationSpecification") or {}).get(
            "capacityReservationTarget"):
        return "its reservation holds capacity in one zone"
    if group.props.get("capacityType") == "CAPACITY_BLOCK":
        return "its capacity block is in one zone"
    return None


def accelerated_groups_single_zone(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    """A GPU group without EFA or reserved capacity may span zones (inference, single-node jobs)."""
    for group in stack.of_type(NODE_GROUP):
        zones = _zones(stack, group)
        reason = _zonal(stack, group)
        if reason and zones is not None and len(zones) > 1:
            yield Violation(group.urn, f"node group {group.name} spans zones {sorted(zones)}, but {reason}: give it "
                                       "the subnet of one zone.")


def _opens(stack: Stack, group: Resource, low: int, high: int) -> bool:
    for rule in stack.of_type(SECURITY_GROUP_INGRESS_RULE):
        if group.urn not in rule.property_dependencies.get("securityGroupId", []):
            continue
        protocol = str(rule.props.get("ipProtocol"))
        if protocol == "-1" or (protocol in ("tcp", "6") and (rule.props.get("fromPort") or 0) <= low
                                and high <= (rule.props.get("toPort") or 0)):
            return True
    return False


def fsx_zone_and_ports(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    accelerated = [g for g in stack.of_type(NODE_GROUP) if _accelerated(g)]
    for file_system in stack.of_type(LUSTRE_FILE_SYSTEM):
        zones = _zones(stack, file_system)
        for group in accelerated:
            group_zones = _zones(stack, group)
            if zones is not None and group_zones is not None and not group_zones <= zones:
                yield Violation(file_system.urn, f"FSx {file_system.name} is in {sorted(zones)} but node group "
                                                 f"{group.name} is in {sorted(group_zones)}.")
        groups = stack.referenced(file_system, "securityGroupIds", SECURITY_GROUP)
        for low, high in LUSTRE_PORTS:
            if groups and not any(_opens(stack, g, low, high) for g in groups):
                yield Violation(file_system.urn, f"FSx {file_system.name}'s security groups do not open TCP "
                                                 f"{low}-{high}, which Lustre clients need.")


def capacity_block_market_type(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    for group in stack.of_type(NODE_GROUP):
        template = _template_of(stack, group)
        if template is None:
            continue
        market = (template.props.get("instanceMarketOptions") or {}).get("marketType")
        block = group.props.get("capacityType") == "CAPACITY_BLOCK"
        if block and market != "capacity-block":
            yield Violation(template.urn, f"node group {group.name} is a capacity block but its launch template "
                                          f"has market type {market!r}; set instanceMarketOptions.marketType "
                                          "capacity-block.")
        if block and not (template.props.get("capacityReservationSpecification") or {}).get(
                "capacityReservationTarget"):
            yield Violation(template.urn, f"capacity-block node group {group.name} does not target its block.")
        if block and (template.props.get("placement") or {}).get("groupName"):
            yield Violation(template.urn, f"capacity-block node group {group.name} has a placement group; blocks "
                                          "are already co-located and launches fail with one.")
        if market == "capacity-block" and not block:
            yield Violation(group.urn, f"node group {group.name} launches capacity-block instances but its "
                                       "capacityType is not CAPACITY_BLOCK.")


def checkpoint_write_share(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    """The job's checkpoint, written at the file system's (or its writers') rate, takes at most
    ``maxShare`` of the checkpoint interval, and the checkpoints kept fit on the file system."""
    ceiling = float(config.get("maxShare", 0.1))
    for component in stack.of_type(LUSTRE_FILE_SYSTEM_COMPONENT):
        checkpoint = component.props.get("checkpoint")
        file_systems = stack.children(component, LUSTRE_FILE_SYSTEM)
        timing = (checkpoint_timing(component.name, checkpoint, file_systems[0].props)
                  if isinstance(checkpoint, dict) and file_systems else None)
        if timing is None:
            continue
        if timing.share > ceiling:
            yield Violation(file_systems[0].urn, (
                f"FSx {component.name}: a {timing.checkpoint_gb:,.0f} GB checkpoint takes "
                f"{timing.write_seconds:,.0f} s "
                f"at {timing.rate_mbps:,.0f} MB/s, {timing.share:.1%} of its {timing.interval_minutes:g}-minute "
                f"interval (ceiling {ceiling:.0%}); raise fsx.storageCapacityGiB or perUnitStorageThroughput to "
                f"about {timing.checkpoint_gb * 1000 / (ceiling * timing.interval_minutes * 60):,.0f} MB/s, or "
                "checkpoint less often."))
        if timing.capacity_gb is not None and timing.stored_gb > timing.capacity_gb:
            yield Violation(file_systems[0].urn, (
                f"FSx {component.name}: {timing.keep} checkpoints of {timing.checkpoint_gb:,.0f} GB need "
                f"{timing.stored_gb:,.0f} GB but the file system holds {timing.capacity_gb:,.0f} GB; raise "
                "fsx.storageCapacityGiB or lower fsx.checkpoints.keep."))


RULES = [
    Rule("efa-security-group-self-rules", "EFA interfaces carry a security group allowing all traffic from and "
         "to itself.", "mandatory", efa_security_group_self_rules, area="training",
         source="EC2 User Guide, Get started with EFA: the security group must allow all inbound and outbound "
         "traffic to and from itself"),
    Rule("efa-layout-matches-catalog", "Launch templates lay out every EFA interface of their instance type, "
         "card 0 plain, efa-only on each EFA card (types the catalog lacks are not judged).", "mandatory",
         efa_layout_matches_catalog, area="training",
         source="EC2 User Guide, Maximize network bandwidth on accelerated instances (EFA interfaces per "
         "network card); the catalog's per-type facts"),
    Rule("accelerated-groups-single-zone", "Node groups with EFA, a reservation or a capacity block sit in one "
         "zone.", "mandatory", accelerated_groups_single_zone, area="training",
         source="EC2 User Guide, EFA limitations (no traffic across Availability Zones); Capacity Reservations "
         "and Capacity Blocks are per Availability Zone"),
    Rule("fsx-zone-and-ports", "FSx shares its node groups' zone and opens TCP 988 and 1018-1023.", "mandatory",
         fsx_zone_and_ports, area="training",
         source="FSx for Lustre User Guide, File system access control with Amazon VPC (TCP 988, 1018-1023); "
         "clients in other zones pay cross-zone transfer on every read"),
    Rule("capacity-block-market-type", "Capacity-block node groups launch with the capacity-block market type, "
         "their block targeted, and no placement group.", "mandatory", capacity_block_market_type, area="training",
         source="EKS User Guide, Capacity Blocks for ML with managed node groups (launch template market type "
         "capacity-block, capacityType CAPACITY_BLOCK)"),
    Rule("checkpoint-write-share", "The job's checkpoint takes at most maxShare (default 10%) of its interval "
         "to write to FSx, and the checkpoints kept fit on it.", "mandatory", checkpoint_write_share,
         area="training", config={"maxShare": {"type": "number", "default": 0.1, "exclusiveMinimum": 0}},
         source="FSx for Lustre User Guide, performance (throughput = TiB x MB/s/TiB; per-client limits over "
         "ENA, EFA, EFA with GDS); the 10% ceiling is a team's budget for synchronous checkpoints, not AWS's"),
]
