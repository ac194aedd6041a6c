"""A stack rehearsed: its planned Kubernetes layer on a real control plane with the controllers it
installs, its nodes played by kwok, and its jobs submitted one after another and watched.

    plan (offline, as `trainstack plan`)
      -> control plane (etcd, kube-apiserver, kube-scheduler, kube-controller-manager)
      -> kwok, the stack's nodes registered as each group's instances register
      -> the controllers the stack installs (JobSet, Trainer v2, training operator, MPI operator, Kueue,
         Karpenter with its kwok provider for the stack's NodePools)
      -> the stack's objects (namespaces, storage, queues, flavors, runtimes, priority classes)
      -> each job: submitted, admitted?, pods created, bound, Running; then deleted
"""

from __future__ import annotations

import copy
import dataclasses
import resource
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..analysis import Plan
from ..kube.client import Cluster
from ..outputs import StackOutputs, parse_outputs
from .cluster import Nodes, Progress, cluster_for
from .faults import lose_a_node, two_teams_at_once, unqueued_held, unqueued_job
from .jobs import IMAGE, RenderedJob, jobs_for
from .submission import JobResult, delete_job, submit
from .waits import Wait, explicit, job_wait, node_loss_wait

DEFAULT_SCHEDULER = "default-scheduler"


@dataclass
class Rehearsal:
    stack: str
    controllers: dict[str, str] = field(default_factory=dict)
    """Controller -> the version it was built at."""
    groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    jobs: list[JobResult] = field(default_factory=list)
    faults: list[dict[str, Any]] = field(default_factory=list)
    not_rehearsed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    peak_memory_mib: int = 0
    doctor: dict[str, Any] | None = None
    """``trainstack doctor``'s diagnosis of the cluster the rehearsal built, read after its jobs and faults
    (``doctor.run.Diagnosis.as_dict``); its verdict is reported, not part of ``ok`` (a job's fate is)."""

    @property
    def ok(self) -> bool:
        """Every job ran whole, and every fault played (``--faults``) came out as the stack is built for."""
        return all(job.ok for job in self.jobs) and not self.failed_faults

    @property
    def failed_faults(self) -> list[str]:
        return [fault["fault"] for fault in self.faults if not fault["ok"]]

def _record_groups(rehearsal: Rehearsal, nodes: Nodes) -> None:
    """Each group's nodes at the start and the end; for a pool Karpenter ran, what it launched over the whole
    rehearsal beside what its model launches for the same pods, and a note where they differ (rehearsal.karpenter)."""
    karpenter = nodes.karpenter
    launches = {group: karpenter.answers(group) for group in karpenter.pools}
    rehearsal.notes += karpenter.findings()
    for name, shape in nodes.shapes.items():
        rehearsal.groups[name] = {"instanceType": shape.instance_type, "kind": shape.kind,
                                  "registered": shape.desired, "registeredAtEnd": nodes.count[name],
                                  "maximum": shape.maximum, "scalesFromZero": shape.template is not None}
        if name in launches:
            rehearsal.groups[name] |= {"registeredAtEnd": karpenter.nodes(name),
                                       "launchedByKarpenter": str(launches[name][0]),
                                       "modelLaunches": str(launches[name][1])}
        elif nodes.count[name] > shape.desired:
            rehearsal.notes.append(
                f"{name} grew from {shape.desired} to {nodes.count[name]} nodes by trainstack's model of the Cluster "
                "Autoscaler: the real one cannot be built here (the Go module proxy refuses "
                "k8s.io/autoscaler/cluster-autoscaler; docs/real-engines.md)")


DOCTOR_LEAVES_OUT = {"addons": "the rehearsal runs the stack's controllers as processes and installs no Helm "
                                "release, whose records doctor's add-on checks read"}
"""Doctor's checks that have nothing to read on a rehearsal's cluster, and why."""


def _diagnose(rehearsal: Rehearsal, plan: Plan, cluster: Cluster, progress: Progress) -> None:
    """Doctor's verdict on the rehearsal's cluster: the reading ``trainstack doctor`` gives a deployed one, less
    what a rehearsal does not install (``DOCTOR_LEAVES_OUT``)."""
    from ..doctor.finding import Unreachable
    from ..doctor.run import doctor

    began = time.monotonic()
    try:
        diagnosis = doctor(plan, cluster, left_out=DOCTOR_LEAVES_OUT)
        rehearsal.doctor = diagnosis.as_dict()
    except Unreachable as error:  # the control plane stopped under it: said, as doctor says it
        rehearsal.doctor = {"healthy": False, "summary": str(error), "findings": []}
    rehearsal.seconds["doctor"] = round(time.monotonic() - began, 2)
    progress(f"  doctor: {rehearsal.doctor['summary']}")


def scheduler_names(jobs: list[RenderedJob]) -> list[str]:
    from ..controllers.scheduling import pod_specs

    names = {DEFAULT_SCHEDULER}
    for job in jobs:
        if isinstance(job.document, dict):
            names |= {str(pod["schedulerName"]) for pod in pod_specs(job.document) if pod.get("schedulerName")}
    return sorted(names)

