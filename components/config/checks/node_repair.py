"""The checks of node auto repair (``nodeGroups[].nodeRepair``, config/node_repair.py): the EKS API's exclusive
pairs, one override per condition and reason, and settings the group can carry."""

from __future__ import annotations

from ..base import ConfigValueError
from ..node_repair import NodeRepair
from ..nodegroups import NodeGroupConfig


def check_node_repair(repair: NodeRepair) -> None:
    """Each count and its percentage are mutually exclusive (``NodeRepairConfig``); one override per condition and
    reason."""
    for count, percent, count_key, percent_key in (
            (repair.max_unhealthy_nodes, repair.max_unhealthy_percent, "maxUnhealthyNodes", "maxUnhealthyPercent"),
            (repair.max_parallel_repairs, repair.max_parallel_percent, "maxParallelRepairs", "maxParallelPercent")):
        if count is not None and percent is not None:
            raise ConfigValueError(f"{count_key} and {percent_key} are both set; EKS takes one of the two.",
                                   fix=f"remove {count_key} or {percent_key}.", path=(percent_key,), value=percent)
    seen: set[tuple[str, str]] = set()
    for index, override in enumerate(repair.overrides):
        key = (override.condition, override.reason)
        if key in seen:
            raise ConfigValueError(f"two overrides for {override.condition} / {override.reason}.",
                                   fix="keep one override per condition and reason.",
                                   path=("overrides", index, "reason"), value=override.reason)
        seen.add(key)


def check_group_repair(group: NodeGroupConfig) -> None:
    """``nodeRepair`` asks for repair, which ``autoRepair: false`` turns off; counts above the group cannot apply;
    a Karpenter pool has no managed node group to carry it."""
    node_repair = group.node_repair
    if node_repair is None:
        return
    if group.autoscaler == "karpenter":
        raise ConfigValueError("nodeRepair configures a managed node group's auto repair; a Karpenter pool has none.",
                               fix="remove nodeRepair, or set autoscaler: cluster-autoscaler.", path=("nodeRepair",),
                               value="set")
    if not group.auto_repair:
        raise ConfigValueError("nodeRepair tunes node auto repair, which autoRepair: false turns off.",
                               fix="remove nodeRepair, or autoRepair: false.", path=("autoRepair",), value=False)
    for key, value in (("maxUnhealthyNodes", node_repair.max_unhealthy_nodes),
                       ("maxParallelRepairs", node_repair.max_parallel_repairs)):
        if value is not None and value > group.max_size:
            raise ConfigValueError(f"nodeRepair.{key} is {value} but the group has at most {group.max_size} nodes.",
                                   fix=f"set it to at most {group.max_size}, or use the percentage.",
                                   path=("nodeRepair", key), value=value)
