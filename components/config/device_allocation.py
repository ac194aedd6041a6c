"""A node group's device-allocation profile (``deviceAllocation``): device plugins or DRA, and where DRA is refused.

The facts (which families need DRA, the least Kubernetes version, the device classes) live in
``catalog/device_allocation.py``; this module only checks a group's settings against them, before any
resource is registered. The cluster's Kubernetes version needs no check per group: every version a new
cluster may use (``config/cluster.py``) is 1.34 or later, where ``resource.k8s.io/v1`` is GA;
``tests/config/test_device_allocation.py`` fails if a version without DRA is offered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from ..catalog import AcceleratorKind
from ..catalog.device_allocation import DRA_ONLY_FAMILIES
from .base import ConfigValueError

if TYPE_CHECKING:
    from .nodegroups import NodeGroupConfig

DeviceAllocation = Literal["device-plugins", "dra"]


def check_group(group: NodeGroupConfig) -> None:
    """What a group's profile asks of its own settings: DRA-only families on DRA; DRA on a group its
    autoscaler can provision for claims."""
    family = group.instance_type.split(".")[0]
    if group.device_allocation == "device-plugins" and family in DRA_ONLY_FAMILIES:
        raise ConfigValueError(
            f"{group.instance_type} cannot run on device plugins: {DRA_ONLY_FAMILIES[family]}.",
            fix="set deviceAllocation: dra on this group.", path=("deviceAllocation",), value=group.device_allocation)
    if group.device_allocation != "dra":
        return
    if group.accelerator.kind is not AcceleratorKind.GPU:
        # EKS documents the Neuron DRA driver (device-management-neuron.html), shipped in the same Neuron chart
        # trainstack pins (1.9.0, ``draDriver``); its values there were not read, so trainstack does not install it.
        raise ConfigValueError(
            f"{group.instance_type}: trainstack installs DRA drivers for NVIDIA GPUs and EFA only; the Neuron DRA "
            "driver of the pinned Neuron chart is not installed yet.",
            fix="set deviceAllocation: device-plugins on this Neuron group.", path=("deviceAllocation",), value="dra")
    if group.autoscaler == "karpenter":
        # EKS: DRA drivers with Karpenter only on static capacity; trainstack's Karpenter groups are
        # dynamic pools (device-management-nvidia-dra-device-plugin.html, read 2026-11-26).
        raise ConfigValueError(
            "a group with autoscaler: karpenter is a dynamic Karpenter pool, and EKS supports DRA drivers with "
            "Karpenter only on static capacity (device plugins remain the way for dynamic pools).",
            fix="set deviceAllocation: device-plugins, or autoscaler: cluster-autoscaler.",
            path=("deviceAllocation",), value="dra")
    if group.min_size < 1:
        # The Cluster Autoscaler builds a group's template node from its ASG tags when the group has no
        # node; the AWS provider has no way to give that template ResourceSlices (only the clusterapi
        # provider does: kubernetes/autoscaler #7724, #7804), so a pending pod with a ResourceClaim never
        # scales a DRA group up from zero. With one node up, it copies that node's slices.
        raise ConfigValueError(
            "a DRA group must keep a node up: the Cluster Autoscaler cannot scale a group from zero for pods "
            "with ResourceClaims (its AWS provider makes no ResourceSlices for a template node).",
            fix="set minSize to at least 1 (and desiredSize with it), or deviceAllocation: device-plugins.",
            path=("minSize",), value=group.min_size)

