"""NodeGroupPool: a group made as several EKS managed node groups (its parts: config/node_pool.py).

Each part is the group's own kind of node group (GpuNodeGroup or TrainiumNodeGroup) with the group's settings, its
share of one reservation, its sizes and its subnet (part i takes its zone's subnet i mod n:
config/subnet_placement.py), so every record reader (cost, policies, the controller models, the review)
sees each part as the managed node group it is, with the instances of the reservation it holds; the parts' shares
of a reservation add up to the reservation. Every part's nodes carry the group's name as their node label, so
Kubernetes, Kueue and the launchers see one group.
"""

from __future__ import annotations

from typing import Optional, TypedDict

import pulumi
import pulumi_aws as aws

from ..config import NodeGroupConfig
from ..config.node_pool import Part, parts
from ..names import NODE_GROUP_POOL_COMPONENT
from .accelerated import AcceleratedNodeGroup, ClusterAttachment


class NodeGroupPoolArgs(TypedDict):
    settings: NodeGroupConfig
    """The group (a pool: ``config.node_pool.is_pool``)."""
    cluster: ClusterAttachment
    """The cluster its parts join."""
    kind: type[AcceleratedNodeGroup]
    """The node group kind of its accelerator (GpuNodeGroup or TrainiumNodeGroup)."""


class NodeGroupPool(pulumi.ComponentResource):
    """One group of nodes, made as several EKS managed node groups."""

    def __init__(self, name: str, args: NodeGroupPoolArgs, opts: Optional[pulumi.ResourceOptions] = None):
        settings = args["settings"]
        pieces = parts(settings)
        super().__init__(NODE_GROUP_POOL_COMPONENT, name, {"pool": {
            "group": settings.name, "managedNodeGroups": len(pieces), "maxSize": settings.max_size,
            "reservations": settings.capacity.reservation_ids}}, opts)
        kind = args["kind"]
        self.parts: list[AcceleratedNodeGroup] = [
            kind(f"{name}-{part.index}", {"settings": part_settings(settings, part), "cluster": args["cluster"],
                                          "part": part.index}, opts=pulumi.ResourceOptions(parent=self))
            for part in pieces]
        """The managed node groups, in order."""
        first = self.parts[0]
        self.ACCELERATOR = first.ACCELERATOR
        self.labels, self.taints, self.max_pods = first.labels, first.taints, first.max_pods
        self.register_outputs({"managedNodeGroups": [p.node_group.node_group_name for p in self.parts]})

    @property
    def managed_groups(self) -> list[aws.eks.NodeGroup]:
        """Every part's EKS managed node group."""
        return [part.node_group for part in self.parts]


def part_settings(settings: NodeGroupConfig, part: Part) -> NodeGroupConfig:
    """The group's settings for one part: its sizes, and its share of one reservation."""
    capacity = settings.capacity
    if capacity.type != "none":
        capacity = capacity.model_copy(update={"reservations": [], "reservation_id": part.reservation_id,
                                               "instance_count": part.instance_count})
    return settings.model_copy(update={"min_size": part.min_size, "desired_size": part.desired_size,
                                       "max_size": part.max_size, "capacity": capacity})
