"""Accelerated node groups: the shared base, GPU groups and Trainium groups."""

from .accelerated import AcceleratedNodeGroup, AcceleratedNodeGroupArgs, ClusterAttachment
from .gpu import GpuNodeGroup
from .trainium import TrainiumNodeGroup

NODE_GROUP_FOR = {GpuNodeGroup.ACCELERATOR: GpuNodeGroup, TrainiumNodeGroup.ACCELERATOR: TrainiumNodeGroup}
"""The node group class for each accelerator kind."""

__all__ = ["AcceleratedNodeGroup", "AcceleratedNodeGroupArgs", "ClusterAttachment", "GpuNodeGroup",
           "NODE_GROUP_FOR", "TrainiumNodeGroup"]
