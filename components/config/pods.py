"""Pods per node: what the node's interfaces allow, capped by what EKS recommends.

Two numbers bound the kubelet's ``maxPods``:

* the layout's ceiling: the pod IPs the ENIs left on network card 0 can hold once
  the EFA layout has taken its slots there (``catalog.efa_layout.max_pods``;
  688 on p4de.24xlarge with EFA);
* the EKS recommendation: 110 pods, or 250 on instances with more than 30 vCPUs.
  The EKS max-pods calculator (``max-pods-calculator.sh``, shipped with the EKS
  user guide, "Choosing an Amazon EC2 instance type") applies this cap to the
  IP-derived number (``MAX_POD_CEILING_FOR_LOW_CPU=110``,
  ``MAX_POD_CEILING_FOR_HIGH_CPU=250``, high when ``CpuCount > 30``); the AL2023
  nodeadm default does not, which is why a node left to nodeadm gets 737.

A group runs the smaller of the two unless it sets ``maxPods`` itself; its own
value may exceed the recommendation but never the ceiling, where pods beyond the
ENIs' addresses would be scheduled and then never get an IP.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Optional

from .. import catalog
from ..catalog.efa_layout import layout_for, max_pods
from .base import ConfigValueError

EKS_RECOMMENDED_MAX_PODS = 110
EKS_RECOMMENDED_MAX_PODS_LARGE = 250
LARGE_ABOVE_VCPUS = 30


@dataclass(frozen=True)
class PodsPerNode:
    """The kubelet's maxPods for a group, and where it comes from."""

    value: int
    ceiling: int
    """Pods the ENIs left on card 0 can give an IP to."""
    recommended: int
    """The EKS recommendation for the type's vCPUs."""
    source: Literal["default", "group setting"]

    def describe(self) -> str:
        if self.source == "group setting":
            return f"{self.value} (group setting; layout ceiling {self.ceiling}, EKS recommendation {self.recommended})"
        return f"{self.value} (smaller of layout ceiling {self.ceiling} and EKS recommendation {self.recommended})"


def recommended_max_pods(instance: catalog.InstanceType) -> int:
    vcpus = instance.require("vCPUs", instance.vcpus, "apply the EKS max-pods recommendation")
    return EKS_RECOMMENDED_MAX_PODS_LARGE if vcpus > LARGE_ABOVE_VCPUS else EKS_RECOMMENDED_MAX_PODS


def layout_ceiling(instance: catalog.InstanceType, efa: bool) -> int:
    return max_pods(instance, layout_for(instance, efa))


def pods_per_node(instance_type: str, efa: bool, own: Optional[int]) -> PodsPerNode:
    """maxPods for nodes of ``instance_type``; ``own`` is the group's own setting, if any.

    Raises :class:`ConfigValueError` (path ``maxPods``) when ``own`` exceeds the ceiling,
    and when the catalog lacks a fact the numbers need.
    """
    instance = catalog.get(instance_type)
    try:
        ceiling = layout_ceiling(instance, efa)
        recommended = recommended_max_pods(instance)
    except catalog.UnknownFactError as error:
        raise ConfigValueError(f"{error} Its pods per node cannot be sized.",
                               fix="use an instance type whose network facts are in the catalog.",
                               path=("instanceType",), value=instance_type) from None
    if own is None:
        return PodsPerNode(min(ceiling, recommended), ceiling, recommended, "default")
    if own > ceiling:
        layout = "with its EFA interfaces" if efa else "without EFA"
        raise ConfigValueError(
            f"{instance_type} {layout} can give pod IPs to at most {ceiling} pods (the ENIs left on network "
            f"card 0); maxPods {own} would let the scheduler place pods that never get an address.",
            fix=f"set maxPods to at most {ceiling}, or remove it for the default "
            f"({min(ceiling, recommended)}, the EKS recommendation for {instance.vcpus} vCPUs capped by the layout).",
            path=("maxPods",), value=own)
    return PodsPerNode(own, ceiling, recommended, "group setting")
