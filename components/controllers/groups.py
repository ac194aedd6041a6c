"""A node group as the autoscalers' models see it: the type the Cluster Autoscaler's managed node groups
(``cluster_autoscaler.py``) and Karpenter's pools (``karpenter.py``) are both read into, so that each judges the
other's groups without importing it."""

from __future__ import annotations

from dataclasses import dataclass

from .. import catalog
from ..policy.model import Resource
from .scheduling import Taint


@dataclass(frozen=True)
class ManagedGroup:
    """One managed node group as the plan renders it, with what its nodes and ASG carry."""

    resource: Resource
    name: str
    """The group's trainstack name (its ``trainstack.io/node-group`` label)."""
    instance: catalog.InstanceType
    min_size: int
    labels: dict[str, str]
    taints: list[Taint]
    asg_tags: dict[str, str]
    zone: str | None
    max_pods: int | None
    """The kubelet's maxPods from the launch template's NodeConfig; None when it sets none."""
    efa_interfaces: int
    """EFA interfaces (``efa`` or ``efa-only``) the launch template attaches."""
