"""A real Kubernetes control plane on loopback: etcd, kube-apiserver, kube-scheduler and, for a
rehearsal, kube-controller-manager, built from source by ``engines/build.sh kubernetes``
(k8s.io/kubernetes v1.35.4 with the release build's version stamps, etcd v3.6.5).

No kubelet runs: kwok (``rehearsal.kwok``) plays the nodes' part, or a test writes the Node
objects and pods itself. The controller manager is what finishes what the other controllers
start: its garbage collector removes what a deleted object owned, its Job and ReplicaSet
controllers create the operators' pods, its namespace controller empties deleted
namespaces, its PV binder binds claims, and its node lifecycle controller lifts the
``node.kubernetes.io/not-ready`` taint the API server puts on every new node (and taints a
node whose heartbeats stop, which is how a lost node looks to the jobs).

The flags follow controller-runtime's envtest (pkg/internal/testing/controlplane/
apiserver.go, ``defaultArgs``, and etcd.go): a loopback secure port with a serving
certificate from a throwaway CA, a service-account key pair, the ServiceAccount admission
plugin off (its token controller needs accounts nothing here uses), RBAC. Clients
authenticate with static tokens (``--token-auth-file``): the rehearsal and the controllers
as members of ``system:masters``, the scheduler as ``system:kube-scheduler``.
"""

from __future__ import annotations

import functools
import os
import random
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import requests

from ..boundary import dump_yaml
from ..kube.client import Cluster
from . import certificates, engines

ADMIN_TOKEN, SCHEDULER_TOKEN = "trainstack-admin", "trainstack-scheduler"


# The ports handed to the engines. An engine binds its port some seconds after it is picked (the
# webhook port waits on the CRDs), and a port picked by binding port 0 comes from the kernel's
# ephemeral range, where in that window any socket binding port 0 or connecting out may take it:
# on CI (2026-11-27) a plain-HTTP server answered on the training operator's webhook port, and the
# API server's calls to the webhook failed. So ports come from below the ephemeral range
# (ip(7), ip_local_port_range), where only an explicit bind lands, each handed out once per process.
LOWEST_PORT = 10000
_handed_out: set[int] = set()


@functools.cache  # read once: free_port asks on every pick
def _ephemeral_ports() -> range:
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
    except (OSError, ValueError):
        low, high = "32768", "60999"  # Linux's default
    return range(int(low), int(high) + 1)


PORTS_VARIABLE = "TRAINSTACK_REHEARSAL_PORTS"
"""``LOW-HIGH``: the ports to pick from instead, for processes that rehearse side by side on one machine and so must
not pick the same port (the test suite's parallel workers each get their own range: tests/conftest.py)."""


def _port_range() -> range:
    configured = os.environ.get(PORTS_VARIABLE)
    if configured:
        low, _, high = configured.partition("-")
        return range(int(low), int(high) + 1)
    return range(LOWEST_PORT, _ephemeral_ports().start)


def free_port() -> int:
    """A loopback port nothing listens on, outside the ephemeral range, never handed out before."""
    ports = _port_range()
    for _ in range(1000):
        port = random.choice(ports) if ports else 0
        if port in _handed_out:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            port = int(probe.getsockname()[1])
        if port not in _handed_out:
            _handed_out.add(port)
            return port
    raise RuntimeError(f"no free loopback port in {ports.start}-{ports.stop - 1}")


class EngineFailure(RuntimeError):
    """An engine exited, or did not come up while it stopped making progress: the machine's or the stack's
    problem, not trainstack's (``trainstack rehearse`` and ``up`` exit 1). The message names the engine, how long
    it was waited for, and the end of its log."""


# How long an engine may show no progress (its log does not grow and it uses no CPU) before the wait for it
# fails, and how long any wait may last at all. On a loaded machine an engine starts slowly but visibly: the
# training operator's webhook took over 120 s while CI's rehearsal tests ran beside it (issue 51), and the same
# rehearsal started it in seconds on an idle machine. A wait that follows progress fails only when nothing moves.
QUIET_LIMIT, WAIT_LIMIT = 90.0, 900.0


