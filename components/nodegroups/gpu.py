"""GpuNodeGroup: NVIDIA GPU nodes on the EKS-optimized AL2023 NVIDIA AMI."""

from __future__ import annotations

from ..catalog import AcceleratorKind
from .accelerated import AcceleratedNodeGroup

GPU_PRESENT_LABEL = "nvidia.com/gpu.present"
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}


class GpuNodeGroup(AcceleratedNodeGroup):
    """NVIDIA GPU nodes (p4d, p5, g5 ...) with EFA; Args: ``AcceleratedNodeGroupArgs``."""

    TYPE = "trainstack:index:GpuNodeGroup"
    ACCELERATOR = AcceleratorKind.GPU
    # The NVIDIA device plugin chart's default affinity also selects this label.
    PRESENT_LABEL = GPU_PRESENT_LABEL
    TAINT = GPU_TAINT
