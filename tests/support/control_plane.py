"""A real Kubernetes control plane on loopback for tests: etcd, kube-apiserver and
kube-scheduler, built from source by ``engines/build.sh kubernetes`` (k8s.io/kubernetes
v1.35.4, etcd v3.6.5). No kubelet, controller manager or operator runs: tests create the
Node objects and the pods that those would, and read what the API server admits and
where the scheduler binds.

The flags follow controller-runtime's envtest (pkg/internal/testing/controlplane/
apiserver.go, ``defaultArgs``, and etcd.go): a loopback secure port with a serving
certificate from a throwaway CA, a service-account key pair, the ServiceAccount
admission plugin off (no controller creates the ``default`` accounts it would look up),
RBAC. Clients authenticate with static tokens (``--token-auth-file``): the tests as a
member of ``system:masters``, the scheduler as ``system:kube-scheduler``, the user the
bootstrap RBAC policy grants the scheduler's rights to.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import requests
import yaml

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "engines" / "build.sh"
ADMIN_TOKEN, SCHEDULER_TOKEN = "trainstack-admin", "trainstack-scheduler"


class EnginesMissing(RuntimeError):
    """The engines are not built and cannot be built here (no Go toolchain)."""


def engines_directory() -> Path:
    """Where ``engines/build.sh kubernetes`` put the binaries (building them if the cache is stale)."""
    if shutil.which("go") is None:
        raise EnginesMissing("no `go` on PATH: engines/build.sh needs Go >= 1.25 to build kube-apiserver")
    done = subprocess.run(["bash", str(BUILD), "kubernetes"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"engines/build.sh kubernetes failed:\n{done.stderr[-4000:]}")
    return Path(done.stdout.strip().splitlines()[-1])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ApiError(RuntimeError):
    def __init__(self, status: int, body: dict[str, Any]):
        super().__init__(f"HTTP {status}: {body.get('message', body)}")
        self.status, self.body = status, body


class Cluster:
    """The API server's REST interface, as the tests' admin user."""

    def __init__(self, url: str, ca_file: Path):
        self.url = url
        self.session = requests.Session()
        # Only the test CA, and no proxy: the environment's REQUESTS_CA_BUNDLE would override
        # `verify` (requests merges it into every request) and a proxy must not see loopback.
        self.session.trust_env = False
        self.session.verify = str(ca_file)
        self.session.headers["Authorization"] = f"Bearer {ADMIN_TOKEN}"

    def request(self, method: str, path: str, body: Any = None, content_type: str = "application/json",
                **params: str) -> dict[str, Any]:
        data = json.dumps(body) if body is not None and not isinstance(body, str) else body
        reply = self.session.request(method, self.url + path, data=data, params=params, timeout=60,
                                     headers={"Content-Type": content_type})
        document: dict[str, Any] = reply.json() if reply.content else {}
        if reply.status_code >= 400:
            raise ApiError(reply.status_code, document)
        return document

    def create(self, obj: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        """POST ``obj`` to its collection; strict field validation, so an unknown field is refused."""
        params = {"fieldValidation": "Strict"}
        if dry_run:
            params["dryRun"] = "All"
        return self.request("POST", collection_path(obj), obj, **params)

    def patch_status(self, obj: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
        path = f"{collection_path(obj)}/{obj['metadata']['name']}/status"
        return self.request("PATCH", path, {"status": status}, "application/merge-patch+json")

    def get(self, path: str) -> dict[str, Any]:
        return self.request("GET", path)

    def delete_collection(self, path: str) -> None:
        self.request("DELETE", path)

    def wait_for(self, what: str, check: Any, timeout: float = 60.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            result = check()
            if result:
                return result
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
            time.sleep(0.2)


# Where the core and the operators' kinds are served; the CRDs' plural names.
PLURALS = {"Node": "nodes", "Pod": "pods", "Namespace": "namespaces", "PersistentVolume": "persistentvolumes",
           "PersistentVolumeClaim": "persistentvolumeclaims", "Job": "jobs", "PyTorchJob": "pytorchjobs",
           "MPIJob": "mpijobs", "CustomResourceDefinition": "customresourcedefinitions",
           "DaemonSet": "daemonsets", "Deployment": "deployments", "TrainJob": "trainjobs",
           "ClusterTrainingRuntime": "clustertrainingruntimes", "ResourceFlavor": "resourceflavors",
           "ClusterQueue": "clusterqueues", "LocalQueue": "localqueues", "Cohort": "cohorts", "Topology": "topologies",
           "WorkloadPriorityClass": "workloadpriorityclasses", "NodePool": "nodepools",
           "EC2NodeClass": "ec2nodeclasses"}
CLUSTER_SCOPED = {"Node", "Namespace", "PersistentVolume", "CustomResourceDefinition", "ClusterTrainingRuntime",
                  "ResourceFlavor", "ClusterQueue", "Cohort", "Topology", "WorkloadPriorityClass", "NodePool",
                  "EC2NodeClass"}


def collection_path(obj: dict[str, Any]) -> str:
    api_version, kind = obj["apiVersion"], obj["kind"]
    prefix = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
    if kind in CLUSTER_SCOPED:
        return f"{prefix}/{PLURALS[kind]}"
    namespace = obj["metadata"].get("namespace", "default")
    return f"{prefix}/namespaces/{namespace}/{PLURALS[kind]}"


def _write_certificates(directory: Path) -> None:
    """A throwaway CA, the API server's loopback serving certificate, the service-account key pair."""
    def openssl(*arguments: str) -> None:
        subprocess.run(["openssl", *arguments], cwd=directory, check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=trainstack-test-ca",
            "-keyout", "ca.key", "-out", "ca.crt")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=kube-apiserver", "-keyout", "apiserver.key",
            "-out", "apiserver.csr")
    (directory / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("x509", "-req", "-in", "apiserver.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "1", "-extfile", "san.ext", "-out", "apiserver.crt")
    openssl("genrsa", "-out", "sa.key", "2048")
    openssl("rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub")
    (directory / "tokens.csv").write_text(f'{ADMIN_TOKEN},trainstack-admin,1,"system:masters"\n'
                                          f"{SCHEDULER_TOKEN},system:kube-scheduler,2\n")


def _scheduler_config(directory: Path, url: str, scheduler_names: list[str]) -> Path:
    """The scheduler's kubeconfig and configuration: one profile per scheduler name the jobs use.

    A second name (the Neuron scheduler extension's ``my-scheduler``) is a kube-scheduler
    profile with the default plugins: the Neuron extender itself, which also picks cores
    within a node, is not run."""
    kubeconfig = {
        "apiVersion": "v1", "kind": "Config", "current-context": "test",
        "clusters": [{"name": "test", "cluster": {"server": url, "certificate-authority": str(directory / "ca.crt")}}],
        "users": [{"name": "scheduler", "user": {"token": SCHEDULER_TOKEN}}],
        "contexts": [{"name": "test", "context": {"cluster": "test", "user": "scheduler"}}],
    }
    (directory / "scheduler.kubeconfig").write_text(yaml.safe_dump(kubeconfig))
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(directory / "scheduler.kubeconfig")},
        "leaderElection": {"leaderElect": False},
        "profiles": [{"schedulerName": name} for name in scheduler_names],
    }
    path = directory / "scheduler.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@contextmanager
