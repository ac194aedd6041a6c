"""A stack rehearsed: its planned Kubernetes layer on a real control plane with the controllers it
installs, its nodes played by kwok, and its jobs submitted one after another and watched.

    plan (offline, as `trainstack plan`)
      -> control plane (etcd, kube-apiserver, kube-scheduler, kube-controller-manager)
      -> kwok, the stack's nodes registered as each group's instances register
      -> the controllers the stack installs (JobSet, Trainer v2, training operator, MPI operator, Kueue)
      -> the stack's objects (namespaces, storage, queues, flavors, runtimes, priority classes)
      -> each job: submitted, admitted?, pods created, bound, Running; then deleted
"""

from __future__ import annotations

import contextlib
import resource
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..analysis import Plan
from ..controllers.scheduling import unfit_reasons
from ..names import NODE_GROUP_LABEL
from ..outputs import StackOutputs, parse_outputs
from ..policy import stack_from_plan
from . import controllers, engines, kwok
from .api import ApiError, Cluster
from .control_plane import ControlPlane, control_plane
from .faults import lose_a_node, two_teams
from .jobs import IMAGE, RenderedJob, jobs_for
from .nodes import NETWORK_BLOCK, GroupShape, group_shapes, node_object
from .stack_objects import stack_objects
from .watch import Observation, expected_pods, observe

Progress = Callable[[str], None]
JOB_TIMEOUT_SECONDS = 90.0
DEFAULT_SCHEDULER = "default-scheduler"


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

    @property
    def ok(self) -> bool:
        return self.problem is None


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

    @property
    def ok(self) -> bool:
        return all(job.ok for job in self.jobs)


def _installed(plan: Plan) -> dict[str, Any]:
    """Which controllers the plan installs: Helm charts by name, kustomize directories by path."""
    found: dict[str, Any] = {}
    for r in plan.resources:
        if r.type == "kubernetes:helm.sh/v3:Release":
            chart = str(r.inputs.get("chart"))
            if chart.endswith("/kueue"):
                found["kueue"] = r.inputs.get("values") or {}
            elif chart.endswith("/kubeflow-trainer"):
                found["trainer"] = r.inputs.get("values") or {}
        elif r.type == "kubernetes:kustomize/v2:Directory":
            directory = str(r.inputs.get("directory"))
            for name in ("training-operator", "mpi-operator"):
                if f"kustomize/{name}" in directory:
                    found[name] = directory.split("@")[0].removeprefix("trainstack:")
    return found


def _kustomization(package_path: str) -> dict[str, Any]:
    """A kustomization trainstack ships (``addons/kustomize/...``), read from the installed package."""
    path = Path(__file__).resolve().parents[1] / package_path / "kustomization.yaml"
    document: dict[str, Any] = yaml.safe_load(path.read_text())
    return document


def _training_operator_setup(package_path: str) -> tuple[list[str], tuple[str, ...]]:
    """The scheme arguments trainstack's kustomization adds, and the CRDs it deletes."""
    arguments: list[str] = []
    deleted: list[str] = []
    for patch in _kustomization(package_path).get("patches") or []:
        body = yaml.safe_load(patch["patch"])
        if isinstance(body, dict) and body.get("$patch") == "delete":
            deleted.append(body["metadata"]["name"])
        elif isinstance(body, list):
            arguments += [a for op in body if op.get("path", "").endswith("/args") for a in op["value"]]
    return arguments, tuple(deleted)


