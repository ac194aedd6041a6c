"""The checks of a node group with ``autoscaler: karpenter`` (``nodeGroups[]``, config/nodegroups.py): what it may
ask for, by what the pinned Karpenter supports.

A Karpenter group is either an elastic pool (on-demand, or Spot with an on-demand fallback) or the one
holder of a reservation or capacity block it names by id (capacity type ``reserved``). Either may lay out
EFA and launch into a cluster placement group through its EC2NodeClass, as a managed group does through
its launch template. What the pin lacks, and what Karpenter cannot select, is refused with the reason.
Why: docs/adr/0012-karpenter-for-reserved-capacity.md
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...catalog.addons import KARPENTER
from ...catalog.karpenter_capacity import (
    CAPACITY_BLOCKS,
    NETWORK_INTERFACES,
    PLACEMENT_GROUPS,
    RESERVED,
    KarpenterFeature,
    supports,
)
from ..base import ConfigValueError

if TYPE_CHECKING:
    from ..group_view import GroupView


def require_feature(feature: KarpenterFeature, path: tuple[str, ...], value: Any,
                    pinned: str = KARPENTER.version) -> None:
    """Refuses ``value`` at ``path`` when the Karpenter release ``pinned`` lacks ``feature``."""
    if not supports(feature, pinned):
        raise ConfigValueError(
            f"Karpenter {pinned}, the release trainstack installs, has no {feature.what}: it came in "
            f"v{feature.since} ({feature.source}).",
            fix="set autoscaler: cluster-autoscaler on this group, or pin a Karpenter release that has it.",
            path=path, value=value)


def check_autoscaler(group: GroupView) -> None:
    """A Karpenter group within what the pinned Karpenter can do; ``amiVersion`` on a Karpenter group only."""
    if group.autoscaler == "karpenter":
        check_karpenter_group(group)
    elif group.ami_version is not None:
        raise ConfigValueError(
            "amiVersion pins a Karpenter pool's AMI; an EKS managed node group takes the release EKS "
            "publishes for its Kubernetes version.", fix="remove amiVersion, or set autoscaler: karpenter.",
            path=("amiVersion",), value=group.ami_version)


def check_karpenter_group(group: GroupView, pinned: str = KARPENTER.version) -> None:
    """A Karpenter group's capacity, EFA and placement group against what Karpenter ``pinned`` can do."""
    capacity = group.capacity
    if capacity.type != "none":
        if capacity.resource_group_arn is not None:
            raise ConfigValueError(
                "Karpenter selects reservations by id, tags or instance match criteria "
                "(EC2NodeClass capacityReservationSelectorTerms), not by resource group.",
                fix="give the reservation's reservationId, or set autoscaler: cluster-autoscaler to target the "
                "resource group from a managed node group's launch template.",
                path=("capacity", "resourceGroupArn"), value=capacity.resource_group_arn)
        if capacity.reservations:
            raise ConfigValueError(
                "reservations make the group a pool of EKS managed node groups (config/node_pool.py), which Karpenter "
                "does not run.", fix="set autoscaler: cluster-autoscaler, or give the Karpenter pool one "
                "reservationId.", path=("capacity", "reservations"), value=capacity.reservation_ids)
        if capacity.purchase is not None:
            raise ConfigValueError(
                "a Karpenter pool selects its block by id (capacityReservationSelectorTerms), which a block the "
                "stack buys has only after `pulumi up`.", fix="buy it with a managed group (autoscaler: "
                "cluster-autoscaler), or buy it first and name its reservationId here.",
                path=("capacity", "purchase"), value=capacity.purchase.offering_id)
        require_feature(CAPACITY_BLOCKS if capacity.type == "capacityBlock" else RESERVED,
                        ("capacity", "type"), capacity.type, pinned)
    if group.efa:
        require_feature(NETWORK_INTERFACES, ("efa",), True, pinned)
    if group.placement_group:
        require_feature(PLACEMENT_GROUPS, ("placementGroup",), True, pinned)


def check_spot(group: GroupView) -> None:
    """Spot is for elastic pools only: a reservation or block is capacity already paid for, and an EFA job
    needs every one of its nodes, which a Spot interruption takes away with two minutes' notice (EC2 User
    Guide, Spot Instance interruption notices)."""
    if not group.spot:
        return
    if group.autoscaler != "karpenter":
        raise ConfigValueError(
            "spot is launched by Karpenter (capacity type spot, falling back to on-demand); a managed node "
            "group here is on-demand or reserved.", fix="set autoscaler: karpenter, or remove spot.",
            path=("spot",), value=True)
    if group.capacity.type != "none":
        raise ConfigValueError(
            f"a group that holds a {group.capacity.type} cannot also run on Spot: the {group.capacity.type} is "
            "paid for whether its instances run or not.", fix="remove spot, or the capacity block.",
            path=("spot",), value=True)
    if group.efa_enabled:
        raise ConfigValueError(
            "an EFA group cannot run on Spot: an EFA training job needs every one of its nodes, and a Spot "
            "interruption takes one away with two minutes' notice.",
            fix="remove spot, or set efa: false for an elastic pool without EFA.", path=("spot",), value=True)
