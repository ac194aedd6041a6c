"""The nodes the plan runs, as the overview says them: how many, of which instance type, with how many
accelerators.

At frontier size the overview's node group boxes are many alike groups (frontier-p5: eight managed node
groups of 256 p5.48xlarge, one pool over four reservations); the reader needs the cluster's size said once
above the figure, and each box to say its own nodes, not to add them up from costs. The counts are the
managed node groups' scaling config (desired size, as the boxes' cost is; max size where it is larger) and
the HyperPod instance groups' instance counts; the accelerators are the catalog's per instance.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import catalog
from ..catalog.model import Accelerator, AcceleratorKind
from ..names import HYPERPOD_CLUSTER, NODE_GROUP
from .groups import Component
from .numbers import counted


@dataclass(frozen=True)
class Nodes:
    """A group's nodes: its instance type and its desired and max sizes."""
    instance_type: str
    desired: int
    maximum: int
    kind: str = "node group"
    """``node group`` (EKS managed) or ``HyperPod instance group``."""

    def said(self) -> str:
        """``256 p5.48xlarge``; ``2 p5.48xlarge (up to 16)`` where the group can grow."""
        grows = f" (up to {self.maximum:,})" if self.maximum > self.desired else ""
        return f"{self.desired:,} {self.instance_type}{grows}"


def nodes(component: Component) -> Nodes | None:
    """The nodes of a node group's box (the EKS managed node group it holds); None for any other box."""
    group = next((r for r in component.resources if r.type == NODE_GROUP), None)
    if component.part != "node groups" or group is None:
        return None
    scaling = group.inputs.get("scalingConfig") or {}
    instance_type = (group.inputs.get("instanceTypes") or ["unknown type"])[0]
    return Nodes(instance_type, int(scaling.get("desiredSize") or 0), int(scaling.get("maxSize") or 0))


def _instance_groups(components: list[Component]) -> list[Nodes]:
    """The HyperPod clusters' instance groups: each runs its ``instanceCount`` (no desired and max size)."""
    return [Nodes(group.get("instanceType") or "unknown type", int(group.get("instanceCount") or 0),
                  int(group.get("instanceCount") or 0), "HyperPod instance group")
            for component in components for r in component.resources if r.type == HYPERPOD_CLUSTER
            for group in r.inputs.get("instanceGroups") or []]


def fleet(components: list[Component]) -> str:
    """The overview's first words: ``2,051 nodes at desired size (2,052 at max) in 9 node groups: 2,048
    p5.48xlarge with 16,384 H100 GPUs (8 groups of 256), 3 c5.2xlarge (up to 4).``; "" where the plan makes
    no nodes (an existing cluster's groups are made elsewhere)."""
    groups = [found for found in map(nodes, components) if found is not None] + _instance_groups(components)
    if not groups:
        return ""
    desired, maximum = sum(g.desired for g in groups), sum(g.maximum for g in groups)
    by_type: dict[str, list[Nodes]] = {}
    for group in groups:
        by_type.setdefault(group.instance_type, []).append(group)
    # The accelerated types first, the largest first: where the money and the jobs are.
    kinds = sorted(by_type.items(), key=lambda item: (_device(item[0]) is None, -sum(g.maximum for g in item[1]),
                                                      item[0]))
    at_max = f" ({maximum:,} at max)" if maximum > desired else ""
    held = " and ".join(counted(sum(1 for g in groups if g.kind == kind), kind)
                        for kind in dict.fromkeys(g.kind for g in groups))
    return (f"{desired:,} node{'s' * (desired != 1)} at desired size{at_max} in {held}: "
            + ", ".join(_of_type(name, alike) for name, alike in kinds) + ".")


def _device(instance_type: str) -> Accelerator | None:
    found = catalog.find_hyperpod(instance_type)
    return found.accelerator if found is not None else None


def _of_type(instance_type: str, groups: list[Nodes]) -> str:
    """``2,048 p5.48xlarge with 16,384 H100 GPUs (8 groups of 256)``; ``2 c5.2xlarge (up to 4)``."""
    desired, maximum = sum(g.desired for g in groups), sum(g.maximum for g in groups)
    said = f"{desired:,} {instance_type}" + (f" (up to {maximum:,})" if maximum > desired else "")
    device = _device(instance_type)
    if device is not None and desired:
        noun = "GPU" if device.kind is AcceleratorKind.GPU else "chip"
        count = desired * device.count
        said += f" with {count:,} {device.name} {noun}{'s' * (count != 1)}"
    sizes = {g.desired for g in groups}
    if len(groups) > 1:
        said += f" ({counted(len(groups), 'group')}" + (f" of {sizes.pop():,})" if len(sizes) == 1 else ")")
    return said