def start_controllers(plane: ControlPlane, plan: Plan, progress: Progress) -> dict[str, str]:
    """Start what the stack installs, each after what it depends on (Kueue last: it enables an
    integration only where that integration's CRD is already served)."""
    installed = _installed(plan)
    started: dict[str, str] = {}

    def version(engine: str) -> str:
        where = engines.build_script().parent / engine / "go.mod"
        for line in where.read_text().splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[0].rstrip("/").endswith(_UPSTREAM[engine]) and parts[1].startswith("v"):
                return parts[1]
        return "unknown"

    def launch(controller: controllers.Controller, configure: Callable[[Path, int], list[str]],
               skipped: tuple[str, ...] = ()) -> None:
        began = time.monotonic()
        controllers.start(plane, controller, configure, skipped)
        started[controller.name] = version(controller.engine)
        progress(f"  {controller.name} {started[controller.name]} ready in {time.monotonic() - began:.1f} s")

    if "trainer" in installed:
        if (installed["trainer"].get("jobset") or {}).get("install", True):
            manifests = engines.directory(engines.JOBSET) / "manifests"
            launch(controllers.JOBSET, controllers.jobset_arguments(manifests))
        launch(controllers.TRAINER, controllers.trainer_arguments(engines.directory(engines.TRAINER) / "manifests"))
    if "training-operator" in installed:
        arguments, deleted = _training_operator_setup(installed["training-operator"])
        controllers.seed_training_operator_secret(plane)
        launch(controllers.TRAINING_OPERATOR, controllers.training_operator_arguments(arguments), deleted)
    if "mpi-operator" in installed:
        launch(controllers.MPI_OPERATOR, controllers.mpi_operator_arguments(plane))
    if "kueue" in installed:
        configuration = yaml.safe_load(installed["kueue"]["managerConfig"]["controllerManagerConfigYaml"])
        launch(controllers.KUEUE, controllers.kueue_arguments(configuration))
    return started


_UPSTREAM = {engines.KUEUE: "sigs.k8s.io/kueue", engines.JOBSET: "sigs.k8s.io/jobset",
             engines.TRAINER: "github.com/kubeflow/trainer/v2",
             engines.MPI_OPERATOR: "github.com/kubeflow/mpi-operator",
             engines.TRAINING_OPERATOR: "github.com/kubeflow/training-operator", engines.KWOK: "sigs.k8s.io/kwok"}


class Nodes:
    """The registered nodes of each group, and the Cluster Autoscaler's part for groups it grows."""

    def __init__(self, cluster: Cluster, shapes: list[GroupShape]):
        self.cluster = cluster
        self.shapes = {shape.name: shape for shape in shapes}
        self.count = {shape.name: 0 for shape in shapes}

    def register(self, shape: GroupShape, how_many: int) -> None:
        for _ in range(how_many):
            node = node_object(shape, self.count[shape.name])
            self.cluster.create(node)
            self.count[shape.name] += 1

    def scale_for(self, pods: list[dict[str, Any]]) -> int:
        """Grow each group at zero by one node per pod that waits for it and fits its template node
        (cluster-autoscaler's scale-up), up to the group's maximum; return how many nodes were added."""
        added = 0
        for pod in pods:
            if pod["spec"].get("nodeName") or not _unschedulable(pod):
                continue
            shape = self.shapes.get((pod["spec"].get("nodeSelector") or {}).get(NODE_GROUP_LABEL, ""))
            if shape is None or shape.template is None or self.count[shape.name] >= shape.maximum:
                continue
            if unfit_reasons(pod["spec"], shape.template):
                continue
            self.register(shape, 1)
            added += 1
        return added


def _unschedulable(pod: dict[str, Any]) -> bool:
    return any(c["type"] == "PodScheduled" and c["status"] == "False"
               for c in pod.get("status", {}).get("conditions", []))


def apply_objects(cluster: Cluster, plan: Plan) -> list[str]:
    """Create the stack's objects; return the ones left out and why."""
    objects = stack_objects(plan)
    for obj in objects.apply:
        try:
            cluster.create(obj)
        except ApiError as error:
            if error.status != 409:
                raise RuntimeError(f"the API server refused the stack's {obj['kind']} "
                                   f"{obj['metadata']['name']}: {error}") from error
    return [f"{name}: Karpenter is not run (its kwok provider offers generic instance types, not the stack's); "
            "its nodes are added as its model launches them" for name in objects.not_applied]


