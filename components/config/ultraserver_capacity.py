"""Capacity Block rules of UltraServer instance types (p6e-gb200.36xlarge, trn2u.48xlarge): sold and placed as whole
units, so a group on such a block counts its instances in whole units.

Sources, read 2026-11-26:

* EC2 User Guide, "How Capacity Blocks work" (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/
  capacity-blocks-how.html; read in its machine-translated German edition, the English text was not in reach here):
  for UltraServers each UltraServer is one Capacity Block, and one request may ask for several UltraServers.
* EC2 API, DescribeCapacityBlockOfferings (botocore 1.44.8 ``ec2/2016-11-15`` model, the pinned botocore):
  ``UltraserverType`` and ``UltraserverCount`` ask for offerings of whole UltraServers; ``InstanceCount``
  "Each Capacity Block can have up to 64 instances".
* The instances per unit (9 or 18 ``p6e-gb200.36xlarge``, 4 ``trn2u.48xlarge``) are catalog/ultraservers.py's,
  with its sources.

Decided here: a block of whole units holds a multiple of the smallest unit's instances (18 = 2 x 9), and a group that
launches into it is sized in whole units too: a ``maxSize`` or ``desiredSize`` of part of a unit leaves instances of
a unit that was paid for idle, and a job kept inside one unit (launch/ultraserver.py) cannot count on a part.
``desiredSize`` 0 is allowed (zero units). Whether one reservation id of a multi-unit purchase holds one unit or all of
them is not in the pages read; the rule does not depend on it.

And one EKS rule that no stack file value can follow (Amazon EKS User Guide, https://docs.aws.amazon.com/eks/latest/
userguide/ml-eks-nvidia-ultraserver.html, read 2026-11-26): "When upgrading EKS managed node groups with P6e-GB200
UltraServers, you must set the desired size of the node group to 0 before upgrading". trainstack does not scale the
group to zero itself: that would terminate every running node of the group on any ``pulumi up`` that rolls it, and a
DRA group keeps ``minSize`` at least 1 (config/checks/device_allocation.py), so the stack says it in the plan as a
warning (``upgrade_warning``) and leaves the step to the operator.
"""

from __future__ import annotations

from typing import Optional

from ..catalog.ultraservers import needs_compute_domain, smallest_unit
from .base import ConfigValueError


def check_block_units(instance_type: str, *, instance_count: int, desired_size: int, max_size: int) -> None:
    """Refuse a capacity block of ``instance_type`` (an UltraServer type) or a group on it that is not a whole number
    of units; a type sold alone passes."""
    unit = smallest_unit(instance_type)
    if unit is None:
        return
    size = unit.instances
    if instance_count % size:
        raise ConfigValueError(
            f"{instance_type} Capacity Blocks are sold as whole UltraServers of {size} instances ({unit.name}), so a "
            f"block holds a multiple of {size}, not {instance_count}.",
            fix=f"set instanceCount to the instances the block holds, a multiple of {size} "
            "(aws ec2 describe-capacity-reservations).",
            path=("capacity", "instanceCount"), value=instance_count)
    for key, value in (("maxSize", max_size), ("desiredSize", desired_size)):
        if value % size:
            whole = max(size, value // size * size)
            raise ConfigValueError(
                f"{key} {value} is part of an UltraServer: {instance_type} runs in whole units of {size} instances "
                f"({unit.name}), and a part leaves paid instances idle.",
                fix=f"set {key} to a multiple of {size} (e.g. {whole}), at most instanceCount {instance_count}.",
                path=(key,), value=value)


def upgrade_warning(group_name: str, instance_type: str, autoscaler: str) -> Optional[str]:
    """The plan's warning for a managed node group of P6e-GB200 UltraServers: scale it to zero before an upgrade."""
    if not needs_compute_domain(instance_type) or autoscaler != "cluster-autoscaler":
        return None
    return (f"nodeGroups.{group_name}: EKS requires a managed node group of P6e-GB200 UltraServers to be scaled to "
            "desired size 0 before it is upgraded (a new Kubernetes version or AMI release); trainstack does not do "
            "it, since that stops every job on the group, and a DRA group's minSize stays at least 1 in the stack "
            "file. Before the `pulumi up` that upgrades it, drain the jobs and set the group's minimum and desired "
            "size to 0 (aws eks update-nodegroup-config --scaling-config minSize=0,desiredSize=0,maxSize=<max>), then "
            "back after (EKS User Guide, ml-eks-nvidia-ultraserver).")