def default_wait(job: RenderedJob) -> Wait:
    """The wait ``job`` gets unless ``--job-timeout`` overrides it: from its size and the controllers' rates."""
    assert isinstance(job.document, dict)
    try:
        return job_wait(job.document)
    except ValueError:  # a kind whose size the rehearsal does not read from its spec: a pod per node
        return job_wait(job.document, pods=job.nodes)


def _chosen_jobs(outputs: StackOutputs, image: str, launchers: frozenset[str] | None,
                 groups: frozenset[str] | None) -> list[RenderedJob]:
    """The stack's Kubernetes jobs (an sbatch script is no object to submit), of ``launchers`` and ``groups`` only
    where they are given."""
    return [job for job in jobs_for(outputs, sizes="whole", image=image, named_by_launcher=True)
            if isinstance(job.document, dict) and (launchers is None or job.launcher in launchers)
            and (groups is None or job.group in groups)]


def rehearse(plan: Plan, progress: Progress = lambda line: None, image: str = IMAGE,
             timeout: float | None = None, directory: Path | None = None, faults: bool = False,
             launchers: frozenset[str] | None = None, groups: frozenset[str] | None = None) -> Rehearsal:
    """Rehearse a planned stack (``analysis.plan_stack``, or a saved record's ``Plan.from_dict``); with
    ``faults``, play ``rehearsal.faults`` too; ``launchers`` keeps only those launchers' jobs, ``groups`` only the
    jobs on those node groups (every group's nodes still register). ``timeout``: the
    seconds every job and fault is given; None (the default) gives each its own wait (rehearsal.waits)."""
    rehearsal = Rehearsal(plan.stack)
    outputs: StackOutputs = parse_outputs(plan.outputs)
    jobs = _chosen_jobs(outputs, image, launchers, groups)
    if not jobs and outputs.hyperpod is not None and outputs.hyperpod.orchestrator == "slurm":
        rehearsal.notes.append("a Slurm-orchestrated HyperPod stack has no Kubernetes layer to rehearse")
        return rehearsal
    if not jobs:
        return rehearsal
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="trainstack-rehearsal-") as scratch, \
            cluster_for(plan, scheduler_names(jobs), progress, directory or Path(scratch)) as running:
        rehearsal.seconds |= running.seconds
        rehearsal.controllers = running.controllers
        rehearsal.not_rehearsed += running.not_applied
        step = time.monotonic()
        for job in jobs:
            wait = default_wait(job) if timeout is None else explicit(timeout)
            result = submit(running.cluster, running.nodes, job, wait, progress)
            rehearsal.jobs.append(result)
            if not result.problem or "refused" not in result.problem:
                assert isinstance(job.document, dict)
                delete_job(running.cluster, job.document)
        rehearsal.seconds["jobs"] = round(time.monotonic() - step, 2)
        ran = [j for j, r in zip(jobs, rehearsal.jobs, strict=True) if r.ok and j.launcher != "render_device_check"]
        if faults and ran:
            step = time.monotonic()
            job = max(ran, key=lambda j: j.nodes)  # the widest training job: the one a lost node costs most
            progress(f"  fault: a node of {job.id} lost")
            assert isinstance(job.document, dict)
            document = copy.deepcopy(job.document)
            document["metadata"]["name"] += "-again"
            job = dataclasses.replace(job, document=document)
            again = submit(running.cluster, running.nodes, job, default_wait(job) if timeout is None
                           else explicit(timeout), progress)
            loss = node_loss_wait(document, pods=job.nodes) if timeout is None else explicit(timeout)
            progress(f"    waiting up to {loss.seconds:.0f} s for it to run whole again ({loss.why})")
            rehearsal.faults.append(lose_a_node(running.cluster, running.nodes, job, again.seen, loss.seconds))
            progress(f"    {rehearsal.faults[-1]['outcome']}")
            assert isinstance(job.document, dict)
            delete_job(running.cluster, job.document)
            rehearsal.seconds["nodeLost"] = round(time.monotonic() - step, 2)
        if faults and outputs.scheduling is not None:
            step = time.monotonic()
            # Before the teams' jobs, on their group: what they do in the meantime is what an unheld job would do.
            unqueued = unqueued_job(running.cluster, outputs, image, progress)
            teams = two_teams_at_once(running.cluster, running.nodes, outputs, image, timeout, progress)
            rehearsal.faults += [teams, unqueued_held(running.cluster, unqueued, teams, progress)]
            rehearsal.seconds["twoTeams"] = round(time.monotonic() - step, 2)
        _record_groups(rehearsal, running.nodes)
        _diagnose(rehearsal, plan, running.cluster, progress)
    rehearsal.seconds["total"] = round(time.monotonic() - began, 2)
    rehearsal.peak_memory_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    return rehearsal
