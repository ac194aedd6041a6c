"""Do the cluster's accelerated nodes show the devices their instance type has? The wait ``trainstack up`` does
(``deviceWait``, config/device_wait.py says what it waits for), and its one-shot reading.

Where a node shows its devices, by profile:

* device plugins: the plugin registers its extended resource with the kubelet, which reports the count it may
  hand out in the Node's ``status.allocatable`` (Kubernetes docs, Device Plugins: "the node status ... will be
  updated to advertise that the node has N devices of the resource", https://kubernetes.io/docs/concepts/
  extend-kubernetes/compute-storage-net/device-plugins/, read 2026-11-26). A plugin that found fewer devices (a
  GPU fallen off the bus, an EFA interface not attached) advertises fewer.
* DRA: no extended resource. Each driver's kubelet plugin publishes the node's devices as ResourceSlices
  (``resource.k8s.io/v1``; ``spec.nodeName``, ``spec.driver``, ``spec.pool``, ``spec.devices``). A pool may be
  split over several slices, and only the slices of a pool's highest ``pool.generation`` are current ("the
  resource slices with the highest generation ... are the ones to use", ResourceSlice API, ResourcePool.generation,
  https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/resource-slice-v1/, read 2026-11-26).

The Neuron DRA driver publishes, on UltraServers, each node as one more device beside its Neuron devices; such a
device is not counted (catalog/neuron_dra.py).

A node is in a group by the group's label (``names.NODE_GROUP_LABEL``), as the launchers' pods select it. Reads
only; changes nothing.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import requests

from ..boundary import cut
from ..catalog.device_allocation import NEURON
from ..catalog.neuron_dra import NODE_RESOURCE_TYPE
from ..config.device_wait import DeviceNeed
from ..kube.client import ApiError, Cluster
from ..kube.quantity import quantity
from .nodes import selects

RESOURCE_SLICE_API = "resource.k8s.io/v1"


@dataclass(frozen=True)
class Short:
    """One device a node shows fewer of than its instance type has."""

    node: str
    device: str
    shows: int
    expected: int

    def said(self) -> str:
        return f"node {self.node} shows {self.shows} of {self.expected} {self.device}"


@dataclass
class GroupReading:
    """One group's nodes as read once: each node's devices, the ones short, and nodes not yet joined."""

    need: DeviceNeed
    nodes: dict[str, dict[str, int]] = field(default_factory=dict)
    short: list[Short] = field(default_factory=list)

    @property
    def missing_nodes(self) -> int:
        return max(self.need.nodes - len(self.nodes), 0)

    @property
    def complete(self) -> bool:
        return not self.short and not self.missing_nodes

    def as_dict(self) -> dict[str, Any]:
        return {"group": self.need.group, "instanceType": self.need.instance_type, "expected": dict(self.need.devices),
                "nodes": self.nodes, "short": [s.said() for s in self.short], "nodesNotJoined": self.missing_nodes,
                **({"fabricManager": self.need.fabric_manager} if self.need.fabric_manager else {})}

    def problems(self) -> list[str]:
        joined = ([f"{self.need.group}: {self.missing_nodes} of {self.need.nodes} nodes have not joined"]
                  if self.missing_nodes else [])
        return [*(f"{self.need.group}: {s.said()}" for s in self.short), *joined]


def node_devices(need: DeviceNeed, node: Mapping[str, Any], slices: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """The devices of ``need`` the node shows: allocatable counts (device plugins) or current ResourceSlice devices
    per driver (DRA). A device the node does not report counts 0."""
    if need.allocation == "dra":
        name = node["metadata"]["name"]
        published = published_devices([s for s in slices if (s.get("spec") or {}).get("nodeName") == name])
        return {driver: published.get(driver, 0) for driver in need.devices}
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    return {resource: _count(allocatable.get(resource)) for resource in need.devices}


def _count(value: Any) -> int:
    if value is None:
        return 0
    try:
        return int(quantity(str(value)))
    except ValueError:
        return 0


def published_devices(slices: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Devices per driver in one node's ResourceSlices, counting each pool's highest generation only (and no
    device that stands for the node itself)."""
    pieces = []  # (driver, pool), generation, devices
    for piece in slices:
        spec = piece.get("spec") or {}
        pool = spec.get("pool") or {}
        pieces.append(((str(spec.get("driver")), str(pool.get("name"))), int(pool.get("generation") or 0),
                       sum(1 for device in spec.get("devices") or [] if not _node_device(device))))
    newest: dict[tuple[str, str], int] = {}
    for key, generation, _ in pieces:
        newest[key] = max(newest.get(key, 0), generation)
    counts: dict[str, int] = defaultdict(int)
    for (driver, pool_name), generation, devices in pieces:
        if generation == newest[(driver, pool_name)]:
            counts[driver] += devices
    return dict(counts)


