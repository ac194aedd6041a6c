"""Where a Karpenter pool's nodes come from, and how they are laid out: the parts of its NodePool and
EC2NodeClass that differ between an elastic pool and a pool that holds a reservation or capacity block.

    elastic pool      capacity type on-demand, or spot then on-demand (``spot: true``)
    reserved pool     capacity type reserved only, the group's reservation or block by id
                      (capacityReservationSelectorTerms), nodes never expire; a block's pool waits at most
                      BLOCK_DRAIN_GRACE_MINUTES for its pods before EC2 takes the instances
    EFA               the catalog's interface layout as spec.networkInterfaces, the EFA security group
    placement group   spec.placementGroupSelector by name, on EFA groups on plain on-demand capacity

Sources: aws/karpenter-provider-aws v1.14.1, website/content/en/docs/concepts/nodepools.md
("If a NodePool is compatible with multiple capacity types, Karpenter will prioritize reserved capacity,
followed by spot, then finally on-demand"; expireAfter; terminationGracePeriod), concepts/nodeclasses.md
(capacityReservationSelectorTerms, placementGroupSelector, networkInterfaces), tasks/odcrs.md.
"""

from __future__ import annotations

from typing import Any

from ..catalog.efa_layout import layout_for
from ..catalog.karpenter_capacity import BLOCK_DRAIN_GRACE_MINUTES
from ..config import NodeGroupConfig

RESERVED, SPOT, ON_DEMAND = "reserved", "spot", "on-demand"


def capacity_types(settings: NodeGroupConfig) -> list[str]:
    """The NodePool's ``karpenter.sh/capacity-type`` values. A reserved pool takes ``reserved`` alone: with
    on-demand beside it, Karpenter would launch outside the reservation once it is full (tasks/odcrs.md,
    Prioritization Behavior), and the group would quietly cost more than what was bought."""
    if settings.capacity.type != "none":
        return [RESERVED]
    return [SPOT, ON_DEMAND] if settings.spot else [ON_DEMAND]


def template_lifetime(settings: NodeGroupConfig) -> dict[str, str]:
    """``expireAfter`` and ``terminationGracePeriod`` of a reserved pool's nodes; nothing for an elastic one.

    Karpenter replaces every node after ``expireAfter`` (720h by default, nodepools.md): on reserved
    capacity that restarts a training job for nothing, so its nodes never expire. At a Capacity Block's end
    Karpenter deletes the block's nodes 40 minutes before the end and EC2 terminates them from 30 minutes
    before (catalog.karpenter_capacity): the drain may last at most the 10 minutes between, after which pods
    that block it (PDBs, do-not-disrupt) are deleted by Karpenter rather than killed by EC2."""
    if settings.capacity.type == "none":
        return {}
    lifetime = {"expireAfter": "Never"}
    if settings.capacity.type == "capacityBlock":
        lifetime["terminationGracePeriod"] = f"{BLOCK_DRAIN_GRACE_MINUTES}m"
    return lifetime


def node_class_capacity(settings: NodeGroupConfig, *, placement_group: Any) -> dict[str, Any]:
    """The EC2NodeClass fields of the group's reservation, EFA layout and placement group (empty for an
    elastic pool without EFA, so its node class is what it was before any of these existed)."""
    fields: dict[str, Any] = {}
    if settings.capacity.reservation_id is not None:
        fields["capacityReservationSelectorTerms"] = [{"id": settings.capacity.reservation_id}]
    if settings.efa_enabled:
        fields["networkInterfaces"] = [
            {"networkCardIndex": slot.network_card_index, "deviceIndex": slot.device_index,
             "interfaceType": slot.interface_type} for slot in layout_for(settings.instance, True)]
    if placement_group is not None:
        fields["placementGroupSelector"] = {"name": placement_group}
    return fields

