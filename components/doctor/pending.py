"""Why is my job pending? Each Workload Kueue holds, and each admitted job whose pods do not run, in a sentence with
its numbers and the fix.

Kueue decides and says why in its own objects (kubernetes-sigs/kueue v0.19.2, ``apis/kueue/v1beta2/
workload_types.go``): a Workload not admitted has ``QuotaReserved=False`` with Kueue's message (read by
``pending_kueue``); one sent back by waitForPodsReady has ``Evicted`` with reason ``PodsReadyTimeout`` and a
``requeueState``; one whose quota is reserved but that waits on admission checks has ``status.admissionChecks``.
An admitted job's pods are the kube-scheduler's: ``PodScheduled=False`` and its ``FailedScheduling`` events
(``pending_pods``). Doctor translates; it never guesses past what they say.

Read only: what it reads is ``pending_read``'s, one LIST of each kind."""

from __future__ import annotations

from ..kube.client import Cluster
from ..plan import Plan
from . import pending_pods
from .finding import Finding
from .pending_admission import admission_checks, evicted
from .pending_jobs import Job, job_of, true
from .pending_queues import Queues, Stack, stack_of
from .pending_read import KINDS, Read, read
from .pending_sentences import not_admitted

__all__ = ["KINDS", "Read", "findings", "judge", "read"]


def findings(plan: Plan, cluster: Cluster) -> list[Finding]:
    """Why each pending job of the cluster is pending, against the queues ``plan`` made."""
    return judge(stack_of(plan), read(cluster))


def judge(stack: Stack, seen: Read) -> list[Finding]:
    """The findings of one read of the cluster (``seen``): each Workload Kueue holds back, then each job whose pods
    wait for the scheduler, in namespace and name order."""
    queues = Queues(seen.cluster_queues, seen.cohorts)
    local_queues = {(q["metadata"]["namespace"], q["metadata"]["name"]): (q.get("spec") or {}).get("clusterQueue")
                    for q in seen.local_queues}
    jobs = [job_of(w, local_queues) for w in seen.workloads]
    found: list[Finding] = []
    for job in sorted(jobs, key=lambda j: (j.namespace, j.workload)):
        found += _workload(stack, queues, job, jobs, seen)
    found += pending_pods.findings(stack, seen, {(j.namespace, j.workload): j for j in jobs})
    return found


def _workload(stack: Stack, queues: Queues, job: Job, jobs: list[Job], seen: Read) -> list[Finding]:
    """What holds one Workload back, if anything does (its admitted pods are ``pending_pods``')."""
    if job.finished or not job.active:
        return []
    found = evicted(stack, job)
    if true(job.conditions, "QuotaReserved"):
        # Evicted while its quota is still reserved: Kueue is suspending the job and will release the quota.
        return found or ([] if true(job.conditions, "Admitted") else admission_checks(job))
    # Evicted, Kueue writes the eviction's message on QuotaReserved too: said once, by ``evicted``.
    said = (job.conditions.get("QuotaReserved") or {}).get("message")
    if not found or said != (job.conditions.get("Evicted") or {}).get("message"):
        found += not_admitted(stack, queues, job, jobs, seen)
    return found
