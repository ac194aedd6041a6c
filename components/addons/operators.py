"""Job operators: Kubeflow training operator, MPI operator, etcd for elastic
rendezvous, Kueue. Controllers run on system nodes and tolerate no accelerator taint.

The operators without a maintained Helm chart come from their manifests at a
release tag, through kustomizations shipped with trainstack that only place the
controllers and settle the MPIJob CRD both operators claim.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Optional

import pulumi
import pulumi_kubernetes as k8s

from ..boundary import dump_yaml
from ..catalog.addons import KUEUE
from ..cluster.system_nodes import SYSTEM_LABELS
from ..config.cluster_size import ClusterSize
from ..config.controller_resources import mpi_operator_settings, training_operator_resources
from ..helm import helm_release
from ..names import DEPLOYMENT, SECRET
from .persistent_volumes import STORAGE_CLASS

# PyTorch's etcd rendezvous speaks the etcd v2 API, which etcd 3.6 removed; 3.5 still
# serves it behind --enable-v2.
ETCD_IMAGE = "quay.io/coreos/etcd:v3.5.33"
# Its own namespace: the training operator's manifests own "kubeflow".
ETCD_NAMESPACE, ETCD_SERVICE, ETCD_PORT = "etcd", "etcd", 2379
ETCD_ENDPOINT = f"{ETCD_SERVICE}.{ETCD_NAMESPACE}.svc.cluster.local:{ETCD_PORT}"


def kustomization(*parts: str) -> str:
    """The kustomization shipped with trainstack, as a path relative to the program's working directory.

    Relative, so the plan record (and the state Pulumi keeps) is the same in every checkout and
    names no runner's directory. The Kubernetes provider builds the kustomization in its own
    working directory (``krusty`` on ``filesys.MakeFsOnDisk()`` with the path as given:
    pulumi/pulumi-kubernetes provider/pkg/provider/kustomize/v2/directory.go), and the Pulumi
    engine starts the program and its providers in the same one: the project's ``main`` directory
    when it is one, else the project root (pulumi/pulumi pkg/engine/project.go, ``getPwdMain``).
    The program runs from there (the offline plan does as the language host does), so a path
    relative to the current directory is one the provider resolves to the same files.
    """
    shipped = Path(str(resources.files("trainstack.addons").joinpath("kustomize", *parts)))
    return Path(os.path.relpath(shipped, Path.cwd())).as_posix()


def training_operator(name: str, *, beside_mpi_operator: bool, provider: k8s.Provider, parent: pulumi.Resource,
                      depends_on: list[pulumi.Resource], size: Optional[ClusterSize] = None) -> pulumi.Resource:
    """``size``: the stack's, which sizes the controller on a large stack (config/controller_resources.py)."""
    variant = "without-mpijob" if beside_mpi_operator else "standalone"
    directory: pulumi.Resource = k8s.kustomize.v2.Directory(
        f"{name}-training-operator", directory=kustomization("training-operator", variant),
        opts=pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=depends_on,
                                    transforms=[webhook_certificate_is_the_operators,
                                                *training_operator_sizing(size)]))
    return directory


def training_operator_sizing(size: Optional[ClusterSize]) -> list[pulumi.ResourceTransform]:
    """The transforms that size the training operator's controller for ``size`` (none on a small stack)."""
    resources = training_operator_resources(size)
    return [] if resources is None else [sized_container("training-operator", resources)]


def mpi_operator_sizing(size: Optional[ClusterSize]) -> list[pulumi.ResourceTransform]:
    """The transforms that size the MPI operator's controller and its client rate for ``size``."""
    settings = mpi_operator_settings(size)
    return [] if settings is None else [sized_container("mpi-operator", *settings)]