class Processes:
    """The processes a rehearsal started, each logging to ``<logs>/<name>.log``; stopped in reverse."""

    def __init__(self, logs: Path):
        self.logs = logs
        self.running: list[tuple[str, subprocess.Popen[bytes], IO[bytes]]] = []

    def start(self, name: str, command: list[str], env: dict[str, str] | None = None) -> None:
        log = open(self.logs / f"{name}.log", "wb")  # closed in stop()
        process = subprocess.Popen(command, stdout=log, stderr=log, env={**os.environ, **(env or {})})
        self.running.append((name, process, log))

    def check(self) -> None:
        """Raise, with the end of its log, if any process has exited."""
        for name, process, _ in self.running:
            if process.poll() is not None:
                raise EngineFailure(f"{name} exited ({process.returncode}); the end of its log:\n{self.tail(name)}")

    def tail(self, name: str, lines: int = 20) -> str:
        return "\n".join((self.logs / f"{name}.log").read_text(errors="replace").splitlines()[-lines:])

    def wait_for(self, name: str, what: str, check: Callable[[], bool], *, quiet_limit: float = QUIET_LIMIT,
                 wait_limit: float = WAIT_LIMIT, interval: float = 0.2) -> None:
        """Wait until ``check()`` holds for the starting engine ``name``: for as long as it makes progress (its
        log grows, or it uses CPU), up to ``wait_limit``; it fails after ``quiet_limit`` without progress."""
        began = moved = time.monotonic()
        last = self._progress(name)
        while not check():
            self.check()
            now, seen = time.monotonic(), self._progress(name)
            if seen != last:
                last, moved = seen, now
            if now - moved > quiet_limit or now - began > wait_limit:
                stalled = (f"no progress for the last {now - moved:.0f} s" if now - moved > quiet_limit
                           else f"the limit of {wait_limit:.0f} s reached while it still made progress")
                raise EngineFailure(f"{name}: waited {now - began:.0f} s for {what} ({stalled}); the end of its "
                                    f"log ({self.logs / (name + '.log')}):\n{self.tail(name)}")
            time.sleep(interval)

    def _progress(self, name: str) -> tuple[int, int]:
        """The size of ``name``'s log and the CPU time its process has used (clock ticks, /proc/<pid>/stat)."""
        process = next(process for started, process, _ in self.running if started == name)
        try:
            fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks = int(fields[11]) + int(fields[12])  # utime and stime: fields 14 and 15 of proc(5)
        except (OSError, IndexError, ValueError):  # no /proc (macOS): the log alone shows progress
            ticks = 0
        return (self.logs / f"{name}.log").stat().st_size, ticks

    def stop(self) -> None:
        """Stop every process: a throwaway cluster keeps nothing worth a graceful drain, so a process that
        has not exited a few seconds after SIGTERM (kube-apiserver waits for its watches) is killed."""
        for _, process, _ in reversed(self.running):
            process.terminate()
        for _, process, log in reversed(self.running):
            try:
                process.wait(timeout=3)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            log.close()
        self.running.clear()


class ControlPlane:
    """The running control plane: its client, its certificates, a kubeconfig for controllers."""

    def __init__(self, directory: Path, cluster: Cluster, ca: certificates.KeyPair, processes: Processes,
                 service_account_key: Path | None = None):
        self.directory, self.cluster, self.ca, self.processes = directory, cluster, ca, processes
        self.kubeconfig = write_kubeconfig(directory / "admin.kubeconfig", cluster.url, ca.certificate, ADMIN_TOKEN)
        self.service_account_key = service_account_key

    def start_controller_manager(self, node_lifecycle: bool = False) -> None:
        """Start kube-controller-manager (``control_plane``'s ``node_lifecycle`` says what that option does).

        Start it after the CRDs its garbage collector must know are installed: the collector reads the API's
        resources when it starts, and again only every 30 s (kubernetes v1.35.4
        cmd/kube-controller-manager/app/core.go, ``garbageCollectorController.Run``: ``const syncPeriod = 30 *
        time.Second``; pkg/controller/garbagecollector ``Sync``). Until it has read a CRD, the pods of a deleted
        custom job (a PyTorchJob, a TrainJob's JobSet) stay: a rehearsal that deleted its first PyTorchJob
        seconds after the training operator installed the CRD waited 40 s for its pods. A real cluster's
        collector has long known its CRDs."""
        assert self.service_account_key is not None, "a control plane made by control_plane() has its key"
        self.processes.start("kube-controller-manager", [
            str(engines.directory(engines.KUBERNETES) / "kube-controller-manager"), f"--kubeconfig={self.kubeconfig}",
            "--bind-address=127.0.0.1", f"--secure-port={free_port()}",
            f"--cert-dir={self.directory / 'controller-manager'}", "--leader-elect=false",
            f"--root-ca-file={self.ca.certificate}", f"--service-account-private-key-file={self.service_account_key}",
            "--concurrent-gc-syncs=20",
            *([] if node_lifecycle else ["--controllers=*,-node-lifecycle-controller"])])


def write_kubeconfig(path: Path, url: str, ca_file: Path, token: str) -> Path:
    path.write_text(dump_yaml({
        "apiVersion": "v1", "kind": "Config", "current-context": "rehearsal",
        "clusters": [{"name": "rehearsal", "cluster": {"server": url, "certificate-authority": str(ca_file)}}],
        "users": [{"name": "user", "user": {"token": token}}],
        "contexts": [{"name": "rehearsal", "context": {"cluster": "rehearsal", "user": "user"}}],
    }))
    return path


def _scheduler_config(directory: Path, url: str, ca_file: Path, scheduler_names: list[str]) -> Path:
    """The scheduler's configuration: one profile per scheduler name the jobs use.

    A second name (the Neuron scheduler extension's ``my-scheduler``) is a kube-scheduler
    profile with the default plugins: the Neuron extender itself, which also picks cores
    within a node, is not run."""
    kubeconfig = write_kubeconfig(directory / "scheduler.kubeconfig", url, ca_file, SCHEDULER_TOKEN)
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(kubeconfig)},
        "leaderElection": {"leaderElect": False},
        "profiles": [{"schedulerName": name} for name in scheduler_names],
    }
    path = directory / "scheduler.yaml"
    path.write_text(dump_yaml(config))
    return path


