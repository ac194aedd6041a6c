"""The controllers a stack installs, run as the releases trainstack pins (built from source by
``engines/build.sh``) against the rehearsal's control plane, with their own CRDs and their own
webhooks.

Each runs on the host, not in a pod: its configuration is the one the stack renders (Kueue's
manager Configuration from the chart values the plan records; the training operator's schemes
from trainstack's kustomization) with only what a pod's environment would otherwise give
changed: loopback ports, no leader election, certificates provided.

Webhooks are served on loopback with a certificate from the rehearsal's CA, and every webhook
configuration and conversion webhook from the release's own manifests is pointed at that
server by URL, as controller-runtime's envtest does (pkg/envtest/webhook.go): nothing is
switched off. JobSet's and Trainer's own certificate rotators are turned off in their
configurations (each documents ``internalCertManagement``/``certManagement.enable: false``
for externally provided certificates). Kueue (which then wants metrics certificates under
/etc) and the training operator v1.8.1 (which always runs one) keep their rotators, and the
Secret each rotator reads is created beforehand with the rehearsal's certificate, which the
rotator keeps (open-policy-agent/cert-controller keeps a valid certificate it finds).
"""

from __future__ import annotations

import base64
import copy
import functools
import glob
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..boundary import dump_yaml
from ..kube.client import ApiError, Cluster
from . import certificates, engines
from .control_plane import ControlPlane, free_port

SERVING_DIRECTORY = "k8s-webhook-server/serving-certs"
"""Where controller-runtime's webhook server reads tls.crt and tls.key under the temporary
directory (pkg/webhook/server.go, ``DefaultOptions``: ``os.TempDir()``)."""


@dataclass(frozen=True)
class Controller:
    """One controller: which engine builds it, which of its release's manifests to install, how to run it."""

    name: str
    engine: str
    binary: str
    namespace: str
    crds: tuple[str, ...]
    """Globs under the engine's manifests directory."""
    webhooks: str | None
    """The release's webhook configurations (a file under the manifests directory)."""
    conversion: str | None = None
    """The kustomization whose ``patches`` turn conversion webhooks on for some CRDs."""
    webhook_names: dict[str, str] | None = None
    """Webhook configuration name in the manifest -> the name the release installs it under."""
    rotator: tuple[str, str] | None = None
    """(Secret, Service) of a certificate rotator the controller runs: the Secret is created beforehand with
    the rehearsal's certificate for ``<Service>.<namespace>.svc``, which the rotator then keeps."""
    fixed_cert_dir: Path | None = None
    """Where the controller insists on finding its serving certificate, whatever its temporary directory."""


# Kueue with its rotator off reads metrics certificates from /etc/kueue/metrics/certs
# (cmd/kueue/main.go at v0.19.2), so it keeps its rotator (pkg/util/cert/cert.go: Secret
# kueue-webhook-server-cert, Service kueue-webhook-service, and these configuration names).
KUEUE = Controller("kueue", engines.KUEUE, "kueue", "kueue-system",
                   ("config/components/crd/bases/*.yaml",), "config/components/webhook/manifests.yaml",
                   "config/components/crd/kustomization.yaml",
                   {"mutating-webhook-configuration": "kueue-mutating-webhook-configuration",
                    "validating-webhook-configuration": "kueue-validating-webhook-configuration"},
                   ("kueue-webhook-server-cert", "kueue-webhook-service"))
JOBSET = Controller("jobset", engines.JOBSET, "jobset", "jobset-system",
                    ("config/components/crd/bases/*.yaml",), "config/components/webhook/manifests.yaml",
                    "config/components/crd/kustomization.yaml",
                    {"mutating-webhook-configuration": "jobset-mutating-webhook-configuration",
                     "validating-webhook-configuration": "jobset-validating-webhook-configuration"})
TRAINER = Controller("trainer", engines.TRAINER, "trainer-controller-manager", "kubeflow-system",
                     ("manifests/base/crds/trainer.kubeflow.org_*.yaml",), "manifests/base/webhook/manifests.yaml",
                     None, {"validating-webhook-configuration": "validator.trainer.kubeflow.org"})
TRAINING_OPERATOR = Controller(
    "training-operator", engines.TRAINING_OPERATOR, "training-operator.v1", "kubeflow",
    ("manifests/base/crds/kubeflow.org_*.yaml",), "manifests/base/webhook/manifests.yaml", None,
    # pkg/cert/cert.go at v1.8.1: the rotator injects its CA into this configuration, and waits
    # for the Secret's files under a fixed /tmp/k8s-webhook-server/serving-certs (a pod's Secret
    # volume), which the webhook server reads as the temporary directory's: so two rehearsals
    # running the training operator at the same moment on one machine share that directory.
    {"validating-webhook-configuration": "validator.training-operator.kubeflow.org"},
    ("training-operator-webhook-cert", "training-operator"), Path("/tmp") / SERVING_DIRECTORY)
MPI_OPERATOR = Controller("mpi-operator", engines.MPI_OPERATOR, "mpi-operator", "mpi-operator",
                          ("manifests/base/kubeflow.org_mpijobs.yaml",), None)