def control_plane(scheduler_names: list[str]) -> Iterator[Cluster]:
    """etcd, kube-apiserver and kube-scheduler on free loopback ports, stopped on exit."""
    binaries = engines_directory()
    directory = Path(tempfile.mkdtemp(prefix="trainstack-control-plane-"))
    processes: list[subprocess.Popen[bytes]] = []
    logs = directory / "logs"
    logs.mkdir()
    log_files = []

    def start(name: str, *arguments: str) -> None:
        log = open(logs / f"{name}.log", "wb")  # closed in the finally below
        log_files.append(log)
        processes.append(subprocess.Popen([str(binaries / name), *arguments], stdout=log, stderr=log))

    try:
        _write_certificates(directory)
        etcd_url, peer_url = f"http://127.0.0.1:{free_port()}", f"http://127.0.0.1:{free_port()}"
        start("etcd", f"--data-dir={directory / 'etcd'}", f"--listen-client-urls={etcd_url}",
              f"--advertise-client-urls={etcd_url}", f"--listen-peer-urls={peer_url}",
              f"--initial-advertise-peer-urls={peer_url}", f"--initial-cluster=default={peer_url}",
              "--unsafe-no-fsync")
        port = free_port()
        url = f"https://127.0.0.1:{port}"
        start("kube-apiserver", f"--etcd-servers={etcd_url}", "--advertise-address=127.0.0.1",
              "--bind-address=127.0.0.1", f"--secure-port={port}", f"--cert-dir={directory}",
              f"--tls-cert-file={directory / 'apiserver.crt'}", f"--tls-private-key-file={directory / 'apiserver.key'}",
              f"--client-ca-file={directory / 'ca.crt'}", f"--token-auth-file={directory / 'tokens.csv'}",
              "--authorization-mode=RBAC", "--service-cluster-ip-range=10.0.0.0/24", "--allow-privileged=true",
              "--disable-admission-plugins=ServiceAccount", f"--service-account-issuer={url}",
              f"--service-account-key-file={directory / 'sa.pub'}",
              f"--service-account-signing-key-file={directory / 'sa.key'}")
        cluster = Cluster(url, directory / "ca.crt")
        cluster.wait_for("kube-apiserver /readyz", lambda: _ready(cluster, processes, logs), timeout=120)
        start("kube-scheduler", f"--config={_scheduler_config(directory, url, scheduler_names)}",
              "--bind-address=127.0.0.1", f"--secure-port={free_port()}", f"--cert-dir={directory / 'scheduler'}")
        yield cluster
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in reversed(processes):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for log in log_files:
            log.close()
        if os.environ.get("TRAINSTACK_KEEP_CONTROL_PLANE_LOGS") is None:
            shutil.rmtree(directory, ignore_errors=True)


def _ready(cluster: Cluster, processes: list[subprocess.Popen[bytes]], logs: Path) -> bool:
    for process in processes:
        if process.poll() is not None:
            name = Path(str(process.args[0])).name  # type: ignore[index]
            raise RuntimeError(f"{name} exited ({process.returncode}):\n"
                               + (logs / f"{name}.log").read_text(errors="replace")[-4000:])
    try:
        return cluster.session.get(cluster.url + "/readyz", timeout=10).status_code == 200
    except requests.exceptions.SSLError:
        raise
    except (requests.ConnectionError, requests.Timeout):
        return False
