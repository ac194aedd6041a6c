"""kwok (sigs.k8s.io/kwok v0.7.0) plays every node's kubelet: it keeps the registered nodes
Ready with their heartbeats and leases (its default node stages), and moves each pod bound to
one of them to Running (its ``pod-ready`` stage) and finishes deleting it (``pod-delete``).

Its ``pod-complete`` stage, which ends every pod a Job owns as soon as it runs, is left out:
a rehearsal watches training pods run, and a job that finished at once would hide a lost
node or a preemption (kustomize/stage/pod/fast at v0.7.0).
"""

from __future__ import annotations

from . import engines
from .control_plane import ControlPlane, free_port

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
