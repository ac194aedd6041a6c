"""The checks of a node group's device-allocation profile (``nodeGroups[].deviceAllocation``,
config/device_allocation.py): device plugins or DRA, and where DRA is refused.

The facts (which families need DRA, the least Kubernetes version, the device classes) live in
``catalog/device_allocation.py``; this module only checks a group's settings against them, before any
resource is registered. The cluster's Kubernetes version needs no check per group: every version a new
cluster may use (``config/cluster.py``) is 1.34 or later, where ``resource.k8s.io/v1`` is GA;
``tests/config/test_device_allocation.py`` fails if a version without DRA is offered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...catalog import AcceleratorKind, neuron_dra
from ...catalog.device_allocation import DRA_ONLY_FAMILIES
from ..base import ConfigValueError

if TYPE_CHECKING:
    from ..group_view import GroupView


def check_device_allocation(group: GroupView) -> None:
    """What a group's profile asks of its own settings: DRA-only families on DRA; DRA on a group its
    autoscaler can provision for claims, and, on Neuron, on a type the Neuron DRA driver runs on. The same checks
    hold for GPU and Neuron groups: EKS gives both drivers Kubernetes 1.34, no dynamic Karpenter pools, managed or
    self-managed nodes (device-management-nvidia-dra-device-plugin.html, device-management-neuron.html, read
    2026-11-26). A Neuron DRA group may share the cluster with Neuron groups on the device plugin: the Neuron docs'
    FAQ and EKS forbid only one node running both (catalog/neuron_dra.py)."""
    family = group.instance_type.split(".")[0]
    if group.device_allocation == "device-plugins" and family in DRA_ONLY_FAMILIES:
        raise ConfigValueError(
            f"{group.instance_type} cannot run on device plugins: {DRA_ONLY_FAMILIES[family]}.",
            fix="set deviceAllocation: dra on this group.", path=("deviceAllocation",), value=group.device_allocation)
    if group.device_allocation != "dra":
        return
    if group.accelerator.kind is AcceleratorKind.NEURON and not neuron_dra.runs_on(group.instance_type):
        # The pinned Neuron chart keeps its DRA driver off every inf type (neuron_dra.py says where sources differ).
        raise ConfigValueError(
            f"{group.instance_type}: the Neuron DRA driver of the pinned Neuron chart (1.9.0) runs on Trainium "
            "(trn) nodes only, so no driver would publish this group's Neuron devices.",
            fix="set deviceAllocation: device-plugins on this group.", path=("deviceAllocation",), value="dra")
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
        # scales a DRA group up from zero. With one node up, it copies that node's slices, once its DRA
        # handling is on (cluster/autoscaler.py turns it on where the pinned chart leaves it off:
        # catalog/autoscaler_dra.py).
        raise ConfigValueError(
            "a DRA group must keep a node up: the Cluster Autoscaler cannot scale a group from zero for pods "
            "with ResourceClaims (its AWS provider makes no ResourceSlices for a template node).",
            fix="set minSize to at least 1 (and desiredSize with it), or deviceAllocation: device-plugins.",
            path=("minSize",), value=group.min_size)

