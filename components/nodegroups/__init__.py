"""Accelerated node groups: the shared base, GPU groups (and Trainium groups to come)."""

from .accelerated import AcceleratedNodeGroup, AcceleratedNodeGroupArgs, ClusterAttachment
from .gpu import GpuNodeGroup

__all__ = ["AcceleratedNodeGroup", "AcceleratedNodeGroupArgs", "ClusterAttachment", "GpuNodeGroup"]
