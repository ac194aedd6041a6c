"""The rehearsal's cluster: the control plane with kwok's nodes shaped as the stack's groups, the
controllers the stack installs started after what they depend on, and the stack's own objects
applied, as one context (``cluster_for``) that the rehearsal and the tests submit jobs to.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..analysis import Plan
from ..controllers.scheduling import unfit_reasons
from ..kube.client import ApiError, Cluster
from ..names import HELM_RELEASE, KUSTOMIZE_DIRECTORY, NODE_GROUP_LABEL
from ..policy import stack_from_plan
from . import controllers, dra, engines, karpenter, kwok
from .control_plane import ControlPlane, control_plane
from .nodes import KARPENTER_POOL, NETWORK_BLOCK, PART_ANNOTATION, GroupShape, group_shapes, node_object
from .stack_objects import stack_objects

Progress = Callable[[str], None]


class RehearsalError(RuntimeError):
    """The stack's Kubernetes layer cannot even be set up (an object refused): the rehearsal cannot go on."""


def _installed(plan: Plan) -> dict[str, Any]:
    """Which controllers the plan installs: Helm charts by name, kustomize directories by path."""
    found: dict[str, Any] = {}
    for r in plan.resources:
        if r.type == HELM_RELEASE:
            chart = str(r.inputs.get("chart"))
            if chart.endswith("/kueue"):
                found["kueue"] = r.inputs.get("values") or {}
            elif chart.endswith("/kubeflow-trainer"):
                found["trainer"] = r.inputs.get("values") or {}
        elif r.type == KUSTOMIZE_DIRECTORY:
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

def start_controllers(plane: ControlPlane, plan: Plan, progress: Progress,
                      pools: list[karpenter.Pool] | None = None) -> dict[str, str]:
    """Start what the stack installs, each after what it depends on (Kueue last: it enables an
    integration only where that integration's CRD is already served), and Karpenter for ``pools``."""
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
               skipped: tuple[str, ...] = (), ready: Callable[[], None] = lambda: None) -> None:
        began = time.monotonic()
        controllers.start(plane, controller, configure, skipped)
        ready()
        started[controller.name] = version(controller.engine)
        progress(f"  {controller.name} {started[controller.name]} ready in {time.monotonic() - began:.1f} s")

    if "trainer" in installed:
        if (installed["trainer"].get("jobset") or {}).get("install", True):
            manifests = engines.directory(engines.JOBSET) / "manifests"
            launch(controllers.JOBSET, controllers.jobset_arguments(manifests))
        launch(controllers.TRAINER, controllers.trainer_arguments(engines.directory(engines.TRAINER) / "manifests"))
    if "training-operator" in installed:
        arguments, deleted = _training_operator_setup(installed["training-operator"])
        launch(controllers.TRAINING_OPERATOR, controllers.training_operator_arguments(arguments), deleted)
    if "mpi-operator" in installed:
        launch(controllers.MPI_OPERATOR, controllers.mpi_operator_arguments(plane))
    if "kueue" in installed:
        configuration = yaml.safe_load(installed["kueue"]["managerConfig"]["controllerManagerConfigYaml"])
        launch(controllers.KUEUE, controllers.kueue_arguments(configuration))
    if pools:
        launch(controllers.KARPENTER, karpenter.arguments(pools), ready=lambda: karpenter.apply_pools(plane, pools))
    return started

_UPSTREAM = {engines.KUEUE: "sigs.k8s.io/kueue", engines.JOBSET: "sigs.k8s.io/jobset",
             engines.TRAINER: "github.com/kubeflow/trainer/v2",
             engines.MPI_OPERATOR: "github.com/kubeflow/mpi-operator",
             engines.TRAINING_OPERATOR: "github.com/kubeflow/training-operator", engines.KWOK: "sigs.k8s.io/kwok",
             engines.KARPENTER_KWOK: "sigs.k8s.io/karpenter"}

REGISTERING_KUBELETS = 16
"""Nodes that register at once: enough to keep the API server busy on two cores (kube.client's connection pool
holds as many connections)."""