def submit(cluster: Cluster, nodes: Nodes, job: RenderedJob, timeout: float, progress: Progress) -> JobResult:
    assert isinstance(job.document, dict)
    document = job.document
    namespace = document["metadata"].get("namespace", "default")
    controllers.ensure_namespace(cluster, namespace)
    queued = "kueue.x-k8s.io/queue-name" in (document["metadata"].get("labels") or {})
    seen = Observation(document["kind"], document["metadata"]["name"], namespace, expected_pods(document), queued)
    result = JobResult(job.id, job.launcher, job.group, job.nodes, seen)
    try:
        cluster.create(document)
    except ApiError as error:
        result.problem = f"refused at submission: {error}"
        return result
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pods = observe(cluster, seen)
        result.scaled_up += nodes.scale_for(pods)
        if seen.running_whole:
            break
        time.sleep(0.25)
    result.evidence = _evidence(cluster, document, observe(cluster, seen))
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
        return f"FAILED: {result.problem}"
    admitted = f"admitted to {seen.cluster_queue} on {', '.join(seen.flavors)}" if seen.queued else "no queue"
    return (f"{admitted}; {seen.running}/{seen.expected} pods Running on {len(seen.nodes)} nodes in "
            f"{seen.seconds.get('running', 0):.1f} s")


def delete_job(cluster: Cluster, document: dict[str, Any], timeout: float = 60.0) -> None:
    """Delete the job and wait until its pods are gone (the garbage collector finishes the foreground deletion)."""
    cluster.request("DELETE", cluster.path_of(document), {"propagationPolicy": "Foreground"})
    namespace = document["metadata"].get("namespace", "default")
    kind, name = document["kind"], document["metadata"]["name"]
    from .watch import pods_of

    cluster.wait_for(f"{kind} {name} and its pods deleted", lambda: not pods_of(cluster, kind, name, namespace)
                     and not _exists(cluster, document), timeout)


def _exists(cluster: Cluster, document: dict[str, Any]) -> bool:
    try:
        cluster.get(cluster.path_of(document))
        return True
    except ApiError as error:
        if error.status == 404:
            return False
        raise


def scheduler_names(jobs: list[RenderedJob]) -> list[str]:
    from ..controllers.scheduling import pod_specs

    names = {DEFAULT_SCHEDULER}
    for job in jobs:
        if isinstance(job.document, dict):
            names |= {pod.get("schedulerName") for pod in pod_specs(job.document) if pod.get("schedulerName")}
    return sorted(names)


@contextlib.contextmanager
def _timed(rehearsal: Rehearsal, step: str) -> Iterator[None]:
    began = time.monotonic()
    yield
    rehearsal.seconds[step] = round(time.monotonic() - began, 2)


