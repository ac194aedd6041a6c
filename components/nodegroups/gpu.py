"""GpuNodeGroup: NVIDIA GPU nodes on the EKS-optimized AL2023 NVIDIA AMI."""

from __future__ import annotations

from ..catalog import AcceleratorKind
from ..names import GPU_NODE_GROUP_COMPONENT, GPU_PRESENT_LABEL, GPU_TAINT
from .accelerated import AcceleratedNodeGroup


class GpuNodeGroup(AcceleratedNodeGroup):
    """NVIDIA GPU nodes (p4d, p5, g5 ...) with EFA; Args: ``AcceleratedNodeGroupArgs``."""

    TYPE = GPU_NODE_GROUP_COMPONENT
    ACCELERATOR = AcceleratorKind.GPU
    # The NVIDIA device plugin chart's default affinity also selects this label.
    PRESENT_LABEL = GPU_PRESENT_LABEL
    TAINT = GPU_TAINT
