"""What happened to one submitted job, read from the API server as the controllers act: Kueue's
Workload (admitted or not, which flavor, which topology domain, the reason), the pods the
operator created, where the scheduler bound them, whether kwok runs them, and when each step
happened."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..kube.client import Cluster
from ..names import HOSTNAME_LABEL, KUEUE_API_VERSION

# The label each operator puts on its pods, naming the job (batch/v1 Job: kubernetes
# pkg/controller/job; PyTorchJob and MPIJob: training-operator v1.8.1 and mpi-operator v0.8.0,
# ``training.kubeflow.org/job-name``; TrainJob: Trainer v2 names its JobSet after the
# TrainJob, and JobSet labels pods ``jobset.sigs.k8s.io/jobset-name``).
POD_LABELS = {"Job": "batch.kubernetes.io/job-name", "PyTorchJob": "training.kubeflow.org/job-name",
              "MPIJob": "training.kubeflow.org/job-name", "TrainJob": "jobset.sigs.k8s.io/jobset-name",
              "HyperPodPyTorchJob": "training.kubeflow.org/job-name"}
NETWORK_LABEL_PREFIX = "topology.k8s.aws/network-node-layer-"
REPLICA_SPECS = {"PyTorchJob": "pytorchReplicaSpecs", "MPIJob": "mpiReplicaSpecs"}


def expected_pods(job: dict[str, Any]) -> int:
    """How many pods the job runs at once, by its own spec."""
    kind, spec = job["kind"], job["spec"]
    if kind == "Job":
        return int(spec.get("parallelism", 1))
    if kind in REPLICA_SPECS:
        return sum(int(r.get("replicas", 1)) for r in spec[REPLICA_SPECS[kind]].values())
    if kind == "TrainJob":
        return int((spec.get("trainer") or {}).get("numNodes", 1))
    raise ValueError(f"no rule for how many pods a {kind} runs")


@dataclass
class Observation:
    """One job's course, as the rehearsal saw it."""

    kind: str
    name: str
    namespace: str
    expected: int
    queued: bool
    started: float = field(default_factory=time.monotonic)
    admitted: bool | None = None
    cluster_queue: str | None = None
    flavors: list[str] = field(default_factory=list)
    topology: list[str] = field(default_factory=list)
    """The topology domains Kueue assigned, ``label=value``: the nodes (as Kueue names them), then the EC2
    network nodes above them (``network_blocks``)."""
    reason: str | None = None
    created: int = 0
    bound: int = 0
    running: int = 0
    nodes: list[str] = field(default_factory=list)
    blocks: dict[str, int] = field(default_factory=dict)
    """Nodes the job ran on under each lowest-layer EC2 network node, once it ran whole."""
    pending_messages: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def mark(self, step: str) -> None:
        self.seconds.setdefault(step, round(time.monotonic() - self.started, 2))

    @property
    def running_whole(self) -> bool:
        return self.running >= self.expected


def pods_of(cluster: Cluster, kind: str, name: str, namespace: str) -> list[dict[str, Any]]:
    label = POD_LABELS[kind]
    return cluster.list("v1", "Pod", namespace, labelSelector=f"{label}={name}")


def workload_of(cluster: Cluster, kind: str, name: str, namespace: str) -> dict[str, Any] | None:
    for workload in cluster.list(KUEUE_API_VERSION, "Workload", namespace):
        if any(o["kind"] == kind and o["name"] == name for o in workload["metadata"].get("ownerReferences", [])):
            return workload
    return None


def observe(cluster: Cluster, seen: Observation) -> list[dict[str, Any]]:
    """Update ``seen`` from the API server; return the job's pods."""
    if seen.queued:
        workload = workload_of(cluster, seen.kind, seen.name, seen.namespace)
        if workload is not None:
            _read_workload(workload, seen)
            if seen.topology and not any(d.startswith(NETWORK_LABEL_PREFIX) for d in seen.topology):
                seen.topology = network_blocks(cluster, seen.topology)
    pods = pods_of(cluster, seen.kind, seen.name, seen.namespace)
    live = [p for p in pods if not p["metadata"].get("deletionTimestamp")]
    seen.created = len(live)
    seen.bound = sum(1 for p in live if p["spec"].get("nodeName"))
    seen.running = sum(1 for p in live if p.get("status", {}).get("phase") == "Running")
    seen.nodes = sorted({p["spec"]["nodeName"] for p in live if p["spec"].get("nodeName")})
    seen.pending_messages = sorted({c.get("message", "") for p in live
                                    for c in p.get("status", {}).get("conditions", [])
                                    if c["type"] == "PodScheduled" and c["status"] == "False"})
    for step, count in (("created", seen.created), ("bound", seen.bound), ("running", seen.running)):
        if count >= seen.expected:
            seen.mark(step)
    return live


