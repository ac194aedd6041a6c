"""EKS node auto repair tuned for training (``nodeGroups[].nodeRepair``): thresholds, pace, per-condition actions.

The fields are the EKS API's ``NodeRepairConfig`` (CreateNodegroup / UpdateNodegroupConfig; botocore 1.44.8
``eks`` model, the same as the EKS API Reference, read 2026-11-26): ``maxUnhealthyNodeThreshold{Count,Percentage}``
(above it repair stops), ``maxParallelNodesRepaired{Count,Percentage}`` (how many nodes are repaired at once), each
pair mutually exclusive, and ``nodeRepairConfigOverrides`` (``nodeMonitoringCondition``, ``nodeUnhealthyReason``,
``minRepairWaitTimeMins``, ``repairAction`` one of ``Replace``, ``Reboot``, ``NoAction``; "If you use this, you must
specify all the values"). pulumi-aws 7.51.1's ``aws.eks.NodeGroup`` has every field (``node_repair_config``).

Why reserved capacity gets its own default: repair by replacement terminates the instance and launches another;
in an On-Demand Capacity Reservation or a Capacity Block the new instance needs a free slot in that same
reservation, and on an UltraServer the unit is bought whole, so a replacement may not come back where the job
can use it. A group on reserved capacity with ``nodeRepair`` set therefore repairs one node at a time unless told
otherwise, and a ``Reboot`` override keeps the instance (and its slot) for the conditions it names.
"""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field

from .base import ConfigModel

NODE_CONDITIONS = ("AcceleratedHardwareReady", "NetworkingReady", "KernelReady", "StorageReady",
                   "ContainerRuntimeReady")
"""The conditions the EKS node monitoring agent sets (EKS User Guide, node-health, read 2026-11-26)."""
RESERVED_PARALLEL_REPAIRS = 1
"""Nodes a group on reserved capacity repairs at once when ``nodeRepair`` does not say."""


class RepairOverride(ConfigModel):
    """What repair does, and after how long, for one condition and reason the node monitoring agent reports."""

    condition: Literal["AcceleratedHardwareReady", "NetworkingReady", "KernelReady", "StorageReady",
                       "ContainerRuntimeReady"]
    """The node condition (``nodeMonitoringCondition``)."""
    reason: str = Field(min_length=1)
    """The agent's reason for the condition (``nodeUnhealthyReason``), as the node's condition shows it."""
    wait_minutes: int = Field(ge=1)
    """Minutes the condition must last before repair (``minRepairWaitTimeMins``)."""
    action: Literal["Replace", "Reboot", "NoAction"]
    """``Reboot`` keeps the instance (and its reservation slot); ``Replace`` launches another; ``NoAction``
    leaves it."""


class NodeRepair(ConfigModel):
    """How EKS node auto repair paces itself on this group. Setting it turns repair on (``autoRepair: true``)."""

    max_unhealthy_nodes: Optional[int] = Field(default=None, ge=1)
    """Stop repairing when more nodes than this are unhealthy at once (``maxUnhealthyNodeThresholdCount``)."""
    max_unhealthy_percent: Optional[int] = Field(default=None, ge=1, le=100)
    """The same as a percentage of the group (``maxUnhealthyNodeThresholdPercentage``)."""
    max_parallel_repairs: Optional[int] = Field(default=None, ge=1)
    """Nodes repaired at once (``maxParallelNodesRepairedCount``). Default on reserved capacity: 1."""
    max_parallel_percent: Optional[int] = Field(default=None, ge=1, le=100)
    """The same as a percentage of the unhealthy nodes (``maxParallelNodesRepairedPercentage``)."""
    overrides: list[RepairOverride] = []
    """Per condition and reason: the action and the wait (``nodeRepairConfigOverrides``)."""

    def rendered(self, reserved: bool) -> dict[str, object]:
        """The ``node_repair_config`` pulumi-aws takes (snake_case), with the reserved-capacity default filled in."""
        parallel = self.max_parallel_repairs
        if parallel is None and self.max_parallel_percent is None and reserved:
            parallel = RESERVED_PARALLEL_REPAIRS
        config: dict[str, object] = {"enabled": True}
        for key, value in (("max_unhealthy_node_threshold_count", self.max_unhealthy_nodes),
                           ("max_unhealthy_node_threshold_percentage", self.max_unhealthy_percent),
                           ("max_parallel_nodes_repaired_count", parallel),
                           ("max_parallel_nodes_repaired_percentage", self.max_parallel_percent)):
            if value is not None:
                config[key] = value
        if self.overrides:
            config["node_repair_config_overrides"] = [
                {"node_monitoring_condition": o.condition, "node_unhealthy_reason": o.reason,
                 "min_repair_wait_time_mins": o.wait_minutes, "repair_action": o.action} for o in self.overrides]
        return config