# ``apiserver_engine``: the engine whose kube-apiserver runs (``engines.KUBE_APISERVER_NEWEST``: the newest EKS minor's,
# for the upgrade check, trainstack.upgrade.api_check). etcd, the scheduler and the controller manager stay the
# ``kubernetes`` engine's, which the version-skew policy allows (kubernetes.io/releases/version-skew-policy:
# kube-scheduler and kube-controller-manager may be one minor older than kube-apiserver).
@contextmanager
def control_plane(scheduler_names: list[str], *, controller_manager: bool = False, directory: Path | None = None,
                  node_lifecycle: bool = False, apiserver_engine: str = engines.KUBERNETES) -> Iterator[ControlPlane]:
    """etcd, kube-apiserver, kube-scheduler (and kube-controller-manager) on free loopback ports,
    stopped on exit. ``directory`` keeps certificates and logs (a temporary one, removed after, if None).
    ``node_lifecycle``: run the controller manager's node lifecycle controller, which marks a node NotReady when
    its heartbeats stop, and its pods not ready. Off unless asked for: kwok plays kubelets that never die (a lost
    node is a deleted Node, whose pods the pod garbage collector removes: rehearsal/faults.py), its lease renewals
    come late on a busy machine, and a pod marked not ready stays so (kwok marks it ready once). At 512 nodes the
    controller marked nodes NotReady within minutes, Kueue's topology-aware scheduling evicted the job they ran
    ("no replacement for unhealthy node(s)") and requeued it 8 minutes later; a deploy's readiness waits timed out
    on the same lag."""
    binaries = engines.directory(engines.KUBERNETES)
    apiserver = engines.directory(apiserver_engine) / "kube-apiserver"
    owned = directory is None
    directory = directory or Path(tempfile.mkdtemp(prefix="trainstack-control-plane-"))
    (directory / "logs").mkdir(parents=True, exist_ok=True)
    processes = Processes(directory / "logs")
    try:
        ca = certificates.authority(directory)
        serving = certificates.serving(ca, directory, "apiserver", ("kubernetes", "kubernetes.default.svc"))
        service_account = certificates.service_account_keys(directory)
        (directory / "tokens.csv").write_text(f'{ADMIN_TOKEN},trainstack-admin,1,"system:masters"\n'
                                              f"{SCHEDULER_TOKEN},system:kube-scheduler,2\n")
        etcd_url, peer_url = f"http://127.0.0.1:{free_port()}", f"http://127.0.0.1:{free_port()}"
        processes.start("etcd", [
            str(binaries / "etcd"), f"--data-dir={directory / 'etcd'}", f"--listen-client-urls={etcd_url}",
            f"--advertise-client-urls={etcd_url}", f"--listen-peer-urls={peer_url}",
            f"--initial-advertise-peer-urls={peer_url}", f"--initial-cluster=default={peer_url}",
            "--unsafe-no-fsync"])
        port = free_port()
        url = f"https://127.0.0.1:{port}"
        processes.start("kube-apiserver", [
            str(apiserver), f"--etcd-servers={etcd_url}", "--advertise-address=127.0.0.1",
            "--bind-address=127.0.0.1", f"--secure-port={port}", f"--cert-dir={directory}",
            f"--tls-cert-file={serving.certificate}", f"--tls-private-key-file={serving.key}",
            f"--client-ca-file={ca.certificate}", f"--token-auth-file={directory / 'tokens.csv'}",
            "--authorization-mode=RBAC", "--service-cluster-ip-range=10.0.0.0/24", "--allow-privileged=true",
            "--disable-admission-plugins=ServiceAccount", f"--service-account-issuer={url}",
            f"--service-account-key-file={service_account.certificate}",
            f"--service-account-signing-key-file={service_account.key}"])
        cluster = Cluster(url, ca.certificate, ADMIN_TOKEN)
        processes.wait_for("kube-apiserver", "/readyz", lambda: _ready(cluster, processes))
        plane = ControlPlane(directory, cluster, ca, processes, service_account.key)
        processes.start("kube-scheduler", [
            str(binaries / "kube-scheduler"),
            f"--config={_scheduler_config(directory, url, ca.certificate, scheduler_names)}",
            "--bind-address=127.0.0.1", f"--secure-port={free_port()}", f"--cert-dir={directory / 'scheduler'}"])
        if controller_manager:
            plane.start_controller_manager(node_lifecycle)
        yield plane
    finally:
        processes.stop()
        if owned and os.environ.get("TRAINSTACK_KEEP_CONTROL_PLANE_LOGS") is None:
            shutil.rmtree(directory, ignore_errors=True)


def _ready(cluster: Cluster, processes: Processes) -> bool:
    processes.check()
    try:
        return cluster.session.get(cluster.url + "/readyz", timeout=10).status_code == 200
    except requests.exceptions.SSLError:
        raise
    except (requests.ConnectionError, requests.Timeout):
        return False
