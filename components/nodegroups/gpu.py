"""GpuNodeGroup: NVIDIA GPU nodes on the EKS-optimized AL2023 NVIDIA AMI."""

from __future__ import annotations

from .. import catalog
from ..catalog import AcceleratorKind
from ..config import NodeGroupConfig
from ..config.errors import ConfigError, ConfigIssue
from .accelerated import AcceleratedNodeGroup

GPU_PRESENT_LABEL = "nvidia.com/gpu.present"
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}


class GpuNodeGroup(AcceleratedNodeGroup):
    TYPE = "trainstack:index:GpuNodeGroup"

    def _check_accelerator(self, settings: NodeGroupConfig, instance: catalog.InstanceType) -> None:
        if instance.accelerator.kind is not AcceleratorKind.GPU:
            raise ConfigError([ConfigIssue(f"GpuNodeGroup({settings.name}):instanceType", settings.instance_type,
                                           f"{settings.instance_type} has no NVIDIA GPU.",
                                           "use a GPU type (p4d, p5, g5, ...) or a TrainiumNodeGroup.")])

    def accelerator_labels(self, settings, instance):
        # The NVIDIA device plugin chart's default affinity selects this label; EKS
        # nodes have no Node Feature Discovery to set it.
        return {**super().accelerator_labels(settings, instance), GPU_PRESENT_LABEL: "true"}

    def accelerator_taint(self) -> dict:
        return dict(GPU_TAINT)
