"""Where Karpenter's nodes may come from: a pool that holds a reservation or capacity block launches only
into it, and Spot is for elastic pools, never for reserved capacity or EFA training groups.
Why: docs/adr/0012-karpenter-for-reserved-capacity.md
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Optional

from ..catalog.efa_layout import EFA_INTERFACE_TYPES
from ..names import CAPACITY_TYPE_LABEL, KARPENTER_NODE_CLASS, KARPENTER_NODE_POOL, LAUNCH_TEMPLATE, NODE_GROUP
from .model import Resource, Rule, Stack, Violation


def _capacity_types(pool: Resource) -> list[str]:
    spec = ((pool.props.get("spec") or {}).get("template") or {}).get("spec") or {}
    return [str(v) for r in spec.get("requirements") or [] if r.get("key") == CAPACITY_TYPE_LABEL
            for v in r.get("values") or []]


def _pools_with_classes(stack: Stack) -> Iterator[tuple[Resource, dict[str, Any]]]:
    """Each NodePool with the spec of the EC2NodeClass it names (empty when that class is not in the stack)."""
    classes = {str((r.props.get("metadata") or {}).get("name")): r for r in stack.of_type(KARPENTER_NODE_CLASS)}
    for pool in stack.of_type(KARPENTER_NODE_POOL):
        template = ((pool.props.get("spec") or {}).get("template") or {}).get("spec") or {}
        node_class: Optional[Resource] = classes.get(str((template.get("nodeClassRef") or {}).get("name")))
        yield pool, (node_class.props.get("spec") or {}) if node_class else {}


def _pool_name(pool: Resource) -> str:
    return str((pool.props.get("metadata") or {}).get("name", pool.name))


def karpenter_reserved_pools(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    """A pool whose node class selects reservations launches only into them (capacity type reserved alone):
    with spot or on-demand beside it, Karpenter launches outside the reservation once it is full (Karpenter
    v1.14.1, tasks/odcrs.md, Prioritization Behavior)."""
    for pool, class_spec in _pools_with_classes(stack):
        types = _capacity_types(pool)
        selects = bool(class_spec.get("capacityReservationSelectorTerms"))
        if selects and types != ["reserved"]:
            yield Violation(pool.urn, f"Karpenter NodePool {_pool_name(pool)} holds capacity reservations but "
                                      f"allows capacity types {types}; set karpenter.sh/capacity-type In "
                                      "['reserved'] so it never launches outside what was bought.")
        if "reserved" in types and not selects:
            yield Violation(pool.urn, f"Karpenter NodePool {_pool_name(pool)} allows capacity type reserved but "
                                      "its EC2NodeClass selects no reservation; Karpenter does not match open "
                                      "ODCRs, so name the reservation in capacityReservationSelectorTerms.")


def no_spot_for_reserved_or_efa(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    """Spot nodes are taken back with two minutes' notice: not for capacity already paid for, nor for EFA
    training jobs that need every node (EC2 User Guide, Spot Instance interruption notices)."""
    for pool, class_spec in _pools_with_classes(stack):
        if "spot" not in _capacity_types(pool):
            continue
        efa = any(i.get("interfaceType") in EFA_INTERFACE_TYPES for i in class_spec.get("networkInterfaces") or [])
        if efa or class_spec.get("capacityReservationSelectorTerms"):
            what = "EFA interfaces" if efa else "capacity reservations"
            yield Violation(pool.urn, f"Karpenter NodePool {_pool_name(pool)} allows Spot but its EC2NodeClass has "
                                      f"{what}; remove spot from its capacity types (or set spot: false).")
    for group in stack.of_type(NODE_GROUP):
        if group.props.get("capacityType") != "SPOT":
            continue
        for template in stack.referenced(group, "launchTemplate", LAUNCH_TEMPLATE):
            efa = any(i.get("interfaceType") in EFA_INTERFACE_TYPES
                      for i in template.props.get("networkInterfaces") or [])
            reserved = (template.props.get("capacityReservationSpecification") or {}).get("capacityReservationTarget")
            if efa or reserved:
                yield Violation(group.urn, f"node group {group.name} runs on Spot with "
                                           f"{'EFA interfaces' if efa else 'a capacity reservation'}; set its "
                                           "capacityType to ON_DEMAND.")


RULES = [
    Rule("karpenter-reserved-pools", "A Karpenter pool that holds reservations or capacity blocks allows only "
         "capacity type reserved, and one that allows reserved names its reservations.", "mandatory",
         karpenter_reserved_pools, area="training",
         source="Karpenter v1.14.1 docs, Utilizing ODCRs and Capacity Blocks (capacity type reserved, "
         "capacityReservationSelectorTerms, prioritization reserved > spot > on-demand, no open matching)"),
    Rule("no-spot-for-reserved-or-efa", "No Spot capacity for groups that hold reservations or carry EFA.",
         "mandatory", no_spot_for_reserved_or_efa, area="training",
         source="EC2 User Guide, Spot Instance interruptions (two-minute notice); Capacity Reservations and "
         "Capacity Blocks are billed whether used or not"),
]
