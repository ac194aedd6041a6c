"""How an accelerated node's devices reach its pods: device plugins or Dynamic Resource Allocation.

Two profiles, one per accelerated group:

* ``device-plugins`` (trainstack's default): each device plugin advertises an integer extended
  resource (``nvidia.com/gpu``, ``aws.amazon.com/neuron``, ``vpc.amazonaws.com/efa``) and pods request
  counts of it.
* ``dra``: each DRA driver publishes the node's devices as ResourceSlices; a pod names a
  ResourceClaim (made from a ResourceClaimTemplate) whose requests name a DeviceClass and a count.

What EKS says, and where (Amazon EKS User Guide, read 2026-11-26):

* "We recommend using the NVIDIA DRA driver for new deployments with Kubernetes versions 1.34 and
  later when using static capacity provisioning in Karpenter, EKS managed node groups, or
  self-managed nodes. The NVIDIA DRA driver is not currently supported with EKS Auto Mode. Use the
  NVIDIA device plugin with EKS Auto Mode, or with Karpenter when you use dynamic capacity
  provisioning." (https://docs.aws.amazon.com/eks/latest/userguide/device-management-nvidia-dra-device-plugin.html;
  minimum Kubernetes version 1.34 in its comparison table.) The Neuron and EFA pages say the same of
  their DRA drivers (device-management-neuron.html, device-management-efa.html).
* P6e-GB200 UltraServers need DRA: multi-node NVLink (IMEX) is handed out through the NVIDIA DRA
  driver's ComputeDomains, and "Karpenter or EKS Auto Mode do not support DRA"; use managed or
  self-managed node groups (https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-nvidia-ultraserver.html).

The DeviceClass names are the ones each driver installs: ``gpu.nvidia.com`` and
``compute-domain-default-channel.nvidia.com`` (NVIDIA DRA driver), ``neuron.aws.com`` (Neuron DRA
driver), ``efa.networking.k8s.aws`` (aws-dranet, driver ``dra.net``); the EKS pages above list them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .addons import minor
from .model import AcceleratorKind

Profile = Literal["device-plugins", "dra"]
PROFILES: tuple[Profile, ...] = ("device-plugins", "dra")

DRA_MINIMUM_KUBERNETES = "1.34"
"""``resource.k8s.io/v1`` is GA from Kubernetes 1.34, and EKS's device-management pages name 1.34 as the
least version for each DRA driver."""

RESOURCE_API_VERSION = "resource.k8s.io/v1"
"""The DRA API group's GA version (Kubernetes 1.34): ResourceClaimTemplate, ResourceClaim, DeviceClass."""


@dataclass(frozen=True)
class DraDevice:
    """One kind of device as a DRA driver publishes it."""

    device_class: str
    """The DeviceClass a claim's request names."""
    driver: str
    """The driver name its ResourceSlices carry."""
    source: str


GPU = DraDevice("gpu.nvidia.com", "gpu.nvidia.com",
                "EKS User Guide device-management-nvidia-dra-device-plugin (read 2026-11-26)")
NEURON = DraDevice("neuron.aws.com", "neuron.aws.com",
                   "EKS User Guide device-management-neuron (read 2026-11-26); aws-neuron/neuron-helm-charts "
                   "templates/dra-driver/dra-driver-deviceclass.yaml @97e1b7d: DeviceClass neuron.aws.com selects "
                   "device.driver == \"neuron.aws.com\" (read 2026-11-26)")
EFA = DraDevice("efa.networking.k8s.aws", "dra.net",
                "EKS User Guide device-management-efa; aws/eks-charts stable/aws-dranet/templates/deviceclass.yaml "
                "@79203dc (read 2026-11-26)")
COMPUTE_DOMAIN_CHANNEL = DraDevice(
    "compute-domain-default-channel.nvidia.com", "compute-domain.nvidia.com",
    "NVIDIA DRA Driver for GPUs, ComputeDomains (docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/"
    "dra-cds.html, read 2026-11-26)")

ACCELERATORS: dict[AcceleratorKind, DraDevice] = {AcceleratorKind.GPU: GPU, AcceleratorKind.NEURON: NEURON}

DRA_ONLY_FAMILIES: dict[str, str] = {
    "p6e-gb200": "EKS runs P6e-GB200 UltraServers with DRA only: their multi-node NVLink (IMEX) domain is "
                 "handed out through the NVIDIA DRA driver's ComputeDomains (EKS User Guide, "
                 "ml-eks-nvidia-ultraserver, read 2026-11-26)",
}
"""Families whose nodes cannot be used through device plugins, with the reason."""


def supports_dra(kubernetes_version: str) -> bool:
    """Whether a cluster of this Kubernetes version can run the DRA drivers (1.34 or later)."""
    return minor(kubernetes_version) >= minor(DRA_MINIMUM_KUBERNETES)


def accelerator_device(kind: AcceleratorKind) -> DraDevice:
    """The DRA device class of an accelerator kind."""
    return ACCELERATORS[kind]
