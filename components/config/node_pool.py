"""A node group larger than one EKS managed node group may be, or spanning several reservations: a pool.

EKS caps the nodes of one managed node group by a service quota (450 by default, adjustable: EKS user guide,
service-quotas.html, "Nodes per managed node group"), and a managed node group's launch template targets one
capacity reservation. So a group declared with more nodes than that, or with several reservations
(``capacity.reservations``), is made as several managed node groups, its parts: each reservation's instances in
as few parts of at most the quota as can hold them, as even as can be, in the order the reservations are listed.
Every part carries the group's name as its node label (``trainstack.io/node-group``), labels, taints and launch
settings, so Kubernetes, Kueue (one flavor) and the launchers see one group; the plan, the cost and the policies
count each part as the managed node group it is.

A group that fits one managed node group and names at most one reservation is one part, made as it always was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..catalog.service_quotas import NODES_PER_MANAGED_NODE_GROUP as NODES_QUOTA
from .nodegroups import NodeGroupConfig

NODES_PER_MANAGED_NODE_GROUP = NODES_QUOTA.default or 450
"""EKS's default quota of nodes per managed node group (its row in catalog/service_quotas.py, with its source)."""


@dataclass(frozen=True)
class Part:
    """One EKS managed node group of a group."""

    index: int
    reservation_id: Optional[str]
    """The reservation or block its launch template targets (None: on-demand, or the group's resource group)."""
    instance_count: Optional[int]
    """The instances of that reservation held for this part: its maxSize (None without a reservation)."""
    min_size: int
    desired_size: int
    max_size: int


def parts(group: NodeGroupConfig, nodes_per_group: int = NODES_PER_MANAGED_NODE_GROUP) -> list[Part]:
    """The managed node groups ``group`` is made as: each reservation's instances (or, without one, the group's
    maxSize) in parts of at most ``nodes_per_group``; min and desired sizes fill the parts in order."""
    capacity = group.capacity
    if capacity.reservations:
        sources: list[tuple[Optional[str], int]] = [(r.reservation_id, r.instance_count)
                                                    for r in capacity.reservations]
    else:
        sources = [(capacity.reservation_id, group.max_size)]
    sizes: list[tuple[Optional[str], int]] = []
    left = group.max_size
    for reservation_id, count in sources:
        take = min(count, left)
        left -= take
        # As few parts as the quota allows, as even as can be: 512 instances are 256 and 256, not 450 and 62.
        pieces = -(-take // nodes_per_group)
        sizes += [(reservation_id, take // pieces + (1 if index < take % pieces else 0)) for index in range(pieces)]
    result = []
    min_left, desired_left = group.min_size, group.desired_size
    for index, (reservation_id, size) in enumerate(sizes):
        minimum, desired = min(min_left, size), min(desired_left, size)
        min_left, desired_left = min_left - minimum, desired_left - desired
        result.append(Part(index, reservation_id, size if reservation_id is not None else None, minimum, desired,
                           size))
    return result


def is_pool(group: NodeGroupConfig, nodes_per_group: int = NODES_PER_MANAGED_NODE_GROUP) -> bool:
    """Whether the group is made as more than one managed node group."""
    return len(parts(group, nodes_per_group)) > 1
