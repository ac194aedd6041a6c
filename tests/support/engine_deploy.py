"""A stack's Kubernetes layer deployed by the real Pulumi engine (trainstack.deploy) onto the rehearsal's
control plane, through one whole life: preview, up, a second up, a change of one input, destroy.

The cluster is the rehearsal's (etcd, kube-apiserver, kube-scheduler, kube-controller-manager, kwok for
the kubelets) with the nodes an existing cluster of the stack would have: two system nodes and each
described group's nodes, labelled and tainted as the stack file says they are. What the test cluster
lacks and a real EKS cluster has, made here and named: a volume of the ``trainstack-gp3`` class for
each claim that needs one (the EBS CSI driver would provision it), the charts (stand-ins,
support/stand_in_charts.py, since no chart repository is reachable), and a local git mirror of the
training operator's tag that trainstack's kustomization names (support/git_mirror.py).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from trainstack.addons.device_plugins import NEURON_SCHEDULER_NAME
from trainstack.addons.persistent_volumes import STORAGE_CLASS
from trainstack.analysis import plan_stack
from trainstack.analysis.planning import stack_config
from trainstack.deploy.engine import Engine, Outcome, run
from trainstack.kube.client import ApiError, Cluster
from trainstack.names import NODE_GROUP_LABEL
from trainstack.nodegroups.karpenter_pool import pool_marks
from trainstack.plan import Plan, Project, find_project, load_stack
from trainstack.rehearsal import kwok
from trainstack.rehearsal.control_plane import ControlPlane, control_plane

from support.git_mirror import git_mirrors
from support.stand_in_charts import stand_in_charts

REPO = Path(__file__).resolve().parents[2]
SYSTEM_NODES = 2


@dataclass
class Life:
    """What each step of the stack's life did, and what the API server held after it."""

    stack: str
    plan: Plan
    charts: list[str]
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    objects_after: dict[str, set[tuple[str, str, str]]] = field(default_factory=dict)
    """``(kind, namespace, name)`` of the objects trainstack's resources name, in the API server after each step."""
    state: list[dict[str, Any]] = field(default_factory=list)
    """The engine's resources after the first ``up`` (its checkpoint)."""
    system_seconds: dict[str, float] = field(default_factory=dict)
    disk_bytes: int = 0
    """What the life left on disk at its end (the control plane's etcd and logs, the engine's state), before its
    directory is removed."""


def node(name: str, labels: dict[str, str], taints: list[dict[str, Any]], allocatable: dict[str, str]) -> dict:
    labels = {**labels, "kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": labels, "annotations": {"kwok.x-k8s.io/node": "fake"}},
            "spec": {"taints": [{k: v for k, v in t.items() if v} for t in taints] or None},
            "status": {"capacity": allocatable, "allocatable": allocatable}}


def create_node(cluster: Cluster, document: dict[str, Any]) -> None:
    """A Node as its kubelet registers it, then made schedulable as the node lifecycle controller would once it is
    Ready: the API server's TaintNodesByCondition admission gives every new node the ``not-ready`` taint, and the
    controller, which the deploy's control plane does not run (engine_deploy.existing_cluster), never lifts it."""
    created = cluster.create(document)
    cluster.patch(created, {"spec": {"taints": document["spec"].get("taints")}})


def register_nodes(cluster: Cluster, project: Project, stack: str) -> None:
    """The existing cluster's nodes: system nodes and each described group's, as the stack says they are."""
    config = stack_config(load_stack(project, stack))
    assert config is not None
    small = {"cpu": "8", "memory": "16Gi", "pods": "58"}
    for index in range(SYSTEM_NODES):
        create_node(cluster, node(f"system-{index}", {NODE_GROUP_LABEL: "system"}, [], small))
    for group in config.node_groups:
        labels, taints = pool_marks(group)
        instance, accelerator = group.instance, group.accelerator
        devices = {accelerator.resource_names[0]: str(accelerator.count), "vpc.amazonaws.com/efa": str(
            group.efa_interfaces_per_node), "hugepages-2Mi": "5120Mi"} if group.efa_enabled else {
            accelerator.resource_names[0]: str(accelerator.count)}
        for index in range(group.desired_size):
            create_node(cluster, node(f"{group.name}-{index}", labels, taints, {
                "cpu": str(instance.vcpus), "memory": f"{instance.memory_gib}Gi", "pods": "100", **devices}))


def provision_volumes(cluster: Cluster, count: int) -> None:
    """What the EBS CSI driver would provision for claims of the gp3 class: volumes to bind them to."""
    for index in range(count):
        cluster.create({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": f"ebs-stand-in-{index}"},
                        "spec": {"capacity": {"storage": "200Gi"}, "accessModes": ["ReadWriteOnce"],
                                 "storageClassName": STORAGE_CLASS, "persistentVolumeReclaimPolicy": "Delete",
                                 "hostPath": {"path": f"/var/lib/ebs-stand-in-{index}"}}})