def sized_container(deployment: str, resources: dict[str, Any], args: Sequence[str] = ()) -> pulumi.ResourceTransform:
    """A transform for an operator installed from its release manifests (whose kustomization, shipped with
    trainstack, is the same for every stack): the Deployment ``deployment`` gets ``resources`` on its container of
    the same name, and ``args`` after the manifest's own, each replacing a manifest flag of the same name."""

    def transform(transform_args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult | None:
        if transform_args.type_ != DEPLOYMENT or not transform_args.name.endswith(f"/{deployment}"):
            return None
        return pulumi.ResourceTransformResult(
            props=with_container_settings(transform_args.props, deployment, resources, args), opts=transform_args.opts)

    return transform


def with_container_settings(deployment: Mapping[str, Any], container: str, resources: dict[str, Any],
                            args: Sequence[str] = ()) -> dict[str, Any]:
    """A copy of the Deployment object ``deployment`` whose container ``container`` has ``resources`` and
    ``args`` (see ``sized_container``); KeyError when the manifest has no such container, so a manifest that
    renamed it fails the deploy instead of leaving the controller unsized."""
    sized = copy.deepcopy(dict(deployment))
    containers = sized["spec"]["template"]["spec"]["containers"]
    matching = [each for each in containers if each["name"] == container]
    if not matching:
        raise KeyError(f"the Deployment has no container '{container}' to size")
    target = matching[0]
    target["resources"] = copy.deepcopy(resources)
    flags = {arg.split("=", 1)[0] for arg in args}
    target["args"] = [arg for arg in target.get("args", []) if arg.split("=", 1)[0] not in flags] + list(args)
    if not target["args"]:
        del target["args"]
    return sized


WEBHOOK_CERTIFICATE = "training-operator-webhook-cert"
"""The Secret the operator's release overlay generates empty (its ``secretGenerator``) and the operator fills with
its webhook's certificate at start (manifests/overlays/standalone/kustomization.yaml at v1.8.1)."""


def webhook_certificate_is_the_operators(args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult | None:
    """The webhook certificate's data is the operator's, not the stack's: changes to it are ignored. Without this
    the Kubernetes provider replaced the Secret on every ``pulumi up``, even one with nothing to do (found by the
    engine's deploy tests): the generated Secret's empty ``data`` is never in the live object, the provider sees
    ``data`` added, and a Secret's data change is a replacement (pulumi/pulumi-kubernetes#1772); the replacement
    would also delete the certificate a running operator wrote."""
    if args.type_ == SECRET and args.name.endswith(f"/{WEBHOOK_CERTIFICATE}"):
        return pulumi.ResourceTransformResult(props=args.props, opts=pulumi.ResourceOptions.merge(
            args.opts, pulumi.ResourceOptions(ignore_changes=["data"])))
    return None


def mpi_operator(name: str, *, provider: k8s.Provider, parent: pulumi.Resource,
                 depends_on: list[pulumi.Resource], size: Optional[ClusterSize] = None) -> pulumi.Resource:
    """``size``: the stack's, which sizes the controller and its client rate on a large stack."""
    directory: pulumi.Resource = k8s.kustomize.v2.Directory(
        f"{name}-mpi-operator", directory=kustomization("mpi-operator"),
        opts=pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=depends_on,
                                    transforms=mpi_operator_sizing(size)))
    return directory


def etcd(name: str, *, provider: k8s.Provider, parent: pulumi.Resource,
         depends_on: list[pulumi.Resource]) -> str:
    """A single-member etcd on a persistent volume; returns its ``host:port``."""
    opts = pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=depends_on)
    labels = {"app.kubernetes.io/name": "etcd", "app.kubernetes.io/part-of": "trainstack"}
    namespace = k8s.core.v1.Namespace(f"{name}-etcd", metadata={"name": ETCD_NAMESPACE}, opts=opts)
    in_namespace = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[namespace]))
    k8s.core.v1.Service(
        f"{name}-etcd", metadata={"name": ETCD_SERVICE, "namespace": ETCD_NAMESPACE, "labels": labels},
        spec={"selector": labels, "ports": [{"name": "client", "port": ETCD_PORT, "targetPort": ETCD_PORT}]},
        opts=in_namespace)
    k8s.apps.v1.StatefulSet(
        f"{name}-etcd",
        metadata={"name": ETCD_SERVICE, "namespace": ETCD_NAMESPACE, "labels": labels},
        spec={
            "serviceName": ETCD_SERVICE, "replicas": 1, "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {
                "nodeSelector": dict(SYSTEM_LABELS),
                "containers": [{
                    "name": "etcd", "image": ETCD_IMAGE,
                    "command": ["/usr/local/bin/etcd", "--name=etcd", "--data-dir=/var/lib/etcd", "--enable-v2",
                                f"--listen-client-urls=http://0.0.0.0:{ETCD_PORT}",
                                f"--advertise-client-urls=http://{ETCD_SERVICE}.{ETCD_NAMESPACE}:{ETCD_PORT}"],
                    "ports": [{"name": "client", "containerPort": ETCD_PORT}],
                    "volumeMounts": [{"name": "data", "mountPath": "/var/lib/etcd"}],
                    "resources": {"requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"memory": "1Gi"}},
                    "readinessProbe": {"httpGet": {"path": "/health", "port": ETCD_PORT}},
                }],
            }},
            "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {
                "storageClassName": STORAGE_CLASS, "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "10Gi"}}}}],
        },
        opts=in_namespace)
    return ETCD_ENDPOINT


def kueue(name: str, *, provider: k8s.Provider, parent: pulumi.Resource, depends_on: list[pulumi.Resource],
          manager_configuration: Optional[dict[str, Any]] = None,
          manager_resources: Optional[dict[str, Any]] = None) -> k8s.helm.v3.Release:
    """``manager_configuration``: Configuration keys trainstack sets (addons/kueue.py) over the
    chart's own default Configuration; ``manager_resources``: the manager container's resources in place of
    the chart's, on a large stack (config/cluster_size.py)."""
    values: dict[str, Any] = {"controllerManager": {"nodeSelector": dict(SYSTEM_LABELS)}}
    if manager_resources is not None:
        values["controllerManager"]["manager"] = {"resources": manager_resources}
    if manager_configuration is not None:
        # The chart takes the whole Configuration as one YAML string, so its default is restated
        # here (charts/kueue/values.yaml managerConfig.controllerManagerConfigYaml at v0.19.2).
        configuration = {**KUEUE_DEFAULT_CONFIGURATION, **manager_configuration}
        values["managerConfig"] = {"controllerManagerConfigYaml": dump_yaml(configuration, sort_keys=False)}
    return helm_release(f"{name}-kueue", KUEUE, namespace="kueue-system", provider=provider, parent=parent,
                        depends_on=depends_on, values=values)


KUEUE_DEFAULT_CONFIGURATION: dict[str, Any] = {
    "apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
    "health": {"healthProbeBindAddress": ":8081"}, "metrics": {"bindAddress": ":8443"},
    "webhook": {"port": 9443},
    "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
    "controller": {"groupKindConcurrency": {
        "Job.batch": 5, "Pod": 5, "Workload.kueue.x-k8s.io": 10, "LocalQueue.kueue.x-k8s.io": 5,
        "ClusterQueue.kueue.x-k8s.io": 5, "ResourceFlavor.kueue.x-k8s.io": 1}},
    "clientConnection": {"qps": 300, "burst": 500},
}
