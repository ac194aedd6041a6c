"""kwok (sigs.k8s.io/kwok v0.7.0) plays every node's kubelet: it keeps the registered nodes
Ready with their heartbeats and leases (its default node stages), and moves each pod bound to
one of them to Running (its ``pod-ready`` stage) and finishes deleting it (``pod-delete``).

Its ``pod-complete`` stage, which ends every pod a Job owns as soon as it runs, is left out:
a rehearsal watches training pods run, and a job that finished at once would hide a lost
node or a preemption (kustomize/stage/pod/fast at v0.7.0).

kwok is also every node's kubelet server: each node it initializes names kwok's port as its kubelet endpoint
(``--node-port``, the ``daemonEndpoints`` of kwok's node-initialize stage), so the API server's ``pods/log`` reaches
kwok as it would a kubelet (``/containerLogs/...``, pkg/kwok/server/debugging_logs.go). kwok answers with the file a
``Logs`` object names for the pod (kwok.x-k8s.io/v1alpha1, pkg/apis/v1alpha1/logs_types.go), watched from the API
server (``--enable-crds=Logs``): ``container_log`` gives a pod a log that way. The API server reaches kwok over
HTTPS without verifying it (no ``--kubelet-certificate-authority``: kubernetes v1.35.4
pkg/kubelet/client/kubelet_client.go, ``transportConfig``), and kwok, given no certificate, serves TLS with a
throwaway one beside plain HTTP on the same port (pkg/kwok/server/server.go, ``Run``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from ..kube.client import ApiError, Cluster
from . import engines
from .control_plane import ControlPlane, free_port

NOT_READY_TAINT = "node.kubernetes.io/not-ready"
CONFLICT_RETRIES = 10

POD_STAGES = ("kustomize/stage/pod/fast/pod-ready.yaml", "kustomize/stage/pod/fast/pod-delete.yaml")
NODE_STAGES = ("kustomize/stage/node/fast/node-initialize.yaml",
               "kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
               "kustomize/stage/node/chaos/node-not-ready.yaml")
"""kwok's default node stages as it runs here (no node leases: pkg/kwok/cmd/root.go ``getDefaultNodeStages``, which
it uses only when its configuration names no node stage), and its own NotReady stage: a node labelled
``node-not-ready.stage.kwok.x-k8s.io=true`` reports Ready False, with the reason and message its annotations give,
until the label goes (kustomize/stage/node/chaos at v0.7.0). Only such a node is touched by it."""
NOT_READY_LABEL = "node-not-ready.stage.kwok.x-k8s.io"


LOGS_CRD = "kustomize/crd/bases/kwok.x-k8s.io_logs.yaml"
LOGS_API = "kwok.x-k8s.io/v1alpha1"
LOG_SERVED_WITHIN = 60.0


def start(plane: ControlPlane) -> None:
    where = engines.directory(engines.KWOK)
    stages = "---\n".join((where / "manifests" / stage).read_text() for stage in (*NODE_STAGES, *POD_STAGES))
    config = plane.directory / "kwok.yaml"
    config.write_text(stages)
    _install_logs_crd(plane.cluster, where / "manifests" / LOGS_CRD)
    port = free_port()
    plane.processes.start("kwok", [
        str(where / "kwok"), f"--kubeconfig={plane.kubeconfig}", "--manage-all-nodes=true", f"--config={config}",
        f"--server-address=127.0.0.1:{port}", f"--node-port={port}", "--enable-crds=Logs", "--node-ip=127.0.0.1",
        "--cidr=10.244.0.0/16"],
        env={"HOME": str(plane.directory)})


def _install_logs_crd(cluster: Cluster, path: Path) -> None:
    """kwok lists and watches its Logs as it starts: the CRD is served before it does."""
    crd = yaml.safe_load(path.read_text())
    cluster.create_unless_there(crd)

    def established() -> bool:
        served = cluster.get(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd['metadata']['name']}")
        return any(c["type"] == "Established" and c["status"] == "True"
                   for c in (served.get("status") or {}).get("conditions") or [])

    cluster.wait_for("kwok's Logs CRD Established", established)


@contextlib.contextmanager
def container_log(plane: ControlPlane, pod: dict[str, Any], container: str, lines: Sequence[str]) -> Iterator[None]:
    """While inside, kwok serves ``lines`` as the log of ``pod``'s ``container``, as a kubelet serves what the
    container wrote: through the API server's ``pods/log``. The file is in the CRI log format kwok reads
    (k8s.io/cri-client v0.33.0 pkg/logs/logs.go, ``parseCRILog``: time, stream, tag, text). On leaving, the
    ``Logs`` object and the file go, and the pod has no log again."""
    namespace, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
    directory = plane.directory / "container-logs"
    directory.mkdir(exist_ok=True)
    path = directory / f"{namespace}_{name}_{container}.log"
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    path.write_text("".join(f"{now} stdout F {line}\n" for line in lines))
    logs = {"apiVersion": LOGS_API, "kind": "Logs", "metadata": {"name": name, "namespace": namespace},
            "spec": {"logs": [{"containers": [container], "logsFile": str(path)}]}}
    plane.cluster.create(logs)
    try:
        _wait_served(plane.cluster, pod, container)
        yield
    finally:
        with contextlib.suppress(ApiError):
            plane.cluster.delete(logs)
        path.unlink(missing_ok=True)


def _wait_served(cluster: Cluster, pod: dict[str, Any], container: str, timeout: float = LOG_SERVED_WITHIN) -> None:
    """Until the API server's read of the log answers: kwok learns of a Logs object through its watch. On timeout,
    the API server's last answer says why (kwok's own "no logs found", or the API server not reaching kwok)."""
    path = f"/api/v1/namespaces/{pod['metadata']['namespace']}/pods/{pod['metadata']['name']}/log"
    deadline = time.monotonic() + timeout
    while True:
        reply = cluster.session.get(cluster.url + path, params={"container": container, "limitBytes": "1"},
                                    timeout=10)
        if reply.status_code == 200:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"kwok did not serve {path} within {timeout:.0f} s; the API server's last answer: "
                               f"HTTP {reply.status_code} {reply.text.strip()[:300]}")
        time.sleep(0.2)


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