class Nodes:
    """The registered nodes of each group, and the Cluster Autoscaler's part for groups it grows."""

    def __init__(self, cluster: Cluster, shapes: list[GroupShape]):
        self.cluster = cluster
        self.shapes = {shape.key: shape for shape in shapes}
        """Each managed node group (a pool's each part), HyperPod instance group and Karpenter pool."""
        self.count = {shape.key: 0 for shape in shapes}
        """Nodes of each there now."""
        self._launched = {shape.key: 0 for shape in shapes}
        """Nodes each ever had: a new node takes a new name, as a new instance does."""
        self.karpenter = karpenter.Watch(cluster)
        """The pools the real Karpenter launches nodes for (``cluster_for`` names them), and the model's question."""

    def register(self, shape: GroupShape, how_many: int) -> None:
        """``how_many`` new nodes of ``shape`` join, as their kubelets would: side by side, each its own requests
        (one at a time, 2,048 nodes took 12 minutes to register; the API server serves them concurrently)."""
        first = self._launched[shape.key]
        self._launched[shape.key] += how_many

        def join(index: int) -> None:
            node = self.cluster.create(node_object(shape, index))
            kwok.schedulable(self.cluster, node)
            for published in dra.resource_slices(node, shape.devices):
                self.cluster.create(published)

        with ThreadPoolExecutor(max_workers=min(REGISTERING_KUBELETS, how_many) or 1) as kubelets:
            list(kubelets.map(join, range(first, first + how_many)))
        self.count[shape.key] += how_many

    def lose(self, name: str) -> str | None:
        """Delete node ``name``, as when EC2 terminates its instance and the Node object goes with it. A managed
        node group's Auto Scaling group launches a replacement to keep its desired capacity, and HyperPod
        replaces a faulty instance: their new node joins at once here (EC2 takes minutes); a Karpenter pool
        launches one only for pods that wait (``scale_for``). Returns the replacement's name, if any."""
        node = self.cluster.get(f"/api/v1/nodes/{name}")
        self.cluster.request("DELETE", f"/api/v1/nodes/{name}")
        metadata = node["metadata"]
        group = (metadata.get("annotations") or {}).get(PART_ANNOTATION) or metadata["labels"][NODE_GROUP_LABEL]
        self.count[group] -= 1
        shape = self.shapes[group]
        if shape.kind == KARPENTER_POOL or self.count[group] >= shape.desired:
            return None
        self.register(shape, 1)
        return f"{shape.key}-{self._launched[group] - 1}"

    def scale_for(self, pods: list[dict[str, Any]]) -> int:
        """Grow each group at zero by one node per pod that waits for it and fits its template node
        (cluster-autoscaler's scale-up), up to the group's maximum; return how many nodes were added, the ones the
        real Karpenter launched for its pools included."""
        added = self._karpenter_launched()
        for pod in pods:
            if pod["spec"].get("nodeName") or not _unschedulable(pod) or self.karpenter.saw(pod):
                continue
            group = (pod["spec"].get("nodeSelector") or {}).get(NODE_GROUP_LABEL, "")
            # The autoscaler grows any part of a pool with room (the pool's parts share one template).
            shape = next((s for s in self.shapes.values() if s.name == group and s.template is not None
                          and self.count[s.key] < s.maximum), None)
            if shape is None or shape.template is None or unfit_reasons(pod["spec"], shape.template):
                continue
            self.register(shape, 1)
            added += 1
        return added

    def _karpenter_launched(self) -> int:
        """How many nodes the real Karpenter's pools gained since the last look."""
        gained = 0
        for group in self.karpenter.pools:
            now = self.karpenter.nodes(group)
            gained += max(0, now - self.count[group])
            self.count[group] = now
        return gained


def _unschedulable(pod: dict[str, Any]) -> bool:
    return any(c["type"] == "PodScheduled" and c["status"] == "False"
               for c in pod.get("status", {}).get("conditions", []))


def apply_objects(cluster: Cluster, plan: Plan) -> list[str]:
    """Create the stack's objects; return the ones left out and why."""
    objects = stack_objects(plan)
    for obj in objects.apply:
        if obj["metadata"].get("namespace"):
            # A Helm release creates its namespace (createNamespace); the releases are not applied here.
            controllers.ensure_namespace(cluster, obj["metadata"]["namespace"])
        try:
            cluster.create(obj)
        except ApiError as error:
            if error.status != 409:
                raise RehearsalError(f"the API server refused the stack's {obj['kind']} "
                                   f"{obj['metadata']['name']}: {error}") from error
    return [line for name in objects.not_applied if (line := karpenter.not_applied(name))]

def _nodes_ready(plane: ControlPlane) -> bool:
    plane.processes.check()
    for node in plane.cluster.list("v1", "Node"):
        conditions = node.get("status", {}).get("conditions", [])
        ready = any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)
        tainted = any(t["key"].startswith("node.kubernetes.io/") for t in node["spec"].get("taints", []))
        if not ready or tainted:
            return False
    return True


@dataclass
class RehearsalCluster:
    """A running rehearsal cluster: the control plane, the nodes, the controllers started (name -> version)."""

    plane: ControlPlane
    nodes: Nodes
    controllers: dict[str, str]
    not_applied: list[str]
    seconds: dict[str, float]

    @property
    def cluster(self) -> Cluster:
        return self.plane.cluster


@contextlib.contextmanager
def cluster_for(plan: Plan, scheduler_names: list[str], progress: Progress = lambda line: None,
                directory: Path | None = None) -> Iterator[RehearsalCluster]:
    """The stack of ``plan`` on a rehearsal cluster; every process stopped on exit."""
    seconds: dict[str, float] = {}
    began = time.monotonic()
    progress(f"rehearsing {plan.stack}: building or finding the engines")
    for engine in (engines.KUBERNETES, engines.KWOK):
        engines.directory(engine)
    seconds["engines"] = round(time.monotonic() - began, 2)
    progress("starting etcd, kube-apiserver, kube-scheduler")
    with control_plane(scheduler_names, directory=directory) as plane:
        seconds["controlPlane"] = round(time.monotonic() - began - seconds["engines"], 2)
        kwok.start(plane)
        step = time.monotonic()
        stack = stack_from_plan(plan)
        nodes = Nodes(plane.cluster, group_shapes(stack))
        for device_class in dra.device_classes(c for shape in nodes.shapes.values() for c in shape.devices):
            plane.cluster.create(device_class)
        for shape in nodes.shapes.values():
            nodes.register(shape, shape.desired)
        plane.processes.wait_for("kwok", "every registered node Ready and untainted", lambda: _nodes_ready(plane))
        seconds["nodes"] = round(time.monotonic() - step, 2)
        progress(f"  {sum(nodes.count.values())} nodes Ready ({NETWORK_BLOCK})")
        step = time.monotonic()
        pools, left = karpenter.pools_to_run(stack, nodes.shapes.values())
        started = {"kwok": "v0.7.0", **start_controllers(plane, plan, progress, pools)}
        # Once the controllers' CRDs are in, so that its garbage collector knows them from the start.
        plane.start_controller_manager()
        nodes.karpenter = karpenter.Watch(plane.cluster, pools)
        seconds["controllers"] = round(time.monotonic() - step, 2)
        step = time.monotonic()
        not_applied = apply_objects(plane.cluster, plan) + left
        seconds["objects"] = round(time.monotonic() - step, 2)
        yield RehearsalCluster(plane, nodes, started, not_applied, seconds)
