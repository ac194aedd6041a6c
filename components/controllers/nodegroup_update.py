"""EKS rolling a managed node group: does any rollout need capacity the group cannot get?

A version or AMI update (UpdateNodegroupVersion, or a launch template version change)
replaces every node. How, the group's ``updateConfig`` says (EKS API Reference,
NodegroupUpdateConfig; EKS user guide, managed-node-update-behavior):

* ``DEFAULT``: the setup phase raises the Auto Scaling group's maximum and desired size by
  the larger of twice the group's Availability Zones and ``maxUnavailable``, and the
  upgrade phase launches those new instances before it terminates old ones. Each new
  instance needs capacity beside the running ones.
* ``MINIMAL``: "terminates the old instances before launching the new instances ...
  useful ... with hardware accelerators such as GPUs"; no capacity beyond the group's own.

Capacity a group cannot grow into: a capacity block (it holds exactly what was bought),
an On-Demand Capacity Reservation (the plan cannot know its free slots at rollout time;
other groups and instances may hold them), and a cluster placement group (launches into
it fail with InsufficientInstanceCapacity when the racks it sits on are full). On any of
these a DEFAULT rollout waits for instances that never come and the update fails.

``maxUnavailable`` (1 to 100) or ``maxUnavailablePercentage`` (1 to 100): exactly one
must be set (NodegroupUpdateConfig: "This value or ... is required").
"""

from __future__ import annotations

from typing import Any

from ..names import LAUNCH_TEMPLATE, NODE_GROUP
from ..policy.model import Resource, Stack
from .model import Finding

CONTROLLER = "eks-nodegroup-update"
SOURCE = ("EKS API Reference, NodegroupUpdateConfig; EKS user guide, managed-node-update-behavior "
          "(docs.aws.amazon.com/eks/latest/userguide/managed-node-update-behavior.html)")


def fixed_capacity(stack: Stack, group: Resource) -> list[str]:
    """Why ``group`` cannot launch instances beyond its own: its capacity block, reservation, placement group."""
    reasons = []
    if group.props.get("capacityType") == "CAPACITY_BLOCK":
        reasons.append("it runs on a capacity block")
    for template in stack.referenced(group, "launchTemplate", LAUNCH_TEMPLATE):
        props: dict[str, Any] = template.props
        target = (props.get("capacityReservationSpecification") or {}).get("capacityReservationTarget")
        if target and group.props.get("capacityType") != "CAPACITY_BLOCK":
            reasons.append("it runs on an On-Demand Capacity Reservation")
        if (props.get("placement") or {}).get("groupName"):
            reasons.append("it launches into a cluster placement group")
    return reasons


def check(stack: Stack) -> list[Finding]:
    findings = []
    for group in stack.of_type(NODE_GROUP):
        update = group.props.get("updateConfig") or {}
        count, percentage = update.get("maxUnavailable"), update.get("maxUnavailablePercentage")
        if (count is None) == (percentage is None):
            findings.append(Finding(CONTROLLER, group.name, "set exactly one of updateConfig.maxUnavailable and "
                                    f"maxUnavailablePercentage (got {count} and {percentage}).", SOURCE,
                                    urn=group.urn))
        for value, name in ((count, "maxUnavailable"), (percentage, "maxUnavailablePercentage")):
            if value is not None and not 1 <= int(value) <= 100:
                findings.append(Finding(CONTROLLER, group.name, f"updateConfig.{name} is {value}; EKS accepts 1 "
                                        "to 100.", SOURCE, urn=group.urn))
        reasons = fixed_capacity(stack, group)
        strategy = update.get("updateStrategy") or "DEFAULT"
        if reasons and strategy != "MINIMAL":
            zones = len(group.props.get("subnetIds") or []) or 1
            surge = max(2 * zones, int(count or 1))
            findings.append(Finding(
                CONTROLLER, group.name,
                f"{' and '.join(reasons)}, so it cannot get the {surge} extra instance(s) the {strategy} update "
                "strategy launches before it terminates old ones: an AMI or version update stalls. Set "
                "updateConfig.updateStrategy to MINIMAL (terminate first).", SOURCE, urn=group.urn))
    return findings
