"""What a plan record says the AWS account holds for the stack: the EKS cluster, its managed node groups and
add-ons, the reservations and Capacity Blocks its groups launch into, and the FSx file system.

The record is the offline plan's: ids the mocks made up (a file system's ``fs-…``, a node group's random suffix)
are not the account's. So each thing is named here as the account knows it: by a name the stack gives (the
cluster, an add-on), by an id the stack file gives (a reservation, an existing file system), by a tag the stack
sets (the file system's ``Name``, an accelerated node group's ``trainstack:node-group``), or by the name Pulumi
makes from the logical name (``<logical name>-<7 random characters>``, config/resource_names.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Optional

from ..names import (
    EKS_ADDON,
    LUSTRE_FILE_SYSTEM,
    NODE_GROUP,
    NODE_GROUP_LABEL,
)
from ..outputs import OUTPUT_NAME
from ..plan import Plan, ResourceRecord


@dataclass(frozen=True)
class ManagedGroup:
    """One EKS managed node group the plan makes."""

    logical_name: str
    """The record's name: Pulumi names the node group this plus ``-`` and 7 random characters; an accelerated
    group also carries it as its ``trainstack:node-group`` tag."""
    group: str
    """The node group as the stack file names it (its ``trainstack.io/node-group`` label)."""
    desired: int
    reservation: Optional[str]
    """The reservation or Capacity Block (``cr-…``) it launches into, if any."""


@dataclass(frozen=True)
class Held:
    """A reservation or Capacity Block the stack's groups launch into."""

    reservation_id: str
    kind: str
    """``reservation`` or ``capacityBlock``."""
    groups: tuple[str, ...]
    desired: int
    """The desired size of every managed node group that launches into it, together."""
    lead_minutes: Optional[int]
    """A Capacity Block: how long before its end the stack winds it down (``capacity.endLeadMinutes``)."""


@dataclass(frozen=True)
class AwsSide:
    cluster: Optional[str]
    """The EKS cluster's name; None for a stack without one (HyperPod with Slurm)."""
    groups: list[ManagedGroup]
    held: list[Held]
    addons: dict[str, Optional[str]]
    """Each EKS managed add-on the plan installs, and its pinned version (None: EKS's default)."""
    file_system_tag: Optional[str]
    """The ``Name`` tag of the FSx file system the stack makes."""
    file_system_id: Optional[str]
    """An existing FSx file system the stack mounts (``existingCluster.fileSystem``), by its id."""


def aws_side(plan: Plan) -> AwsSide:
    contract: dict[str, Any] = plan.outputs.get(OUTPUT_NAME) or {}
    by_urn = {resource.urn: resource for resource in plan.resources}
    # Sorted, so doctor reads and reports in the same order whatever order the record holds them in.
    groups = sorted((_managed_group(record, by_urn) for record in plan.by_type(NODE_GROUP)),
                    key=lambda group: group.logical_name)
    lustre = plan.by_type(LUSTRE_FILE_SYSTEM)
    tag = (lustre[0].inputs.get("tags") or {}).get("Name") if lustre else None
    existing = (contract.get("storage") or {}).get("fileSystemId") if not lustre else None
    return AwsSide(cluster=(contract.get("cluster") or {}).get("name"), groups=groups,
                   held=_held(plan, groups, contract.get("acceleratedGroups") or {}),
                   addons=dict(sorted((str(r.inputs["addonName"]), r.inputs.get("addonVersion"))
                                      for r in plan.by_type(EKS_ADDON))),
                   file_system_tag=tag, file_system_id=existing)


def _managed_group(record: ResourceRecord, by_urn: dict[str, ResourceRecord]) -> ManagedGroup:
    parent = by_urn.get(record.parent or "")
    capacity = (parent.inputs.get("capacity") if parent is not None else None) or {}
    label = (record.inputs.get("labels") or {}).get(NODE_GROUP_LABEL, record.name)
    desired = (record.inputs.get("scalingConfig") or {}).get("desiredSize") or 0
    return ManagedGroup(logical_name=record.name, group=str(label), desired=int(desired),
                        reservation=capacity.get("reservationId"))


def _held(plan: Plan, groups: list[ManagedGroup], contract_groups: dict[str, Any]) -> list[Held]:
    """Each reservation or block named by id. One a group finds by resource group, or one the stack buys (no id
    before it is bought), is left out: preflight checks what it can of them."""
    held: dict[str, Held] = {}
    for resource in plan.resources:
        capacity = resource.inputs.get("capacity")
        if not isinstance(capacity, dict) or capacity.get("type") not in ("reservation", "capacityBlock"):
            continue
        reservation_id = capacity.get("reservationId")
        if not reservation_id or reservation_id in held:
            continue
        users = [group for group in groups if group.reservation == reservation_id]
        names = tuple(sorted({group.group for group in users} or {
            str((resource.outputs.get("labels") or {}).get(NODE_GROUP_LABEL, resource.name))}))
        held[reservation_id] = Held(reservation_id, capacity["type"], names, sum(g.desired for g in users),
                                    _lead(contract_groups, names) if capacity["type"] == "capacityBlock" else None)
    return sorted(held.values(), key=lambda each: each.reservation_id)


def _lead(contract_groups: dict[str, Any], names: tuple[str, ...]) -> Optional[int]:
    """The wind-down lead as the outputs contract holds it: ``capacityEndsAt`` minus ``capacityWindDownAt``."""
    for name in names:
        group = contract_groups.get(name) or {}
        ends, wind_down = group.get("capacityEndsAt"), group.get("capacityWindDownAt")
        if ends and wind_down:
            return int((_moment(ends) - _moment(wind_down)).total_seconds() // 60)
    return None


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
