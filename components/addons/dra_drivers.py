"""DRA drivers for the groups with ``deviceAllocation: dra``, each scheduled only on those groups' nodes.

* The NVIDIA DRA driver for GPUs publishes each GPU as a device of DeviceClass ``gpu.nvidia.com``. GPU
  allocation is switched on with ``resources.gpus.enabled`` and, because the driver refuses to share a node
  with the NVIDIA device plugin, the chart demands ``gpuResourcesEnabledOverride: true`` to confirm no plugin
  runs there (dra-driver-nvidia-gpu 0.4.1 ``templates/validation.yaml``); trainstack keeps the device plugin
  off these nodes (they carry no ``nvidia.com/gpu.present`` label). ComputeDomains (multi-node NVLink, IMEX)
  are switched on only where a group needs them: the NVSwitch-fabric UltraServers (p6e-gb200). The EKS
  AL2023 NVIDIA AMI installs the driver on the host, so ``nvidiaDriverRoot`` is ``/`` (the chart's default,
  written down so a chart upgrade cannot move it). Values: Amazon EKS User Guide,
  device-management-nvidia-dra-device-plugin (read 2026-11-26).
* aws-dranet publishes EFA interfaces as devices of DeviceClass ``efa.networking.k8s.aws`` (driver
  ``dra.net``); its chart already limits itself to EFA instance types (``supportedInstanceLabels``), and
  trainstack narrows it to DRA nodes, so it never races the EFA device plugin for a device. Its image comes
  from the stack's region's Amazon EKS registry, as the EFA device plugin's does (the chart's default is
  us-west-2's: aws/eks-charts stable/aws-dranet/values.yaml @b4e9338).
* The Neuron DRA driver publishes each Neuron device as a device of DeviceClass ``neuron.aws.com`` (driver
  ``neuron.aws.com``). It ships in the Neuron chart trainstack already pins (1.9.0), whose validation refuses
  ``draDriver.enabled`` beside ``devicePlugin.enabled`` or ``scheduler.enabled`` in one release
  (``templates/_helpers.tpl``, ``neuron-helm-chart.validateConfig``), so it is a release of its own with only the
  driver on. Its kubelet plugin selects the DRA Neuron groups' nodes, which carry no
  ``aws.amazon.com/neuron.present`` label and so never run the device plugin: EKS says the two "cannot coexist on
  the same node" (device-management-neuron.html, read 2026-11-26). The chart's own affinity (Trainium instance
  types, no Fargate, hybrid or Auto Mode nodes) stays; the node-problem detector stays off, as in the device
  plugin's release.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from ..catalog import AcceleratorKind
from ..catalog.addons import AWS_DRANET, NEURON_DRA_DRIVER, NVIDIA_DRA_DRIVER
from ..catalog.image_registries import eks_registry
from ..helm import helm_release
from ..names import ACCELERATOR_LABEL, DEVICE_ALLOCATION_LABEL
from .device_plugins import GPU_TOLERATION, HYPERPOD_HEALTH_TOLERATION, NEURON_TOLERATION, tolerations

DRANET_IMAGE = "eks/dranet"
"""aws-dranet's repository in each region's Amazon EKS registry (the chart's values.yaml)."""
DRA_NODES = {DEVICE_ALLOCATION_LABEL: "dra"}


def nvidia_dra_driver(name: str, *, compute_domains: bool, system_node_selector: dict[str, str],
                      provider: k8s.Provider, parent: pulumi.Resource, depends_on: list[pulumi.Resource],
                      group_taints: Sequence[Mapping[str, Any]] = ()) -> k8s.helm.v3.Release:
    """The NVIDIA DRA driver's release in kube-system: its kubelet plugin on the DRA GPU groups' nodes, its
    controller (ComputeDomains) on the system nodes."""
    gpu_nodes = {**DRA_NODES, ACCELERATOR_LABEL: "nvidia-gpu"}
    # The chart's kubelet plugin requires Node Feature Discovery's or the GPU Operator's labels (its
    # kubeletPlugin.affinity; values.yaml, kubernetes-sigs/dra-driver-nvidia-gpu @0f5a1bc, read 2026-11-26).
    # EKS nodes carry neither, so the affinity is replaced by trainstack's own labels.
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}
                              for key, value in sorted(gpu_nodes.items())]}]}}}
    values = {
        "nvidiaDriverRoot": "/",
        "gpuResourcesEnabledOverride": True,
        "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": compute_domains}},
        "kubeletPlugin": {"nodeSelector": gpu_nodes, "affinity": affinity,
                          "tolerations": tolerations(GPU_TOLERATION, HYPERPOD_HEALTH_TOLERATION,
                                                     group_taints=group_taints)},
        "controller": {"nodeSelector": dict(system_node_selector)},
    }
    return helm_release(f"{name}-nvidia-dra-driver", NVIDIA_DRA_DRIVER, namespace="kube-system",
                        provider=provider, parent=parent, depends_on=depends_on, values=values)


def aws_dranet(name: str, *, region: str, provider: k8s.Provider, parent: pulumi.Resource,
               depends_on: list[pulumi.Resource],
               group_taints: Sequence[Mapping[str, Any]] = ()) -> k8s.helm.v3.Release:
    """aws-dranet's release in kube-system: EFA interfaces as DRA devices on the DRA groups' EFA nodes."""
    values = {
        "image": {"repository": f"{eks_registry(region).host}/{DRANET_IMAGE}"},
        "nodeSelector": dict(DRA_NODES),
        "tolerations": tolerations(GPU_TOLERATION, NEURON_TOLERATION, HYPERPOD_HEALTH_TOLERATION,
                                   group_taints=group_taints),
    }
    return helm_release(f"{name}-aws-dranet", AWS_DRANET, namespace="kube-system", provider=provider,
                        parent=parent, depends_on=depends_on, values=values)


def neuron_dra_driver(name: str, *, provider: k8s.Provider, parent: pulumi.Resource,
                      depends_on: list[pulumi.Resource],
                      group_taints: Sequence[Mapping[str, Any]] = ()) -> k8s.helm.v3.Release:
    """The Neuron chart's DRA driver alone (device plugin, scheduler and node-problem detector off) in kube-system:
    its kubelet plugin on the DRA Neuron groups' nodes. The chart puts the DaemonSet in its own namespace
    (``draDriver.namespaceOverride``, ``neuron-dra-driver``, which it creates)."""
    neuron_nodes = {**DRA_NODES, ACCELERATOR_LABEL: AcceleratorKind.NEURON.value}
    values = {
        "devicePlugin": {"enabled": False},
        "scheduler": {"enabled": False},
        "npd": {"enabled": False},
        "draDriver": {"enabled": True, "nodeSelector": neuron_nodes,
                      "tolerations": tolerations(NEURON_TOLERATION, HYPERPOD_HEALTH_TOLERATION,
                                                 {"key": "CriticalAddonsOnly", "operator": "Exists"},
                                                 group_taints=group_taints)},
    }
    return helm_release(f"{name}-neuron-dra-driver", NEURON_DRA_DRIVER, namespace="kube-system",
                        provider=provider, parent=parent, depends_on=depends_on, values=values)
