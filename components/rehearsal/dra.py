"""The DRA drivers' part in a rehearsal: the DeviceClasses their charts install, and the ResourceSlices their
kubelet plugins publish on each node of a ``deviceAllocation: dra`` group.

No driver runs on kwok's nodes (there is no GPU and no kubelet), so the rehearsal publishes for each node what
the library's own model says its drivers publish there (``controllers.dra.published``: the catalog's counts,
only where the driver's DaemonSet lands). From there on nothing is stood in for: kube-controller-manager makes
each pod's ResourceClaim from its template, and the scheduler's DRA plugin allocates it through the classes
below, or leaves the pod Pending with its reason.

The classes' selectors are the charts' own, as the pinned charts render them (read 2026-11-26):

* ``gpu.nvidia.com``: dra-driver-nvidia-gpu 0.4.1, ``deployments/helm/dra-driver-nvidia-gpu/templates/
  deviceclass-gpu.yaml`` (kubernetes-sigs/dra-driver-nvidia-gpu, tag v0.4.1 = 764900e). Its
  ``extendedResourceName`` is left out: the API server drops it unless the DRAExtendedResource feature gate is on.
* ``efa.networking.k8s.aws``: aws-dranet 1.0.0, ``stable/aws-dranet/templates/deviceclass.yaml`` with the
  values' ``deviceClass.name`` (aws/eks-charts @5239609).
* ``neuron.aws.com``: the Neuron chart's ``templates/dra-driver/dra-driver-deviceclass.yaml``
  (aws-neuron/neuron-helm-charts @97e1b7d), as ``catalog.device_allocation.NEURON`` cites it.

A slice's devices carry the attributes those selectors read: the GPU driver's ``type: gpu``
(``cmd/gpu-kubelet-plugin/deviceinfo.go`` ``GpuInfo.Attributes`` at v0.4.1) and dranet's ``dra.net/pciDevice``,
the PCI product name (kubernetes-sigs/dranet ``pkg/apis/attributes.go``, ``pkg/inventory/db.go`` @f258477).
the Neuron driver's ``resourceType`` (``neuron_device``; ``catalog.neuron_dra``), which trainstack's claims select on.
dranet also publishes the node's ENA interface, which the EFA class must not select; so does the rehearsal. The Neuron
driver's connected-group attributes (``resource.aws.com/devicegroupN_id``) are not published: their values' form is
not in the sources read, and the rehearsal's jobs claim whole nodes, which need no group constraint.
Each slice is owned by its Node, as a kubelet plugin's are, so a lost node's devices go with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..catalog.device_allocation import EFA, GPU, NEURON, RESOURCE_API_VERSION, DraDevice
from ..catalog.neuron_dra import DEVICE_RESOURCE_TYPE

SELECTORS: dict[str, str] = {
    GPU.device_class: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
    EFA.device_class: ("device.driver == \"dra.net\" &&\n"
                       "device.attributes[\"dra.net\"].pciDevice == 'Elastic Fabric Adapter (EFA)'\n"),
    NEURON.device_class: 'device.driver == "neuron.aws.com"',
}
"""Each DeviceClass's CEL selector, by class name."""
DRIVERS: dict[str, DraDevice] = {device.device_class: device for device in (GPU, NEURON, EFA)}
EFA_PRODUCT, ENA_PRODUCT = "Elastic Fabric Adapter (EFA)", "Elastic Network Adapter (ENA)"


def device_classes(names: Iterable[str]) -> list[dict[str, Any]]:
    """The DeviceClasses the drivers of these classes install."""
    return [{"apiVersion": RESOURCE_API_VERSION, "kind": "DeviceClass", "metadata": {"name": name},
             "spec": {"selectors": [{"cel": {"expression": SELECTORS[name]}}]}} for name in sorted(set(names))]


def resource_slices(node: Mapping[str, Any], devices: Mapping[str, int]) -> list[dict[str, Any]]:
    """The slices the drivers publish on ``node`` (the Node as the API server returned it), one pool per node and
    driver, for ``devices`` (DeviceClass name -> count)."""
    name = str(node["metadata"]["name"])
    owner = {"apiVersion": "v1", "kind": "Node", "name": name, "uid": node["metadata"]["uid"]}
    published = []
    for device_class, count in sorted(devices.items()):
        driver = DRIVERS[device_class].driver
        published.append({
            "apiVersion": RESOURCE_API_VERSION, "kind": "ResourceSlice",
            "metadata": {"name": f"{name}-{driver}", "ownerReferences": [owner]},
            "spec": {"nodeName": name, "driver": driver,
                     "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                     "devices": _devices(device_class, count)}})
    return published


def _devices(device_class: str, count: int) -> list[dict[str, Any]]:
    if device_class == GPU.device_class:
        return [{"name": f"gpu-{index}", "attributes": {"type": {"string": "gpu"}}} for index in range(count)]
    if device_class == NEURON.device_class:
        return [{"name": f"neuron-{index}", "attributes": {"resourceType": {"string": DEVICE_RESOURCE_TYPE}}}
                for index in range(count)]
    interfaces = [{"name": "ena-0", "attributes": {"dra.net/pciDevice": {"string": ENA_PRODUCT}}}]
    return interfaces + [{"name": f"efa-{index}", "attributes": {"dra.net/pciDevice": {"string": EFA_PRODUCT}}}
                         for index in range(count)]