# Karpenter with its kwok provider (rehearsal.karpenter), in the namespace the stack installs it in
# (cluster/karpenter.py); it serves no webhook at v1.14 and runs no leader election here.
KARPENTER = Controller("karpenter", engines.KARPENTER_KWOK, "kwok", "kube-system",
                       ("kwok/charts/crds/*.yaml", "kwok/apis/crds/*.yaml"), None)


@dataclass
class Running:
    """A started controller: where its webhooks listen and its log."""

    controller: Controller
    webhook_port: int | None
    log: str


def _documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def install_crds(plane: ControlPlane, controller: Controller, manifests: Path, webhook_url: str | None,
                 ca_bundle: str, skipped: tuple[str, ...] = ()) -> list[str]:
    """The release's CRDs, with the conversion webhooks its kustomization turns on pointed at ``webhook_url``."""
    converted: dict[str, dict[str, Any]] = {}
    if controller.conversion and webhook_url:
        kustomization = yaml.safe_load((manifests / controller.conversion).read_text())
        for patch in kustomization.get("patches") or []:
            document = yaml.safe_load((manifests / controller.conversion).parent.joinpath(patch["path"]).read_text())
            conversion = (document.get("spec") or {}).get("conversion")
            if conversion is None:  # cert-manager's CA-injection annotations: the caBundle is set here instead
                continue
            conversion["webhook"]["clientConfig"] = {
                "url": webhook_url + conversion["webhook"]["clientConfig"]["service"]["path"], "caBundle": ca_bundle}
            converted[document["metadata"]["name"]] = conversion
    names = []
    for pattern in controller.crds:
        for path in sorted(glob.glob(str(manifests / pattern))):
            for crd in _documents(Path(path)):
                name = crd["metadata"]["name"]
                if name in skipped:
                    continue
                if name in converted:
                    crd["spec"]["conversion"] = converted[name]
                _create_or_replace(plane.cluster, crd)
                names.append(name)
    def established(name: str) -> bool:
        crd = plane.cluster.get(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
        return any(c["type"] == "Established" and c["status"] == "True"
                   for c in (crd.get("status") or {}).get("conditions") or [])

    for name in names:
        plane.cluster.wait_for(f"CRD {name} Established", functools.partial(established, name))
    return names


def install_webhooks(cluster: Cluster, controller: Controller, manifests: Path, webhook_url: str,
                     ca_bundle: str) -> None:
    """The release's webhook configurations, each webhook called at ``webhook_url`` + its path."""
    assert controller.webhooks is not None
    for configuration in _documents(manifests / controller.webhooks):
        configuration = copy.deepcopy(configuration)
        name = configuration["metadata"]["name"]
        configuration["metadata"] = {"name": (controller.webhook_names or {}).get(name, f"{controller.name}-{name}")}
        for webhook in configuration.get("webhooks") or []:
            path = webhook["clientConfig"]["service"].get("path", "/")
            webhook["clientConfig"] = {"url": webhook_url + path, "caBundle": ca_bundle}
        _create_or_replace(cluster, configuration)


def _create_or_replace(cluster: Cluster, obj: dict[str, Any]) -> None:
    try:
        cluster.create(obj)
    except ApiError as error:
        if error.status != 409:
            raise
        cluster.apply(obj)


def ensure_namespace(cluster: Cluster, namespace: str) -> None:
    cluster.create_unless_there({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})


def start(plane: ControlPlane, controller: Controller, configure: Callable[[Path, int], list[str]],
          skipped_crds: tuple[str, ...] = ()) -> Running:
    """Install ``controller``'s CRDs and webhooks and start it; ``configure(work, webhook_port)`` writes its
    configuration into ``work`` and returns its arguments."""
    where = engines.directory(controller.engine)
    manifests = where / "manifests"
    work = plane.directory / controller.name
    serving = controller.fixed_cert_dir or work / SERVING_DIRECTORY
    serving.mkdir(parents=True, exist_ok=True)
    ensure_namespace(plane.cluster, controller.namespace)
    ca_bundle = base64.b64encode(plane.ca.certificate.read_bytes()).decode()
    port = free_port() if controller.webhooks else None
    url = f"https://127.0.0.1:{port}" if port else None
    service = controller.rotator[1] if controller.rotator else controller.name
    dns = f"{service}.{controller.namespace}.svc"
    if port:
        pair = certificates.serving(plane.ca, work / "certificates", "webhook", (dns,))
        (serving / "tls.crt").write_bytes(pair.certificate.read_bytes())
        (serving / "tls.key").write_bytes(pair.key.read_bytes())
        if controller.rotator:
            _seed_rotator_secret(plane, controller, pair)
    install_crds(plane, controller, manifests, url, ca_bundle, skipped_crds)
    if url and controller.webhooks:
        install_webhooks(plane.cluster, controller, manifests, url, ca_bundle)
    arguments = configure(work, port or 0)
    plane.processes.start(controller.name, [str(where / controller.binary), *arguments],
                          env={"TMPDIR": str(serving.parents[1]), "KUBECONFIG": str(plane.kubeconfig),
                               "MY_POD_NAMESPACE": controller.namespace, "POD_NAMESPACE": controller.namespace,
                               "KUEUE_NAMESPACE": controller.namespace})
    if port:
        plane.processes.wait_for(controller.name, f"its webhook server on 127.0.0.1:{port}",
                                 lambda: _serving(plane, port, dns))
    return Running(controller, port, controller.name)


def _serving(plane: ControlPlane, port: int, dns: str) -> bool:
    """Whether the webhook server answers TLS on ``port`` with the certificate made for it, as the API
    server will call it: a socket that merely accepts may be another process's."""
    import socket
    import ssl

    plane.processes.check()
    context = ssl.create_default_context(cafile=str(plane.ca.certificate))
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as connection:
            with context.wrap_socket(connection, server_hostname=dns):
                return True
    except OSError:  # ssl.SSLError included: not the server made for this port
        return False


def loopback() -> str:
    return f"127.0.0.1:{free_port()}"


def write_yaml(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(dump_yaml(document, sort_keys=False))
    return path


def kueue_arguments(configuration: dict[str, Any]) -> Callable[[Path, int], list[str]]:
    """Kueue with the stack's manager Configuration (the chart values' ``controllerManagerConfigYaml``)."""
    def configure(work: Path, port: int) -> list[str]:
        config = copy.deepcopy(configuration)
        config.update(
            namespace=KUEUE.namespace,
            health={"healthProbeBindAddress": loopback()}, metrics={"bindAddress": loopback()},
            webhook={"port": port, "host": "127.0.0.1", "certDir": str(work / SERVING_DIRECTORY)},
            leaderElection={"leaderElect": False},
            internalCertManagement={"enable": True})
        # The on-demand visibility API server writes its certificates under /visibility on the
        # host (pkg/visibility/server.go); the rehearsal does not read pending workloads through it.
        return [f"--config={write_yaml(work / 'config.yaml', config)}", "--feature-gates=VisibilityOnDemand=false"]
    return configure


def jobset_arguments(manifests: Path) -> Callable[[Path, int], list[str]]:
    def configure(work: Path, port: int) -> list[str]:
        config = yaml.safe_load((manifests / "config/components/manager/controller_manager_config.yaml").read_text())
        config.update(
            health={"healthProbeBindAddress": loopback()}, metrics={"bindAddress": loopback()},
            webhook={"port": port, "host": "127.0.0.1", "certDir": str(work / SERVING_DIRECTORY)},
            leaderElection={"leaderElect": False}, internalCertManagement={"enable": False})
        return [f"--config={write_yaml(work / 'config.yaml', config)}"]
    return configure


def trainer_arguments(manifests: Path) -> Callable[[Path, int], list[str]]:
    def configure(work: Path, port: int) -> list[str]:
        config = yaml.safe_load((manifests / "manifests/base/manager/controller_manager_config.yaml").read_text())
        config["health"]["healthProbeBindAddress"] = loopback()
        config["metrics"]["bindAddress"] = loopback()
        config["webhook"] = {"port": port, "host": "127.0.0.1"}
        config["leaderElection"]["leaderElect"] = False
        config["certManagement"]["enable"] = False
        config["statusServer"]["port"] = free_port()
        return [f"--config={write_yaml(work / 'config.yaml', config)}"]
    return configure


def training_operator_arguments(schemes: list[str]) -> Callable[[Path, int], list[str]]:
    def configure(work: Path, port: int) -> list[str]:
        return [f"--webhook-server-port={port}", f"--metrics-bind-address={loopback()}",
                f"--health-probe-bind-address={loopback()}", "--leader-elect=false", *schemes]
    return configure


def mpi_operator_arguments(plane: ControlPlane) -> Callable[[Path, int], list[str]]:
    def configure(work: Path, port: int) -> list[str]:
        ensure_namespace(plane.cluster, MPI_OPERATOR.namespace)  # its leader-election lock's namespace
        return [f"--kubeConfig={plane.kubeconfig}", "--monitoring-port=0", "--threadiness=4"]
    return configure


def _seed_rotator_secret(plane: ControlPlane, controller: Controller, pair: certificates.KeyPair) -> None:
    """The Secret a cert-controller rotator reads first (keys ca.crt, ca.key, tls.crt, tls.key), holding the
    rehearsal's certificate: the rotator keeps a valid one (open-policy-agent/cert-controller, rotator.go)."""
    assert controller.rotator is not None

    def encode(path: Path) -> str:
        return base64.b64encode(path.read_bytes()).decode()

    _create_or_replace(plane.cluster, {
        "apiVersion": "v1", "kind": "Secret", "type": "Opaque",
        "metadata": {"name": controller.rotator[0], "namespace": controller.namespace},
        "data": {"ca.crt": encode(plane.ca.certificate), "ca.key": encode(plane.ca.key),
                 "tls.crt": encode(pair.certificate), "tls.key": encode(pair.key)}})
