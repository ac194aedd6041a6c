"""The operators' CRDs installed and a shipped stack's nodes registered on the real
control plane of ``support/control_plane.py``, and the rendered jobs' pods scheduled on them."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml
from trainstack.plan import Plan
from trainstack.policy import stack_from_plan
from trainstack.rehearsal.nodes import group_shapes, node_object

from support import cluster_nodes, operator_pods, rendered_jobs
from support.control_plane import ApiError, Cluster

CRDS = Path(__file__).resolve().parents[1] / "data" / "crds"
# Both Kubeflow operators define mpijobs.kubeflow.org; where both run, trainstack's
# training-operator/without-mpijob kustomization drops the training operator's copy.
SUPERSEDED = {CRDS / "training-operator-v1.8.1" / "kubeflow.org_mpijobs.yaml"}


def crd_files() -> list[Path]:
    return sorted(p for p in CRDS.glob("*/*.yaml") if p not in SUPERSEDED)


def ensure_namespace(cluster: Cluster, namespace: str) -> None:
    """The namespace a claim or a job names, as the stack (or the user) creates it before them."""
    try:
        cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    except ApiError as error:
        if error.status != 409:  # already there
            raise


def install_crds(cluster: Cluster) -> list[str]:
    names = []
    for path in crd_files():
        crd = yaml.safe_load(path.read_text())
        cluster.create(crd)
        names.append(crd["metadata"]["name"])
    for name in names:
        cluster.wait_for(f"CRD {name} Established", lambda name=name: any(
            c["type"] == "Established" and c["status"] == "True"
            for c in cluster.get(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
            .get("status", {}).get("conditions", [])))
    return names


class StackCluster:
    """A shipped stack's nodes on the control plane, and its rendered jobs' pods scheduled on them."""

    def __init__(self, cluster: Cluster, stack: str, shape: str = "registered"):
        self.cluster, self.stack = cluster, stack
        self.record = rendered_jobs.planned_record(stack)
        self.groups = cluster_nodes.node_groups(self.record)
        shapes = {s.name: s for s in group_shapes(stack_from_plan(Plan.from_dict(self.record)))}
        self._reset()
        for group in self.groups:
            for index in range(group.max_size):
                registered = node_object(shapes[group.name], index)
                node = registered if shape == "registered" or group.name == "system" else cluster_nodes.template(
                    group, index)
                created = cluster.create({k: v for k, v in node.items() if k != "status"})
                cluster.patch_status(created, node["status"])
                # The TaintNodesByCondition admission plugin registers every node with the
                # node.kubernetes.io/not-ready taint; the node lifecycle controller lifts it
                # once the kubelet reports Ready. No controller manager runs here, so the test does.
                cluster.request("PATCH", f"/api/v1/nodes/{created['metadata']['name']}",
                                {"spec": {"taints": node["spec"].get("taints")}}, "application/merge-patch+json")
        self._storage()

    @staticmethod
    def groups_of(stack: str) -> list[cluster_nodes.NodeGroup]:
        return cluster_nodes.node_groups(rendered_jobs.planned_record(stack))

    def _reset(self) -> None:
        """Remove the previous stack's pods, storage and nodes.

        The StorageObjectInUseProtection admission plugin puts finalizers on volumes and
        claims that the PV protection controllers would lift; none runs, so the test does."""
        namespaces = [n["metadata"]["name"] for n in self.cluster.get("/api/v1/namespaces")["items"]]
        claims = [f"/api/v1/namespaces/{namespace}/persistentvolumeclaims" for namespace in namespaces]
        for path in (*claims, "/api/v1/persistentvolumes"):
            for item in self.cluster.get(path)["items"]:
                self.cluster.request("PATCH", f"{path}/{item['metadata']['name']}",
                                     {"metadata": {"finalizers": None}}, "application/merge-patch+json")
        pods = [f"/api/v1/namespaces/{namespace}/pods" for namespace in namespaces]
        for path in (*pods, *claims, "/api/v1/persistentvolumes", "/api/v1/nodes"):
            self.cluster.request("DELETE", path, gracePeriodSeconds="0")

    def ensure_namespace(self, namespace: str) -> None:
        ensure_namespace(self.cluster, namespace)

    def _storage(self) -> None:
        """The stack's FSx volume and claim as the plan records them, bound as the PV controller
        would bind them (kubernetes pkg/controller/volume/persistentvolume/pv_controller.go:
        the claim's ``pv.kubernetes.io/bind-completed`` annotation, both phases Bound), which
        is what the scheduler's VolumeBinding plugin reads."""
        for kind in ("PersistentVolume", "PersistentVolumeClaim"):
            for r in self.record["resources"]:
                if r["type"] == f"kubernetes:core/v1:{kind}":
                    obj = copy.deepcopy(r["inputs"])
                    if kind == "PersistentVolumeClaim":
                        self.ensure_namespace(obj["metadata"].get("namespace", "default"))
                        obj["metadata"].setdefault("annotations", {})["pv.kubernetes.io/bind-completed"] = "yes"
                    created = self.cluster.create(obj)
                    self.cluster.patch_status(created, {"phase": "Bound"})

    def schedule(self, job: dict[str, Any], timeout: float = 60.0) -> dict[str, dict[str, Any]]:
        """Create the job's pods, wait until each is bound or marked unschedulable, return them by name."""
        pods = operator_pods.pods_of(job)
        for pod in pods:
            self.ensure_namespace(pod["metadata"]["namespace"])
            self.cluster.create(pod)
        names = [p["metadata"]["name"] for p in pods]
        namespace = pods[0]["metadata"]["namespace"]

        def settled() -> dict[str, dict[str, Any]] | None:
            found = {}
            for name in names:
                pod = self.cluster.get(f"/api/v1/namespaces/{namespace}/pods/{name}")
                if not pod["spec"].get("nodeName") and not _unschedulable(pod):
                    return None
                found[name] = pod
            return found

        return self.cluster.wait_for(f"the scheduler to place {job['metadata']['name']}", settled, timeout)

    def delete_pods(self) -> None:
        for namespace in self.cluster.get("/api/v1/namespaces")["items"]:
            self.cluster.request("DELETE", f"/api/v1/namespaces/{namespace['metadata']['name']}/pods",
                                 gracePeriodSeconds="0")


def _unschedulable(pod: dict[str, Any]) -> bool:
    return any(c["type"] == "PodScheduled" and c["status"] == "False" and c.get("reason") == "Unschedulable"
               for c in pod.get("status", {}).get("conditions", []))


def scheduling_message(pod: dict[str, Any]) -> str:
    """The scheduler's reason a pod is Pending (its PodScheduled condition)."""
    return next((c.get("message", "") for c in pod.get("status", {}).get("conditions", [])
                 if c["type"] == "PodScheduled"), "")

