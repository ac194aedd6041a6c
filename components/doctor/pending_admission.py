"""What stands between a Workload and admission besides quota and topology: a queue that does not admit (missing,
stopped, inactive), admission checks that have not said Ready, and waitForPodsReady sending an admitted job back.

Kueue's words (kubernetes-sigs/kueue v0.19.2): ``pkg/controller/core/workload_controller.go`` ("LocalQueue Q doesn't
exist", "ClusterQueue Q is inactive", and on eviction "Exceeded the PodsReady timeout W"), a ClusterQueue's
``Active`` condition (``apis/kueue/v1beta2/clusterqueue_types.go``: reason ``AdmissionCheckInactive`` and the
like), a Workload's ``status.admissionChecks`` (state Pending, Ready, Retry or Rejected), ``Evicted`` with reason
``PodsReadyTimeout`` and ``status.requeueState`` (``workload_types.go``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .finding import Finding, Section
from .pending_jobs import Job
from .pending_kueue import QueueBlocked
from .pending_queues import Stack

if TYPE_CHECKING:
    from .pending_read import Read

SECTION: Section = "pending"


def queue_blocked(stack: Stack, job: Job, blocked: QueueBlocked, read: Read) -> Finding:
    """Its LocalQueue is missing or stopped, or its ClusterQueue inactive or stopped: nothing of it is admitted."""
    team = next((t for t in stack.teams.values() if t.namespace == job.namespace), None)
    if blocked.kind == "LocalQueue":
        queue = f"team {team.name}'s LocalQueue {team.cluster_queue}" if team else "a LocalQueue of its namespace"
        fix = (f"name the queue: label the {job.kind} kueue.x-k8s.io/queue-name={team.cluster_queue}, as "
               f"trainstack launch ... --team {team.name} does" if team
               else f"kubectl -n {job.namespace} get localqueues, and label the job with one")
        return Finding(SECTION, job.subject, f"queued in {queue}",
                       f"its queue '{job.local_queue}' {blocked.state} (Kueue: {blocked.kind} {blocked.name} "
                       f"{blocked.state})", fix)
    found: dict[str, Any] = next((q for q in read.cluster_queues if q["metadata"]["name"] == blocked.name), {})
    active: dict[str, Any] = next((c for c in (found.get("status") or {}).get("conditions") or []
                                   if c.get("type") == "Active"), {})
    why = f" (its Active condition: {active['reason']}, {active.get('message', '')})" if active.get("reason") else ""
    return Finding(SECTION, job.subject, f"ClusterQueue {blocked.name} admitting",
                   f"ClusterQueue {blocked.name} {blocked.state}, so it admits nothing{why}",
                   f"read its conditions: kubectl get clusterqueue {blocked.name} -o yaml (an admission check it names "
                   "that no controller runs, a flavor it names that is missing, or a capacity block's wind-down "
                   "holding it near the block's end)")


def evicted(stack: Stack, job: Job) -> list[Finding]:
    """Sent back by waitForPodsReady: its pods were not all ready in time, so Kueue gave its nodes back."""
    condition = job.conditions.get("Evicted") or {}
    if condition.get("status") != "True" or condition.get("reason") != "PodsReadyTimeout":
        return []
    requeue = job.status.get("requeueState") or {}
    times = requeue.get("count")
    again = f"; requeued {times} time{'s' if times != 1 else ''}" if times else ""
    when = f", back in the queue at {requeue['requeueAt']}" if requeue.get("requeueAt") else ""
    timeout = f"{stack.pods_ready_minutes} min" if stack.pods_ready_minutes else "the podsReady timeout"
    pods = "its pod" if job.pods == 1 else f"all {job.pods} pods"
    return [Finding(SECTION, job.subject, f"{pods} ready within {timeout} of admission (waitForPodsReady)",
                    f"evicted: its pods were not all ready in time, and Kueue gave its nodes back (Kueue: "
                    f"{condition.get('message', '')}){again}{when}",
                    f"find what kept the pods from starting (the scheduler's reasons, an image pull): kubectl -n "
                    f"{job.namespace} get events --field-selector reason=FailedScheduling; {job.describe()}")]


def admission_checks(job: Job) -> list[Finding]:
    """Quota reserved, admission waits on its checks."""
    checks = [c for c in job.status.get("admissionChecks") or [] if c.get("state") != "Ready"]
    if not checks:
        return []
    said = "; ".join(f"{c.get('name')}: {c.get('state')}" + (f" ({c['message']})" if c.get("message") else "")
                     for c in checks)
    rejected = any(c.get("state") == "Rejected" for c in checks)
    return [Finding(SECTION, job.subject, f"every admission check of ClusterQueue {job.cluster_queue} Ready",
                    f"quota reserved in ClusterQueue {job.cluster_queue}, admission waits on its checks: {said}"
                    + ("; a rejected check deactivates it" if rejected else ""),
                    "; ".join(f"ask the check's controller (its spec.controllerName): kubectl get admissioncheck "
                              f"{c.get('name')} -o yaml" for c in checks))]