def topology_domains(assignment: dict[str, Any]) -> list[str]:
    """``label=value`` of every topology domain Kueue placed pods in, as its Workload says (v1beta2's
    compressed form, apis/kueue/v1beta2/workload_types.go ``TopologyAssignment``: per slice, per level,
    one ``universal`` value or ``individual`` roots between a prefix and a suffix). Kueue v0.19.2 lists
    only the lowest level, the nodes (``kubernetes.io/hostname``); ``network_blocks`` reads theirs."""
    levels: list[str] = assignment.get("levels") or []
    found = []
    for piece in assignment.get("slices") or []:
        for level, values in zip(levels, piece.get("valuesPerLevel") or [], strict=False):
            if values.get("universal") is not None:
                found.append(f"{level}={values['universal']}")
            individual = values.get("individual") or {}
            found += [f"{level}={individual.get('prefix', '')}{root}{individual.get('suffix', '')}"
                      for root in individual.get("roots") or []]
    return found


def network_blocks(cluster: Cluster, domains: list[str]) -> list[str]:
    """The EC2 network nodes (``topology.k8s.aws/network-node-layer-N=value``) of the nodes Kueue assigned, read
    from one list of the nodes (a 2,048-node job names 2,048 of them)."""
    assigned = {d.split("=", 1)[1] for d in domains if d.startswith(HOSTNAME_LABEL + "=")}
    blocks = set(domains)
    if not assigned:
        return sorted(blocks)
    for node in cluster.list("v1", "Node"):  # a node lost since Kueue assigned it is simply not there
        if node["metadata"]["name"] in assigned:
            labels = node["metadata"].get("labels", {})
            blocks |= {f"{k}={v}" for k, v in labels.items() if k.startswith(NETWORK_LABEL_PREFIX)}
    return sorted(blocks)


def nodes_per_block(cluster: Cluster, nodes: list[str]) -> dict[str, int]:
    """How many of ``nodes`` sit under each EC2 network node of the lowest layer their labels name (the
    placement of a job that spans blocks)."""
    wanted, placed = set(nodes), dict[str, int]()
    for node in cluster.list("v1", "Node"):
        labels = node["metadata"].get("labels", {})
        layers = sorted(k for k in labels if k.startswith(NETWORK_LABEL_PREFIX))
        if node["metadata"]["name"] in wanted and layers:
            block = f"{layers[-1]}={labels[layers[-1]]}"
            placed[block] = placed.get(block, 0) + 1
    return dict(sorted(placed.items()))


def _read_workload(workload: dict[str, Any], seen: Observation) -> None:
    status = workload.get("status") or {}
    conditions = {c["type"]: c for c in status.get("conditions", [])}
    admission = status.get("admission")
    admitted = conditions.get("Admitted", {}).get("status") == "True"
    if admitted and admission:
        seen.admitted = True
        seen.mark("admitted")
        seen.cluster_queue = admission.get("clusterQueue")
        seen.flavors = sorted({flavor for assignment in admission.get("podSetAssignments", [])
                               for flavor in (assignment.get("flavors") or {}).values()})
        if not seen.topology:  # read once: an admitted workload keeps its assignment
            seen.topology = sorted({domain for assignment in admission.get("podSetAssignments", [])
                                    for domain in topology_domains(assignment.get("topologyAssignment") or {})})
        seen.reason = None
    else:
        seen.admitted = False
        pending = conditions.get("QuotaReserved") or conditions.get("Admitted") or {}
        seen.reason = pending.get("message") or pending.get("reason")
