"""The scheduler's DRA allocation on a running node: does each claim a pod names find its devices there?

On a DRA node (``deviceAllocation: dra``) no device plugin advertises extended resources; the DRA drivers'
kubelet plugins publish the node's devices as ResourceSlices, and the scheduler allocates a pod's claims from
them (the DynamicResources plugin, kubernetes/kubernetes v1.35.0 ``pkg/scheduler/framework/plugins/
dynamicresources``): a claim whose request names a DeviceClass is satisfied only if the node publishes at least
``count`` devices of that class. A driver publishes a node's devices only where its DaemonSet's pod lands, so
its release's nodeSelector, affinity and tolerations are judged against the node like a device plugin's.

The device counts a driver publishes are the catalog's: the instance type's GPUs (NVIDIA DRA driver) or Neuron
devices (the Neuron DRA driver; its UltraServer node devices are not claimed, launch/claims.py), and the
EFA interfaces the launch template attaches (aws-dranet publishes EFA devices only, its chart's default
``filter``: aws/eks-charts stable/aws-dranet/values.yaml @b4e9338).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..catalog import AcceleratorKind
from ..catalog.addons import AWS_DRANET, NEURON_DRA_DRIVER, NVIDIA_DRA_DRIVER
from ..catalog.device_allocation import EFA, GPU, NEURON
from . import daemons
from .scheduling import Node

# Which release publishes which device class, and where in its values its kubelet plugin's placement sits.
DRIVERS: dict[str, tuple[str, tuple[str, ...]]] = {
    GPU.device_class: (NVIDIA_DRA_DRIVER.name, ("kubeletPlugin",)),
    NEURON.device_class: (NEURON_DRA_DRIVER.name, ("draDriver",)),
    EFA.device_class: (AWS_DRANET.name, ()),
}


def claim_templates(jobs: Iterable[tuple[str, Any]]) -> dict[str, dict[str, Any]]:
    """ResourceClaimTemplates among the rendered documents, by name."""
    return {str(document["metadata"]["name"]): dict(document) for _, document in jobs
            if isinstance(document, Mapping) and document.get("kind") == "ResourceClaimTemplate"}


def published(node: Node, accelerators: int, kind: AcceleratorKind | None, efa_interfaces: int,
              drivers: Mapping[str, Mapping[str, Any]]) -> tuple[dict[str, int], list[str]]:
    """Devices per class the node publishes, and why a class it has is not published."""
    counts = {GPU.device_class: accelerators if kind is AcceleratorKind.GPU else 0,
              NEURON.device_class: accelerators if kind is AcceleratorKind.NEURON else 0,
              EFA.device_class: efa_interfaces}
    devices, notes = {}, []
    for device_class, count in counts.items():
        chart, path = DRIVERS[device_class]
        kept_off = daemons.kept_off(drivers, chart, path, node)
        if not kept_off:
            devices[device_class] = count
        elif count:
            notes.append(f"No {device_class} devices there: its DRA driver ({chart}) {'; '.join(kept_off)}")
    return devices, notes


def claim_reasons(pod: Mapping[str, Any], templates: Mapping[str, Mapping[str, Any]],
                  devices: Mapping[str, int]) -> list[str]:
    """Why the scheduler cannot allocate the pod's claims on a node publishing ``devices``; empty when it can."""
    reasons = []
    for claim in pod.get("resourceClaims") or []:
        name = claim.get("resourceClaimTemplateName")
        template = templates.get(str(name))
        if template is None:
            reasons.append(f"claims from ResourceClaimTemplate {name}, which was not rendered")
            continue
        for request in template["spec"]["spec"]["devices"]["requests"]:
            exactly = request.get("exactly") or {}
            device_class, count = exactly.get("deviceClassName"), int(exactly.get("count", 1))
            have = devices.get(str(device_class), 0)
            if count > have:
                reasons.append(f"claims {count} {device_class} devices (request {request['name']}), the node "
                               f"publishes {have}")
    return reasons
