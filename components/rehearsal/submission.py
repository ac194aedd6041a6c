"""One job through the rehearsal cluster: submitted as the launcher rendered it, watched until its
pods all run (or the time is up, with the reason the controllers give), its evidence kept for the
models' cross-checks, then deleted and its pods waited away."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

from ..kube.client import ApiError, Cluster
from ..launch.queueing import QUEUE_LABEL
from . import controllers
from .cluster import Nodes, Progress
from .jobs import RenderedJob
from .waits import KUBE_CONTROLLER_MANAGER_QPS, Wait
from .watch import Observation, expected_pods, nodes_per_block, observe, pods_of, workload_of

POLL_SECONDS = 0.25


@dataclass
class JobResult:
    id: str
    launcher: str
    group: str
    nodes: int
    seen: Observation
    scaled_up: int = 0
    problem: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    """What the real controllers made of the job, for the models' cross-checks (not in the JSON record):
    ``pods`` (as created), the MPI operator's ``hostfile`` ConfigMap, Trainer's ``jobset``."""
    wait: Wait | None = None
    """How long the rehearsal waited for the job to run whole, and why that long (rehearsal.waits)."""

    @property
    def ok(self) -> bool:
        return self.problem is None

def submit(cluster: Cluster, nodes: Nodes, job: RenderedJob, timeout: float | Wait, progress: Progress) -> JobResult:
    """Submit ``job`` and watch it for ``timeout``: seconds, or a ``Wait`` that says why that long."""
    assert isinstance(job.document, dict)
    document = job.document
    namespace = document["metadata"].get("namespace", "default")
    controllers.ensure_namespace(cluster, namespace)
    queued = _queued(document)
    seen = Observation(document["kind"], document["metadata"]["name"], namespace, expected_pods(document), queued)
    wait = timeout if isinstance(timeout, Wait) else Wait(float(timeout), "as given")
    result = JobResult(job.id, job.launcher, job.group, job.nodes, seen, wait=wait)
    try:
        for prerequisite in job.prerequisites:  # a claim template is shared by the jobs that ask for the same devices
            cluster.create_unless_there({**prerequisite,
                                         "metadata": {**prerequisite["metadata"], "namespace": namespace}})
        cluster.create(document)
    except ApiError as error:
        result.problem = f"refused at submission: {error}"
        return result
    progress(f"  {job.id}: waiting up to {wait.seconds:.0f} s for it to run whole ({wait.why})")
    deadline = time.monotonic() + wait.seconds
    while time.monotonic() < deadline:
        looked = time.monotonic()
        pods = observe(cluster, seen)
        result.scaled_up += nodes.scale_for(pods)
        if seen.running_whole:
            break
        # Looking takes its share of the machine: at 2,048 pods each look reads megabytes, and the watcher
        # must not starve the controllers it watches on two cores.
        time.sleep(max(POLL_SECONDS, 2 * (time.monotonic() - looked)))
    result.evidence = _evidence(cluster, document, observe(cluster, seen))
    if seen.running_whole:
        seen.blocks = nodes_per_block(cluster, seen.nodes)
    if not seen.running_whole:
        result.problem = _why_not(seen)
    progress(f"  {job.id}: {_line(result)}")
    return result

def _evidence(cluster: Cluster, document: dict[str, Any], pods: list[dict[str, Any]]) -> dict[str, Any]:
    namespace, name = document["metadata"].get("namespace", "default"), document["metadata"]["name"]
    evidence: dict[str, Any] = {"pods": pods}
    related = {"MPIJob": ("v1", "ConfigMap", f"{name}-config", "hostfile"),
               "TrainJob": ("jobset.x-k8s.io/v1alpha2", "JobSet", name, "jobset")}
    if document["kind"] in related:
        api_version, kind, object_name, key = related[document["kind"]]
        with contextlib.suppress(ApiError):
            evidence[key] = cluster.get(f"{cluster.collection(api_version, kind, namespace)}/{object_name}")
    claimed = {status["resourceClaimName"] for pod in pods for status in pod["status"].get("resourceClaimStatuses", [])
               if status.get("resourceClaimName")}
    if claimed:  # the ResourceClaims kube-controller-manager made for the pods, with what the scheduler allocated
        evidence["claims"] = [claim for claim in cluster.list("resource.k8s.io/v1", "ResourceClaim", namespace)
                              if claim["metadata"]["name"] in claimed]
    return evidence

def _why_not(seen: Observation) -> str:
    if seen.queued and not seen.admitted:
        return f"not admitted by Kueue: {seen.reason or 'no Workload was created'}"
    if seen.created < seen.expected:
        return f"the operator created {seen.created} of {seen.expected} pods"
    if seen.bound < seen.expected:
        message = "; ".join(seen.pending_messages) or "no scheduling decision"
        return f"{seen.expected - seen.bound} of {seen.expected} pods unschedulable: {message}"
    return f"{seen.running} of {seen.expected} pods Running"

def _line(result: JobResult) -> str:
    seen = result.seen
    if result.problem:
        waited = f" (waited {result.wait.seconds:.0f} s: {result.wait.why})" if result.wait is not None else ""
        return f"FAILED: {result.problem}{waited}"
    admitted = f"admitted to {seen.cluster_queue} on {', '.join(seen.flavors)}" if seen.queued else "no queue"
    return (f"{admitted}; {seen.running}/{seen.expected} pods Running on {len(seen.nodes)} nodes in "
            f"{seen.seconds.get('running', 0):.1f} s")

def delete_job(cluster: Cluster, document: dict[str, Any], timeout: float = 120.0) -> None:
    """Delete the job as ``kubectl delete`` does (background propagation) and wait until it, what its operator
    made in its name and its pods are gone.

    Not foreground: Trainer v2.3.0 reconciles a TrainJob that is being deleted as any other
    (pkg/controller/trainjob_controller.go ``Reconcile`` never reads the deletion timestamp) and server-side
    applies its JobSet again, so under a foreground deletion the garbage collector removes the JobSet and
    Trainer puts it back, until one of them wins the race (seen in CI: 60 s and the TrainJob still there).
    With background propagation the TrainJob goes at once, Trainer finds nothing to reconcile, and the
    garbage collector removes the JobSet, its Jobs and their pods as orphans."""
    cluster.delete(document, propagationPolicy="Background")
    namespace = document["metadata"].get("namespace", "default")
    kind, name = document["kind"], document["metadata"]["name"]
    # What the operator made in the job's name goes too: a TrainJob's JobSet (Trainer names it after the
    # TrainJob), which a next job of the same name would otherwise find still there and not own.
    made = [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": document["metadata"]}] if (
        kind == "TrainJob") else []
    # A queued job's Workload holds its quota until Kueue lets it go: the next job waits for nothing of this one.
    queued = _queued(document)

    def gone() -> bool:
        return (not pods_of(cluster, kind, name, namespace)
                and not any(_exists(cluster, obj) for obj in [document, *made])
                and not (queued and workload_of(cluster, kind, name, namespace) is not None))

    # The timeout covers a pod on a lost node: kube-controller-manager's pod garbage collector removes it only
    # after its 40 s quarantine, checked every 20 s (pkg/controller/podgc: quarantineTime, gcCheckPeriod). And the
    # garbage collector deletes the pods through the controller manager's client, at most 20 requests a second
    # (--kube-api-qps, its default): a 2,048-pod job takes 100 s to go.
    try:
        pods = expected_pods(document)
    except ValueError:  # a kind whose size the rehearsal does not read: the base timeout
        pods = 0
    cluster.wait_for(f"{kind} {name}, its pods and its Workload deleted", gone,
                     timeout + pods / KUBE_CONTROLLER_MANAGER_QPS)


def _queued(document: dict[str, Any]) -> bool:
    return QUEUE_LABEL in (document["metadata"].get("labels") or {})


def _exists(cluster: Cluster, document: dict[str, Any]) -> bool:
    try:
        cluster.get(cluster.path_of(document))
        return True
    except ApiError as error:
        if error.status == 404:
            return False
        raise
