"""A Kueue Workload as doctor speaks of it: the job it stands for, the queue it waits in, its pod sets (how many
pods, what each asks for, where it may run) and Kueue's conditions on it.

Fields as kubernetes-sigs/kueue v0.19.2 ``apis/kueue/v1beta2/workload_types.go`` has them: ``spec.queueName`` (the
LocalQueue), ``spec.podSets`` (``count``, ``template``, ``topologyRequest``), ``spec.active``, and in ``status``
the ``conditions``, the ``admission`` (its ClusterQueue and per pod set the flavors), ``resourceRequests`` (what a
Workload not admitted asks for, per pod set) and ``requeueState``. The job is the Workload's owner."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..kube.quantity import quantity

LAUNCHERS = {"Job": "device-check", "PyTorchJob": "pytorchjob", "TrainJob": "trainjob", "MPIJob": "mpijob"}
"""The ``trainstack launch`` command that renders each kind a trainstack stack queues (a PyTorchJob may also be
``all-reduce``'s: the fix says to render it again the way it was)."""


def true(conditions: Mapping[str, Mapping[str, Any]], kind: str) -> bool:
    return (conditions.get(kind) or {}).get("status") == "True"


@dataclass(frozen=True)
class PodSet:
    name: str
    count: int
    per_pod: dict[str, Fraction]
    """What each pod asks for (its containers' requests)."""
    node_selector: dict[str, str]
    tolerations: tuple[dict[str, Any], ...]
    required: str | None
    """The topology level the pods must share (``topologyRequest.required``), if any."""


@dataclass(frozen=True)
class Job:
    namespace: str
    workload: str
    kind: str
    name: str
    local_queue: str
    cluster_queue: str | None
    """The ClusterQueue behind ``local_queue`` (or the one that admitted it); None where neither exists."""
    conditions: dict[str, dict[str, Any]]
    pod_sets: tuple[PodSet, ...]
    status: dict[str, Any]
    active: bool

    @property
    def subject(self) -> str:
        return f"workload {self.namespace}/{self.workload} ({self.kind} {self.name})"

    @property
    def finished(self) -> bool:
        return true(self.conditions, "Finished")

    @property
    def pods(self) -> int:
        return sum(p.count for p in self.pod_sets)

    def requested(self) -> dict[str, Fraction]:
        total: dict[str, Fraction] = {}
        for pod_set in self.pod_sets:
            for resource, amount in pod_set.per_pod.items():
                total[resource] = total.get(resource, Fraction(0)) + amount * pod_set.count
        return total

    def whole_nodes(self, per_node: Mapping[str, int]) -> bool:
        """Each pod asks for all of a node's accelerators, as the launchers' jobs do: its pods count nodes."""
        resource, count = next(iter(per_node.items()))
        return all(p.per_pod.get(resource) == count for p in self.pod_sets if p.per_pod.get(resource))

    def selects(self, flavor: Mapping[str, Any]) -> bool:
        """The ResourceFlavor's node labels are what the pods select, where they select by those labels at all (as
        Kueue matches them: only the keys the flavor's labels have)."""
        labels = (flavor.get("spec") or {}).get("nodeLabels") or {}
        return all(p.node_selector.get(key, value) == value for p in self.pod_sets for key, value in labels.items())

    def flavors(self) -> set[str]:
        """The flavors Kueue admitted it to."""
        admission = self.status.get("admission") or {}
        return {f for a in admission.get("podSetAssignments") or [] for f in (a.get("flavors") or {}).values()}

    def describe(self) -> str:
        return f"kubectl -n {self.namespace} describe workload {self.workload}"

    def resubmit(self, group: str, team: str | None, nodes: int, *options: str) -> str:
        """The commands that submit the job again on ``nodes`` nodes (``options``: what else changes)."""
        launcher = LAUNCHERS.get(self.kind)
        if launcher is None:
            return f"kubectl -n {self.namespace} edit {self.kind.lower()} {self.name} (ask for {nodes} pods)"
        asked = " ".join([f"--group {group}", *([f"--team {team}"] if team else []), f"--nodes {nodes}", *options])
        return (f"kubectl -n {self.namespace} delete {self.kind.lower()} {self.name}, then trainstack launch "
                f"{launcher} {asked} with its other options as before")


def job_of(workload: dict[str, Any], local_queues: Mapping[tuple[str, str], str | None]) -> Job:
    metadata, spec = workload["metadata"], workload.get("spec") or {}
    status = workload.get("status") or {}
    owner = next((o for o in metadata.get("ownerReferences") or [] if o.get("controller")),
                 (metadata.get("ownerReferences") or [{}])[0])
    queue = str(spec.get("queueName") or "")
    admitted_to = (status.get("admission") or {}).get("clusterQueue")
    requested = {r["name"]: r.get("resources") or {} for r in status.get("resourceRequests") or []}
    return Job(metadata["namespace"], metadata["name"], owner.get("kind", "Workload"),
               owner.get("name", metadata["name"]), queue,
               admitted_to or local_queues.get((metadata["namespace"], queue)),
               {c["type"]: c for c in status.get("conditions") or []},
               tuple(_pod_set(p, requested.get(p.get("name", "main"))) for p in spec.get("podSets") or []),
               status, spec.get("active", True) is not False)


def _pod_set(pod_set: dict[str, Any], requested: Mapping[str, Any] | None) -> PodSet:
    count = int(pod_set.get("count", 1))
    template = (pod_set.get("template") or {}).get("spec") or {}
    if requested and count:
        # Kueue's own sum for the pod set (init containers and overhead counted as it counts them).
        per_pod = {r: quantity(v) / count for r, v in requested.items()}
    else:
        per_pod = {}
        for container in template.get("containers") or []:
            for resource, value in ((container.get("resources") or {}).get("requests") or {}).items():
                per_pod[resource] = per_pod.get(resource, Fraction(0)) + quantity(value)
    return PodSet(str(pod_set.get("name", "main")), count, per_pod, dict(template.get("nodeSelector") or {}),
                  tuple(template.get("tolerations") or ()),
                  ((pod_set.get("topologyRequest") or {}).get("required")))
