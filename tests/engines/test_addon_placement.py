"""The add-ons' own workloads go where trainstack's placement sends them: every
nodeSelector (with its tolerations) that a shipped stack's plan record sets in a Helm
release's values, and the operators' kustomizations, scheduled by the real kube-scheduler
against the stack's system and accelerated nodes.

A DaemonSet's pod is made for each node its selector matches, pinned to that node as the
DaemonSet controller pins it (kubernetes pkg/controller/daemon/util
``ReplaceDaemonSetPodNodeNameNodeAffinity``); the test also asserts the selector matches
exactly the nodes that need the add-on (those with its device resource). A Deployment's
pod must be bound to a system node. The charts themselves are not rendered (no Helm here):
the pod carries the values' nodeSelector, tolerations and requests, which the charts copy
into their pod templates."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import yaml
from support import rendered_jobs
from support.control_plane import Cluster
from support.engine_cluster import StackCluster, scheduling_message
from trainstack.names import DEVICE_ALLOCATION_LABEL
from trainstack.plan import library_paths
from trainstack.rehearsal import engines

pytestmark = pytest.mark.engines(engines.KUBERNETES)

# The device resource whose nodes each per-node add-on must run on.
DAEMONSETS = {"nvidia-device-plugin": "nvidia.com/gpu", "dcgm-exporter": "nvidia.com/gpu",
              "aws-efa-k8s-device-plugin": "vpc.amazonaws.com/efa",
              "neuron-helm-chart/devicePlugin": "aws.amazon.com/neuron"}
# The DRA drivers' per-node plugins (addons/dra_drivers.py): on every node whose devices go by Dynamic Resource
# Allocation, which advertise no extended resource.
DRA_DAEMONSETS = {"aws-dranet", "dra-driver-nvidia-gpu/kubeletPlugin"}
EKS_STACKS = [s for s in rendered_jobs.REGISTERED_STACKS if any(
    r["type"] in ("aws:eks/nodeGroup:NodeGroup", "trainstack:index:ExistingNodeGroup")
    for r in rendered_jobs.planned_record(s)["resources"])]


@dataclass(frozen=True)
class Placement:
    workload: str
    node_selector: dict[str, str]
    tolerations: list[dict[str, Any]] = field(default_factory=list)
    requests: dict[str, str] = field(default_factory=dict)


def _placements_in(values: Any, path: str) -> Iterator[Placement]:
    if not isinstance(values, dict):
        return
    if isinstance(values.get("nodeSelector"), dict):
        yield Placement(path, values["nodeSelector"], values.get("tolerations") or [],
                        (values.get("resources") or {}).get("requests") or {})
    for key, value in values.items():
        yield from _placements_in(value, f"{path}/{key}")


def placements(stack: str) -> list[Placement]:
    found = []
    for r in rendered_jobs.planned_record(stack)["resources"]:
        if r["type"] == "kubernetes:helm.sh/v3:Release":
            chart = r["inputs"]["chart"].rsplit("/", 1)[-1]
            found += _placements_in(r["inputs"].get("values") or {}, chart)
        elif r["type"] == "kubernetes:kustomize/v2:Directory":
            # Recorded as the overlay's identifier inside trainstack (plan/library_paths.py).
            directory = library_paths.installed(r["inputs"]["directory"])
            document = yaml.safe_load((directory / "kustomization.yaml").read_text())
            for patch in document.get("patches") or []:
                for op in yaml.safe_load(patch["patch"]) or []:
                    if isinstance(op, dict) and op.get("path") == "/spec/template/spec/nodeSelector":
                        found.append(Placement(f"kustomize/{patch['target']['name']}", op["value"]))
    return found


def _pod(name: str, placement: Placement, node: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "nodeSelector": placement.node_selector, "tolerations": placement.tolerations,
        "containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10",
                        "resources": {"requests": placement.requests} if placement.requests else {}}]}
    if node is not None:
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]}}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def test_every_shipped_stack_with_eks_sets_add_on_placements() -> None:
    assert EKS_STACKS and all(placements(stack) for stack in EKS_STACKS)
    assert {"kustomize/training-operator", "kustomize/mpi-operator"} <= {
        p.workload for stack in EKS_STACKS for p in placements(stack)}


@pytest.mark.parametrize("stack", EKS_STACKS)
def test_add_on_workloads_are_scheduled_where_trainstack_places_them(cluster: Cluster, stack: str) -> None:
    nodes = StackCluster(cluster, stack)
    registered = cluster.get("/api/v1/nodes")["items"]
    pods: dict[str, tuple[Placement, str | None]] = {}
    for number, placement in enumerate(placements(stack)):
        device = DAEMONSETS.get(placement.workload)
        if device is None and placement.workload not in DRA_DAEMONSETS:
            pods[f"deployment-{number}"] = (placement, None)
            continue
        selected = {n["metadata"]["name"] for n in registered
                    if placement.node_selector.items() <= n["metadata"]["labels"].items()}
        needing = ({n["metadata"]["name"] for n in registered if int(n["status"]["capacity"].get(device, "0"))}
                   if device is not None else {n["metadata"]["name"] for n in registered
                                               if n["metadata"]["labels"].get(DEVICE_ALLOCATION_LABEL) == "dra"})
        assert selected == needing, \
            f"{stack} {placement.workload}: selects {sorted(selected)}, needed on {sorted(needing)}"
        pods.update({f"daemon-{number}-{node}": (placement, node) for node in sorted(selected)})
    try:
        for name, (placement, node) in pods.items():
            cluster.create(_pod(name, placement, node))

        def settled() -> dict[str, dict[str, Any]] | None:
            found = {name: cluster.get(f"/api/v1/namespaces/default/pods/{name}") for name in pods}
            return found if all(p["spec"].get("nodeName") or scheduling_message(p) for p in found.values()) else None

        placed = cluster.wait_for(f"the add-ons of {stack} to be placed", settled)
        for name, pod in placed.items():
            placement, node = pods[name]
            where = pod["spec"].get("nodeName")
            assert where, f"{stack} {placement.workload}: Pending: {scheduling_message(pod)}"
            if node is None:
                group = cluster.get(f"/api/v1/nodes/{where}")["metadata"]["labels"]["trainstack.io/node-group"]
                assert group == "system", f"{stack} {placement.workload} bound to {where}"
    finally:
        nodes.delete_pods()


def test_a_placement_missing_its_accelerator_toleration_is_refused_by_the_scheduler(cluster: Cluster) -> None:
    """The NVIDIA device plugin without its nvidia.com/gpu toleration stays Pending on a p5 node."""
    nodes = StackCluster(cluster, "fsdp-p5")
    plugin = next(p for p in placements("fsdp-p5") if p.workload == "nvidia-device-plugin")
    untolerated = Placement(plugin.workload, plugin.node_selector,
                            [t for t in plugin.tolerations if t["key"] != "nvidia.com/gpu"])
    try:
        cluster.create(_pod("plugin-without-toleration", untolerated, "p5-0"))
        pod = cluster.wait_for("the scheduler's verdict", lambda: scheduling_message(
            cluster.get("/api/v1/namespaces/default/pods/plugin-without-toleration")) or None)
        assert "1 node(s) had untolerated taint(s)" in pod
    finally:
        nodes.delete_pods()