def named_objects(plan: Plan) -> list[tuple[str, str, str, str]]:
    """``(apiVersion, kind, namespace, name)`` of every object the plan's Kubernetes resources name themselves
    (Helm releases and kustomize directories make theirs inside the provider)."""
    found = []
    for record in plan.resources:
        parts = record.type.split(":")
        if parts[0] != "kubernetes" or "/" not in parts[1] or parts[1].startswith(("helm.sh", "kustomize", "yaml")):
            continue
        group_version, kind = parts[1].removeprefix("core/"), parts[2]
        metadata = record.inputs.get("metadata") or {}
        found.append((group_version, kind, metadata.get("namespace", ""), metadata["name"]))
    return found


def present(cluster: Cluster, objects: list[tuple[str, str, str, str]]) -> set[tuple[str, str, str]]:
    """Which of ``objects`` the API server holds (and not on their way out)."""
    held = set()
    for api_version, kind, namespace, name in objects:
        document = {"apiVersion": api_version, "kind": kind,
                    "metadata": {"name": name, **({"namespace": namespace} if namespace else {})}}
        try:
            found = cluster.get(cluster.path_of(document))
        except ApiError as error:
            if error.status == 404:
                continue
            raise
        if not found["metadata"].get("deletionTimestamp"):
            held.add((kind, namespace, name))
    return held


@contextmanager
def existing_cluster(project: Project, stack: str, directory: Path) -> Iterator[ControlPlane]:
    # Without the node lifecycle controller (control_plane says why); create_node lifts the taint it would.
    with control_plane(["default-scheduler", NEURON_SCHEDULER_NAME], controller_manager=True,
                       directory=directory / "cluster", node_lifecycle=False) as plane:
        kwok.start(plane)
        register_nodes(plane.cluster, project, stack)
        yield plane


Change = tuple[str, Callable[[Any], Any]]
"""A config key and how to change its value."""


def live(stack: str, change: Optional[Change] = None, progress: Callable[[str], None] = print,
         directory: Optional[Path] = None, project: Optional[Project] = None, policies: bool = False) -> Life:
    """The life of ``stack``'s Kubernetes layer: preview, up, a second up (with ``policies``, a preview with the
    policy pack too), the ``change`` (if any), destroy. Without a ``directory``, the life's own is removed at its
    end: a run of the engine tests lives a dozen lives."""
    if directory is None:
        with tempfile.TemporaryDirectory(prefix=f"trainstack-deploy-{stack}-") as scratch:
            return live(stack, change, progress, Path(scratch), project, policies)
    project = project or find_project(REPO)
    plan = plan_stack(stack, project)
    charts = stand_in_charts(plan, directory / "charts")
    life = Life(stack, plan, charts)
    objects = named_objects(plan)
    settings = load_stack(project, stack)
    began = time.monotonic()
    mirrors = git_mirrors(directory / "git")
    with existing_cluster(project, stack, directory) as plane, _environment(GIT_CONFIG_GLOBAL=str(mirrors)):
        life.system_seconds["cluster"] = round(time.monotonic() - began, 2)
        provision_volumes(plane.cluster, 4)
        existing = json.loads(settings.config["trainstack:existingCluster"])
        existing.pop("endpoint", None)
        existing.pop("certificateAuthority", None)
        overrides = {"trainstack:existingCluster": json.dumps({**existing, "kubeconfig": str(plane.kubeconfig)}),
                     "trainstack:helmCharts": json.dumps({"directory": str(directory / "charts")})}
        engine = Engine.built(automatic_logs=False)
        state = directory / "state"

        def step(label: str, action: str, config: dict[str, str], packs: Optional[list[str]] = None) -> None:
            progress(f"{stack}: {label}")
            life.outcomes[label] = run(project, stack, action, engine=engine, state=state, config=config,  # type: ignore[arg-type]
                                       progress=progress, policy_packs=packs)
            life.objects_after[label] = present(plane.cluster, objects)

        step("preview", "preview", overrides)
        step("up", "up", overrides)
        life.state = _engine_resources(state, stack)
        step("no-op up", "up", overrides)
        if policies:
            step("preview with the policy pack", "preview", overrides, [str(REPO / "policies")])
        if change is not None:
            key, changed = change
            overrides = {**overrides, key: json.dumps(changed(json.loads(settings.config[key])))}
            step("changed up", "up", overrides)
        step("destroy", "destroy", overrides)
    life.disk_bytes = sum(f.stat().st_size for f in directory.rglob("*") if f.is_file() and not f.is_symlink())
    return life


@contextmanager
def _environment(**variables: str) -> Iterator[None]:
    """``variables`` set for this process and what it starts (the CLI, the provider, its git)."""
    before = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _engine_resources(state: Path, stack: str) -> list[dict[str, Any]]:
    """The resources of the stack's checkpoint in the local backend, as the engine recorded them."""
    found = list(state.glob(f".pulumi/stacks/**/{stack}.json"))
    assert found, f"no checkpoint of {stack} under {state}"
    checkpoint = json.loads(found[0].read_text())
    return list(checkpoint["checkpoint"]["latest"]["resources"])