def _node_device(device: Mapping[str, Any]) -> bool:
    """A device that stands for a whole node, not one accelerator: the Neuron DRA driver's UltraServer node
    (``resourceType`` ``neuron_node``, catalog/neuron_dra.py). An attribute's name is qualified by the driver's
    domain or, unqualified, is in it (ResourceSlice v1, ``Device.attributes``)."""
    attributes = device.get("attributes") or {}
    kind = attributes.get("resourceType") or attributes.get(f"{NEURON.driver}/resourceType") or {}
    return isinstance(kind, Mapping) and kind.get("string") == NODE_RESOURCE_TYPE


def read_group(need: DeviceNeed, nodes: list[dict[str, Any]], slices: list[dict[str, Any]]) -> GroupReading:
    """The group's nodes (by its label) and, for each, the devices it is short of."""
    reading = GroupReading(need)
    for node in (node for node in nodes if selects(need.node_selector, node)):
        shows = node_devices(need, node, slices)
        reading.nodes[node["metadata"]["name"]] = shows
        reading.short += [Short(node["metadata"]["name"], device, shows[device], expected)
                          for device, expected in need.devices.items() if shows[device] < expected]
    return reading


def read_cluster(cluster: Cluster, needs: list[DeviceNeed]) -> list[GroupReading]:
    """Every group of ``needs`` read once from the API server (Nodes; ResourceSlices where a group is DRA)."""
    nodes, slices = read_objects(cluster, needs)
    return [read_group(need, nodes, slices) for need in needs]


def read_objects(cluster: Cluster, needs: list[DeviceNeed]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The cluster's Nodes, and its ResourceSlices where a group of ``needs`` is on DRA (else none): one list each."""
    nodes = cluster.list("v1", "Node")
    slices = cluster.list(RESOURCE_SLICE_API, "ResourceSlice") if any(n.allocation == "dra" for n in needs) else []
    return nodes, slices


@dataclass
class WaitResult:
    """What the wait saw last, how long it waited, and whether every node showed its devices."""

    groups: list[GroupReading]
    seconds: float
    timeout_seconds: float
    unread: str = ""
    """Why the last reading failed (the API server out of reach, a refused list), if it did."""

    @property
    def done(self) -> bool:
        return not self.unread and all(group.complete for group in self.groups)

    def problems(self) -> list[str]:
        unread = [f"the cluster could not be read: {self.unread}"] if self.unread else []
        return [*unread, *(problem for group in self.groups for problem in group.problems())]

    def as_dict(self) -> dict[str, Any]:
        unread = {"unread": self.unread} if self.unread else {}
        return {"done": self.done, "seconds": self.seconds, "timeoutSeconds": self.timeout_seconds,
                "groups": [group.as_dict() for group in self.groups], **unread}


def wait_for_devices(cluster: Cluster, needs: list[DeviceNeed], timeout_seconds: float, poll_seconds: float,
                     progress: Callable[[str], None] = lambda line: None) -> WaitResult:
    """Read the groups until every node shows its devices or ``timeout_seconds`` pass; the last reading either
    way. A node short at first is read again (a device plugin may still be starting) until the timeout."""
    began = time.monotonic()
    while True:
        # A failed read (the API server restarting, a request timing out) is read again until the timeout.
        try:
            groups, unread = read_cluster(cluster, needs), ""
        except (ApiError, requests.RequestException) as error:
            groups, unread = [], cut(str(error), 200)
        result = WaitResult(groups, round(time.monotonic() - began, 2), timeout_seconds, unread)
        if result.done or time.monotonic() - began + poll_seconds > timeout_seconds:
            return result
        progress("  waiting for devices: " + "; ".join(result.problems()[:3]))
        time.sleep(poll_seconds)
