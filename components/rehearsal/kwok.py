"""kwok (sigs.k8s.io/kwok v0.7.0) plays every node's kubelet: it keeps the registered nodes
Ready with their heartbeats and leases (its default node stages), and moves each pod bound to
one of them to Running (its ``pod-ready`` stage) and finishes deleting it (``pod-delete``).

Its ``pod-complete`` stage, which ends every pod a Job owns as soon as it runs, is left out:
a rehearsal watches training pods run, and a job that finished at once would hide a lost
node or a preemption (kustomize/stage/pod/fast at v0.7.0).
"""

from __future__ import annotations

from typing import Any

from ..kube.client import ApiError, Cluster
from . import engines
from .control_plane import ControlPlane, free_port

NOT_READY_TAINT = "node.kubernetes.io/not-ready"
CONFLICT_RETRIES = 10

POD_STAGES = ("kustomize/stage/pod/fast/pod-ready.yaml", "kustomize/stage/pod/fast/pod-delete.yaml")


def start(plane: ControlPlane) -> None:
    where = engines.directory(engines.KWOK)
    stages = "---\n".join((where / "manifests" / stage).read_text() for stage in POD_STAGES)
    config = plane.directory / "kwok.yaml"
    config.write_text(stages)
    plane.processes.start("kwok", [
        str(where / "kwok"), f"--kubeconfig={plane.kubeconfig}", "--manage-all-nodes=true", f"--config={config}",
        f"--server-address=127.0.0.1:{free_port()}", "--node-ip=127.0.0.1", "--cidr=10.244.0.0/16"],
        env={"HOME": str(plane.directory)})


def schedulable(cluster: Cluster, node: dict[str, Any]) -> None:
    """Lift the ``not-ready`` taint the API server's TaintNodesByCondition admission gives every new Node, as the node
    lifecycle controller would once kwok reports it Ready. The rehearsal's control plane does not run that controller
    (control_plane.control_plane says why), so nothing else lifts it. Each patch names the node's version, so that a
    controller's change of the taints meanwhile (Karpenter lifts its own ``unregistered``) is read again, not lost."""
    path = f"/api/v1/nodes/{node['metadata']['name']}"
    for _ in range(CONFLICT_RETRIES):
        taints = node["spec"].get("taints") or []
        if not any(t["key"] == NOT_READY_TAINT for t in taints):
            return
        try:
            cluster.request("PATCH", path, {"metadata": {"resourceVersion": node["metadata"]["resourceVersion"]},
                                            "spec": {"taints": [t for t in taints if t["key"] != NOT_READY_TAINT]
                                                     or None}}, "application/merge-patch+json")
            return
        except ApiError as error:
            if error.status != 409:  # kwok's status updates move the version too
                raise
        node = cluster.get(path)
    raise ApiError(409, {"message": f"node {node['metadata']['name']}: its taints kept changing"})
