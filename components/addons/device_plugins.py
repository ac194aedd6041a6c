"""Device plugins for GPU and EFA nodes, each scheduled only where its devices are.

* NVIDIA device plugin (``nvidia.com/gpu``): the AL2023 NVIDIA AMI ships the
  driver but not the plugin. MOFED is set off: from v0.19.0 the plugin mounted
  ``/dev/infiniband`` into GPU pods, which collides with the EFA plugin's devices
  (EKS user guide, device-management-efa). v0.19.3 reverted that default; the
  value is set anyway so a chart upgrade cannot bring it back silently.
* EFA device plugin (``vpc.amazonaws.com/efa``): 0.5.10 or later, since older
  releases count p6-b200's two NVLink ``ibp*`` devices as EFA (10 instead of 8).
  It crash-loops on nodes without EFA devices, so it selects EFA nodes only.
* Neuron device plugin (``aws.amazon.com/neuron``, ``aws.amazon.com/neuroncore``)
  and the Neuron scheduler extension, from the official Neuron chart. The plugin
  runs on Trainium nodes only; the extension is a scheduler, so it runs on system
  nodes. It places multi-device pods on connected devices (trn1 containers take
  1, 4, 8 or 16 devices); EKS cannot extend its default scheduler, so Neuron pods
  set ``schedulerName: my-scheduler`` (the chart's custom scheduler).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from ..catalog.addons import EFA_DEVICE_PLUGIN, NEURON_CHART, NEURON_SCHEDULER_IMAGES, NVIDIA_DEVICE_PLUGIN
from ..catalog.image_registries import eks_registry
from ..helm import Chart, helm_release
from ..names import EFA_PRESENT_LABEL, GPU_PRESENT_LABEL, GPU_TAINT, NEURON_PRESENT_LABEL, NEURON_TAINT

EFA_DEVICE_PLUGIN_IMAGE = "eks/aws-efa-k8s-device-plugin"
"""The plugin's repository in each region's Amazon EKS registry (the chart's values.yaml)."""
NEURON_SCHEDULER_NAME = "my-scheduler"
"""The scheduler Neuron pods name in ``schedulerName`` (the chart's custom kube-scheduler)."""

# HyperPod taints nodes while its deep health checks run; the checks need the devices,
# so device plugins must keep running there.
HYPERPOD_HEALTH_TOLERATION = {"key": "sagemaker.amazonaws.com/node-health-status", "operator": "Equal",
                              "value": "Unschedulable", "effect": "NoSchedule"}
GPU_TOLERATION = {"key": GPU_TAINT["key"], "operator": "Exists", "effect": "NoSchedule"}
NEURON_TOLERATION = {"key": NEURON_TAINT["key"], "operator": "Exists", "effect": "NoSchedule"}


def tolerations(*known: dict, group_taints: Sequence[Mapping[str, Any]] = ()) -> list[dict]:
    """``known`` and one toleration per other taint of the groups a plugin serves (``nodeGroups[].taints``):
    a device plugin kept off a node by a taint leaves its devices unadvertised, and no job lands there."""
    result = list(known)
    for taint in group_taints:
        toleration = {"key": taint["key"], "operator": "Exists", "effect": taint["effect"]}
        if not any(t["key"] == taint["key"] and t.get("effect") in (None, taint["effect"]) for t in result):
            result.append(toleration)
    return result


def _in_kube_system(release: str, chart: Chart, values: dict, *, provider: k8s.Provider, parent: pulumi.Resource,
                    depends_on: list[pulumi.Resource]) -> k8s.helm.v3.Release:
    """A device plugin's release in kube-system (helm_release cuts a long name to Helm's 53 characters)."""
    return helm_release(release, chart, namespace="kube-system", provider=provider, parent=parent,
                        depends_on=depends_on, values=values)


def nvidia_device_plugin(name: str, *, provider: k8s.Provider, parent: pulumi.Resource,
                         depends_on: list[pulumi.Resource],
                         group_taints: Sequence[Mapping[str, Any]] = ()) -> k8s.helm.v3.Release:
    values = {
        "mofedEnabled": False,
        "nodeSelector": {GPU_PRESENT_LABEL: "true"},
        "tolerations": tolerations(GPU_TOLERATION, HYPERPOD_HEALTH_TOLERATION, group_taints=group_taints),
        "gfd": {"enabled": False},
    }
    return _in_kube_system(f"{name}-nvidia-device-plugin", NVIDIA_DEVICE_PLUGIN, values, provider=provider,
                           parent=parent, depends_on=depends_on)


def efa_device_plugin(name: str, *, region: str, provider: k8s.Provider, parent: pulumi.Resource,
                      depends_on: list[pulumi.Resource],
                      group_taints: Sequence[Mapping[str, Any]] = ()) -> k8s.helm.v3.Release:
    tolerated = tolerations(GPU_TOLERATION, NEURON_TOLERATION, HYPERPOD_HEALTH_TOLERATION, group_taints=group_taints)
    # The chart's default image is us-west-2's EKS registry (aws/eks-charts
    # stable/aws-efa-k8s-device-plugin/values.yaml@050f81ee), which regions with a registry of
    # their own (opt-in regions, China, GovCloud) cannot pull from: the stack's region's instead.
    image = {"repository": f"{eks_registry(region).host}/{EFA_DEVICE_PLUGIN_IMAGE}"}
    return _in_kube_system(f"{name}-efa-device-plugin", EFA_DEVICE_PLUGIN,
                           {"image": image, "nodeSelector": {EFA_PRESENT_LABEL: "true"}, "tolerations": tolerated},
                           provider=provider, parent=parent, depends_on=depends_on)


def neuron_device_plugin(name: str, *, kubernetes_version: str, system_node_selector: dict[str, str],
                         provider: k8s.Provider, parent: pulumi.Resource, depends_on: list[pulumi.Resource],
                         group_taints: Sequence[Mapping[str, Any]] = ()) -> k8s.helm.v3.Release:
    repository, tag = NEURON_SCHEDULER_IMAGES[kubernetes_version]
    return _in_kube_system(
        f"{name}-neuron", NEURON_CHART, provider=provider, parent=parent, depends_on=depends_on,
        values={
            "devicePlugin": {
                "enabled": True,
                "nodeSelector": {NEURON_PRESENT_LABEL: "true"},
                "tolerations": tolerations(NEURON_TOLERATION, HYPERPOD_HEALTH_TOLERATION,
                                           {"key": "CriticalAddonsOnly", "operator": "Exists"},
                                           group_taints=group_taints),
            },
            "scheduler": {
                "enabled": True,
                "nodeSelector": system_node_selector,
                "customScheduler": {"enabled": True, "fullnameOverride": NEURON_SCHEDULER_NAME,
                                    "image": {"repository": repository, "tag": tag},
                                    "nodeSelector": system_node_selector},
            },
            # Node health comes from the EKS node monitoring agent (observability), not a second detector.
            "npd": {"enabled": False},
            "draDriver": {"enabled": False},
        })