def rehearse(plan: Plan, progress: Progress = lambda line: None, image: str = IMAGE,
             timeout: float = JOB_TIMEOUT_SECONDS, directory: Path | None = None, faults: bool = False,
             launchers: frozenset[str] | None = None) -> Rehearsal:
    """Rehearse a planned stack (``analysis.plan_stack``, or a saved record's ``Plan.from_dict``); with
    ``faults``, play ``rehearsal.faults`` too; ``launchers`` keeps only those launchers' jobs."""
    rehearsal = Rehearsal(plan.stack)
    outputs: StackOutputs = parse_outputs(plan.outputs)
    jobs = [job for job in jobs_for(outputs, sizes="whole", image=image)
            if isinstance(job.document, dict) and (launchers is None or job.launcher in launchers)]
    if not jobs and outputs.hyperpod is not None and outputs.hyperpod.orchestrator == "slurm":
        rehearsal.notes.append("a Slurm-orchestrated HyperPod stack has no Kubernetes layer to rehearse")
        return rehearsal
    shapes = group_shapes(stack_from_plan(plan))
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="trainstack-rehearsal-") as scratch:
        work = directory or Path(scratch)
        progress(f"rehearsing {plan.stack}: building or finding the engines")
        with _timed(rehearsal, "engines"):
            for engine in (engines.KUBERNETES, engines.KWOK):
                engines.directory(engine)
        progress("starting etcd, kube-apiserver, kube-scheduler, kube-controller-manager")
        with control_plane(scheduler_names(jobs), controller_manager=True, directory=work) as plane:
            rehearsal.seconds["controlPlane"] = round(time.monotonic() - began - rehearsal.seconds["engines"], 2)
            kwok.start(plane)
            rehearsal.controllers["kwok"] = "v0.7.0"
            nodes = Nodes(plane.cluster, shapes)
            with _timed(rehearsal, "nodes"):
                for shape in shapes:
                    nodes.register(shape, shape.desired)
                    rehearsal.groups[shape.name] = {
                        "instanceType": shape.instance_type, "kind": shape.kind, "registered": shape.desired,
                        "maximum": shape.maximum, "scalesFromZero": shape.template is not None}
                plane.cluster.wait_for("every registered node Ready and untainted", lambda: _nodes_ready(plane),
                                       timeout=60)
            progress(f"  {sum(nodes.count.values())} nodes Ready ({NETWORK_BLOCK})")
            with _timed(rehearsal, "controllers"):
                rehearsal.controllers |= start_controllers(plane, plan, progress)
            with _timed(rehearsal, "objects"):
                rehearsal.not_rehearsed += apply_objects(plane.cluster, plan)
            with _timed(rehearsal, "jobs"):
                for job in jobs:
                    result = submit(plane.cluster, nodes, job, timeout, progress)
                    rehearsal.jobs.append(result)
                    if faults and result.ok and job.launcher != "render_device_check" and not rehearsal.faults:
                        progress(f"  fault: a node of {job.id} lost")
                        rehearsal.faults.append(lose_a_node(plane.cluster, nodes.scale_for, job, result.seen))
                        progress(f"    {rehearsal.faults[-1]['outcome']}")
                    if not result.problem or "refused" not in result.problem:
                        assert isinstance(job.document, dict)
                        delete_job(plane.cluster, job.document)
            if faults and outputs.scheduling is not None:
                with _timed(rehearsal, "twoTeams"):
                    rehearsal.faults.append(two_teams_at_once(plane.cluster, nodes, outputs, image, timeout, progress))
            for name in rehearsal.groups:
                rehearsal.groups[name]["registeredAtEnd"] = nodes.count[name]
    rehearsal.seconds["total"] = round(time.monotonic() - began, 2)
    rehearsal.peak_memory_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    return rehearsal


def two_teams_at_once(cluster: Cluster, nodes: Nodes, outputs: StackOutputs, image: str, timeout: float,
                      progress: Progress) -> dict[str, Any]:
    """Every team submits, at the same moment, the validation job on the most nodes its queue can reach."""
    from .. import launch

    group = sorted(outputs.accelerated_groups)[0]
    reaches = two_teams(outputs, group)
    documents = [launch.render_device_check(outputs, name=f"{team}-{reach}", group_name=group, nodes=reach, image=image,
                                            queue=launch.QueueRequest(team=team)) for team, reach in reaches]
    progress(f"  fault: {' and '.join(f'{team} ({reach} nodes)' for team, reach in reaches)} submit at once")
    seen = []
    for document in documents:
        cluster.create(document)
        namespace = document["metadata"]["namespace"]
        seen.append(Observation("Job", document["metadata"]["name"], namespace, expected_pods(document), True))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for observation in seen:
            nodes.scale_for(observe(cluster, observation))
        if any(o.running_whole for o in seen) and all(o.running_whole or o.reason for o in seen):
            break
        time.sleep(0.25)
    outcome = "; ".join(f"{o.namespace}: " + (f"admitted to {o.cluster_queue}, {o.running} pods Running"
                                               if o.running_whole else f"waiting ({o.reason})") for o in seen)
    progress(f"    {outcome}")
    for document in documents:
        delete_job(cluster, document)
    return {"fault": "two teams at once", "group": group, "outcome": outcome,
            "ok": any(o.running_whole for o in seen),
            "teams": {o.namespace: {"admitted": o.admitted, "running": o.running, "reason": o.reason} for o in seen}}


def _nodes_ready(plane: ControlPlane) -> bool:
    plane.processes.check()
    for node in plane.cluster.list("v1", "Node"):
        conditions = node.get("status", {}).get("conditions", [])
        ready = any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)
        tainted = any(t["key"].startswith("node.kubernetes.io/") for t in node["spec"].get("taints", []))
        if not ready or tainted:
            return False
    return True
