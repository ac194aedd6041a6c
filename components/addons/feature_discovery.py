"""NVIDIA GPU Feature Discovery (GFD) on the groups whose UltraServer label only GFD sets: the P6e-GB200 DRA groups.

Why: the launchers keep a GB200 job inside one UltraServer with a required pod affinity on ``nvidia.com/gpu.clique``
(launch/ultraserver.py), and EKS lists GFD, with Node Feature Discovery (NFD) as its "required dependency", among the
components to run on P6e-GB200 nodes: GFD "applies an NVIDIA standard topology label called
``nvidia.com/gpu.clique``" (Amazon EKS User Guide, https://docs.aws.amazon.com/eks/latest/userguide/
ml-eks-nvidia-ultraserver.html, "Components", read 2026-11-26). Without it the label never appears and such a
job stays Pending.

Which chart: EKS's procedure installs the NVIDIA GPU Operator (driver and toolkit off) to manage the device plugin,
NFD and GFD, but calls the operator optional ("You can optionally use the NVIDIA GPU operator"). trainstack takes
NVIDIA's documented standalone GFD instead: the device-plugin chart it already pins (nvidia-device-plugin 0.20.0)
with ``devicePlugin.enabled: false`` (NVIDIA/k8s-device-plugin v0.20.0 README, "Deploying gpu-feature-discovery in
standalone mode", read 2026-11-26). One pinned chart, no operator and no ClusterPolicy, and no device plugin on
these nodes, which the NVIDIA DRA driver refuses to share a node with (addons/dra_drivers.py).

Values, each from the chart at v0.20.0 (deployments/helm/nvidia-device-plugin, commit 1b826acc, read 2026-11-26):

* ``gfd.enabled: true`` renders ``templates/daemonset-gfd.yml``; ``devicePlugin.enabled: false`` drops
  ``templates/daemonset-device-plugin.yml``. The GFD DaemonSet takes the chart's top-level ``nodeSelector``,
  ``affinity`` and ``tolerations``. The default ``affinity`` wants NFD's PCI label or ``nvidia.com/gpu.present``,
  which trainstack keeps off DRA nodes; it is replaced by trainstack's own labels and the instance type, as the DRA
  driver's is.
* GFD writes its labels as an NFD feature file (``/etc/kubernetes/node-feature-discovery/features.d``,
  cmd/gpu-feature-discovery/main.go), which NFD's worker reads and NFD's master turns into node labels; the chart
  pulls NFD 0.19.0 in as a dependency when ``gfd.enabled`` is on (Chart.yaml, ``condition: nfd.enabled,gfd.enabled``;
  README: NFD "is a prerequisite of GFD"). So NFD runs here too: its worker only on the same nodes as GFD (the
  subchart's default runs it on every node), its master and garbage collector on the system nodes. The chart's
  default worker tolerations tolerate ``nvidia.com/gpu=present``, not trainstack's ``nvidia.com/gpu=true`` taint,
  so they are replaced. ``nfd.master.config.extraLabelNs: [nvidia.com]`` (the chart's default, written down so a
  chart upgrade cannot drop it) lets NFD's master publish GFD's ``nvidia.com/`` labels.

A cluster that already runs NFD (a GPU Operator installed by hand) would run a second one; trainstack installs
neither elsewhere, so it does not look for one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from ..catalog.addons import NVIDIA_DEVICE_PLUGIN
from ..helm import helm_release
from ..names import ACCELERATOR_LABEL, DEVICE_ALLOCATION_LABEL, INSTANCE_TYPE_LABEL
from .device_plugins import GPU_TOLERATION, HYPERPOD_HEALTH_TOLERATION, tolerations

GFD_RELEASE_SUFFIX = "gpu-feature-discovery"
NFD_LABEL_NAMESPACES = ["nvidia.com"]
"""The label namespaces besides NFD's own that NFD's master publishes: GFD's."""


def gfd_nodes(instance_types: Sequence[str]) -> tuple[dict[str, str], dict[str, Any]]:
    """(nodeSelector, affinity) of the DRA GPU nodes of ``instance_types``: where GFD and NFD's worker run."""
    selector = {DEVICE_ALLOCATION_LABEL: "dra", ACCELERATOR_LABEL: "nvidia-gpu"}
    expressions = [{"key": key, "operator": "In", "values": [value]} for key, value in sorted(selector.items())]
    expressions.append({"key": INSTANCE_TYPE_LABEL, "operator": "In", "values": sorted(set(instance_types))})
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": expressions}]}}}
    return selector, affinity


def gfd_values(instance_types: Sequence[str], *, system_node_selector: Mapping[str, str],
               group_taints: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """The chart's values: GFD and NFD's worker on the DRA nodes of ``instance_types``, no device plugin, NFD's
    master and garbage collector on the system nodes."""
    selector, affinity = gfd_nodes(instance_types)
    tolerated = tolerations(GPU_TOLERATION, HYPERPOD_HEALTH_TOLERATION, group_taints=group_taints)
    system = dict(system_node_selector)
    return {
        "devicePlugin": {"enabled": False},
        "gfd": {"enabled": True},
        "nodeSelector": selector,
        "affinity": affinity,
        "tolerations": tolerated,
        "nfd": {
            "master": {"nodeSelector": system, "config": {"extraLabelNs": list(NFD_LABEL_NAMESPACES)}},
            "gc": {"nodeSelector": system},
            "worker": {"nodeSelector": selector, "affinity": affinity, "tolerations": tolerated},
        },
    }


def gpu_feature_discovery(name: str, *, instance_types: Sequence[str], system_node_selector: Mapping[str, str],
                          provider: k8s.Provider, parent: pulumi.Resource, depends_on: list[pulumi.Resource],
                          group_taints: Sequence[Mapping[str, Any]] = ()) -> k8s.helm.v3.Release:
    """GFD (and the NFD it needs) in kube-system, on the DRA nodes of ``instance_types`` only."""
    values = gfd_values(instance_types, system_node_selector=system_node_selector, group_taints=group_taints)
    return helm_release(f"{name}-{GFD_RELEASE_SUFFIX}", NVIDIA_DEVICE_PLUGIN, namespace="kube-system",
                        provider=provider, parent=parent, depends_on=depends_on, values=values)
