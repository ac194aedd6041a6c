"""What doctor's pending section reads of the cluster, in one LIST of each kind: Kueue's Workloads,
ClusterQueues, Cohorts, LocalQueues, ResourceFlavors and Topologies (``kueue.x-k8s.io/v1beta2``, the version the
pinned Kueue v0.19.2 stores), the pending Pods and their ``FailedScheduling`` Events, Kueue's Warning events on
Workloads, and the Nodes only when a sentence must name a taint, a label or a network block. A stack without Kueue
has none of its kinds, and reads as none."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..kube.client import ApiError, Cluster
from ..names import KUEUE_API_VERSION as API_VERSION

KINDS = {"workloads": (API_VERSION, "Workload"), "cluster_queues": (API_VERSION, "ClusterQueue"),
         "cohorts": (API_VERSION, "Cohort"), "local_queues": (API_VERSION, "LocalQueue"),
         "flavors": (API_VERSION, "ResourceFlavor"), "topologies": (API_VERSION, "Topology")}
"""What doctor reads of Kueue, by the key a recorded read keeps it under."""


@dataclass
class Read:
    """What the cluster holds that the answer reads: Kueue's objects, the pending pods and their scheduling events;
    the nodes read once, when first asked for."""

    workloads: list[dict[str, Any]] = field(default_factory=list)
    cluster_queues: list[dict[str, Any]] = field(default_factory=list)
    cohorts: list[dict[str, Any]] = field(default_factory=list)
    local_queues: list[dict[str, Any]] = field(default_factory=list)
    flavors: list[dict[str, Any]] = field(default_factory=list)
    topologies: list[dict[str, Any]] = field(default_factory=list)
    pods: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    """The pending pods' ``FailedScheduling`` events."""
    workload_events: list[dict[str, Any]] = field(default_factory=list)
    """Kueue's Warning events on Workloads (``Pending`` and the like): each reason it gave, and when it last did."""
    load_nodes: Callable[[], list[dict[str, Any]]] = list

    @functools.cached_property
    def nodes(self) -> list[dict[str, Any]]:
        return self.load_nodes()

    @functools.cached_property
    def history(self) -> dict[tuple[str, str], list[str]]:
        """Each Workload's Warning events' messages, by (namespace, name), newest first."""
        def when(event: dict[str, Any]) -> str:
            series = event.get("series") or {}
            return str(series.get("lastObservedTime") or event.get("lastTimestamp") or event.get("eventTime") or "")

        found: dict[tuple[str, str], list[str]] = {}
        for event in sorted(self.workload_events, key=when, reverse=True):
            involved = event.get("involvedObject") or {}
            found.setdefault((str(involved.get("namespace") or event["metadata"].get("namespace")),
                              str(involved.get("name"))), []).append(str(event.get("message", "")))
        return found


def read(cluster: Cluster) -> Read:
    lists = {key: _list(cluster, api_version, kind) for key, (api_version, kind) in KINDS.items()}
    # Pending pods only (a pod waiting for the scheduler, or bound and not yet started), and only the scheduler's
    # and the autoscalers' words about them (kubernetes v1.35.4 pkg/scheduler/schedule_one.go: reason
    # FailedScheduling; Karpenter's events on a pod it cannot place use the same reason).
    pods = cluster.list("v1", "Pod", fieldSelector="status.phase=Pending")
    events = cluster.list("v1", "Event", fieldSelector="reason=FailedScheduling") if pods else []
    # Kueue's scheduler writes each attempt's reason on the condition and as a Warning event of the same words
    # (v0.19.2 pkg/scheduler/scheduler.go ``requeueAndUpdate``): the condition keeps the last attempt's alone.
    held = any((c.get("type"), c.get("status")) == ("QuotaReserved", "False")
               for w in lists["workloads"] for c in (w.get("status") or {}).get("conditions") or [])
    history = cluster.list("v1", "Event", fieldSelector="involvedObject.kind=Workload,type=Warning") if held else []
    return Read(**lists, pods=pods, events=events, workload_events=history,
                load_nodes=lambda: cluster.list("v1", "Node"))


def _list(cluster: Cluster, api_version: str, kind: str) -> list[dict[str, Any]]:
    """Every ``kind``; none where the API server does not serve it (a stack without Kueue)."""
    try:
        return cluster.list(api_version, kind)
    except ApiError as error:
        if error.status == 404:
            return []
        raise
