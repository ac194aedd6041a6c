"""Who reconciles what in an EKS cluster: one controller per API kind, one device plugin per resource.

Two controllers watching one kind both act on every object of it: two training operators
each create, restart and delete a PyTorchJob's pods; two MPI operators (or a training
operator's v1 MPIJob scheme beside the MPI operator's v2beta1 CRD) fight over
``mpijobs.kubeflow.org``; two Kueues admit the same workloads; two device plugins register
the same devices with the kubelet. Everything installed counts, whether the stack installs
it (Helm releases, kustomizations, EKS add-ons, read from the plan) or the plan prints it as
a prerequisite for the user to install (the HyperPod dependencies chart, read from the
printed ``helm install`` and the chart's defaults).

What each install reconciles, with where it was read:

* Kubeflow training operator v1.8.1 (``manifests/overlays/standalone`` at tag v1.8.1,
  ``cmd/training-operator.v1/main.go`` schemes): PyTorchJob, TFJob, MXJob, XGBoostJob,
  PaddleJob and MPIJob; trainstack's ``without-mpijob`` variant drops the MPIJob scheme and CRD.
* MPI operator v0.8.0 (``deploy/v2beta1/mpi-operator.yaml``): MPIJob.
* Kueue (kubernetes-sigs/kueue chart 0.19.2) and the HyperPod task governance add-on, which is
  built on Kueue (SageMaker developer guide, sagemaker-hyperpod-eks-operate-console-ui-governance):
  ClusterQueue, LocalQueue, Workload.
* cert-manager (EKS community add-on ``cert-manager``): its certificate kinds.
* The HyperPod training operator add-on: HyperPodPyTorchJob (SageMaker developer guide,
  sagemaker-eks-operator-usage).
* Device plugin charts: the extended resource each advertises; the Neuron chart's DRA driver, the DeviceClass
  ``neuron.aws.com`` its release creates (each only where the release switches that component on).
* The HyperPod dependencies chart: ``catalog.hyperpod_eks.HYPERPOD_CHART``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Iterator
from pathlib import PurePath
from typing import Optional

from ..catalog.addons import runs_device_plugin
from ..catalog.hyperpod_eks import HYPERPOD_CHART, HYPERPOD_CHART_SOURCE
from ..names import EKS_ADDON, HELM_RELEASE, KUSTOMIZE_DIRECTORY
from ..plan import library_paths
from ..policy.model import Resource, Stack
from .model import Finding

CONTROLLER = "cluster-controllers"
KUBEFLOW_V1 = ("kubeflow.org/PyTorchJob", "kubeflow.org/TFJob", "kubeflow.org/MXJob", "kubeflow.org/XGBoostJob",
               "kubeflow.org/PaddleJob")
KUEUE_KINDS = ("kueue.x-k8s.io/ClusterQueue", "kueue.x-k8s.io/LocalQueue", "kueue.x-k8s.io/Workload")
CERT_MANAGER_KINDS = ("cert-manager.io/Certificate", "cert-manager.io/Issuer", "cert-manager.io/ClusterIssuer")

KUSTOMIZATIONS: dict[str, tuple[str, ...]] = {
    "training-operator/standalone": (*KUBEFLOW_V1, "kubeflow.org/MPIJob"),
    "training-operator/without-mpijob": KUBEFLOW_V1,
    "mpi-operator": ("kubeflow.org/MPIJob",),
}
HELM_CHARTS: dict[str, tuple[str, ...]] = {
    "nvidia-device-plugin": ("resource/nvidia.com/gpu",),
    "aws-efa-k8s-device-plugin": ("resource/vpc.amazonaws.com/efa",),
    "neuron-helm-chart": ("resource/aws.amazon.com/neuron", "deviceclass/neuron.aws.com"),
    "kueue": KUEUE_KINDS,
}
"""By chart name, the last segment of an OCI reference."""
CHART_SWITCHES: dict[str, tuple[tuple[str, ...], bool]] = {
    "resource/aws.amazon.com/neuron": (("devicePlugin", "enabled"), True),
    "deviceclass/neuron.aws.com": (("draDriver", "enabled"), False),
}
"""What a release of a chart with several components owns only where its values switch that component on: the
value's path and the chart's default (aws-neuron/neuron-helm-charts 1.9.0 values.yaml: the device plugin on, the DRA
driver off; a stack may release the chart once per component, addons/dra_drivers.py)."""
EKS_ADDONS: dict[str, tuple[str, ...]] = {
    "amazon-sagemaker-hyperpod-taskgovernance": KUEUE_KINDS,
    "amazon-sagemaker-hyperpod-training-operator": ("sagemaker.amazonaws.com/HyperPodPyTorchJob",),
    "cert-manager": CERT_MANAGER_KINDS,
}
HYPERPOD_CHART_INSTALL = re.compile(r"helm install \S+ HyperPodHelmChart[^\n]*")


def kustomization(resource: Resource) -> Optional[str]:
    """The directory a ``kustomize/v2:Directory`` was built from, as recorded, or None where it is not in view.

    The plan records the component's inputs. Under the engine it is a remote component whose state is only
    what it registers, ``resources`` (pulumi-kubernetes provider/pkg/provider/kustomize/v2/directory.go,
    ``DirectoryState``), so a policy pack never sees the directory (``analysis.crossguard`` says so)."""
    directory = resource.props.get("directory")
    return directory if isinstance(directory, str) and directory else None


def _kustomization_key(directory: str) -> str:
    """``training-operator/standalone`` for the overlay a record names (``plan/library_paths.py``)."""
    inside = library_paths.shipped_path(directory)
    parts = inside.parts if inside is not None else PurePath(directory).parts
    return "/".join(parts[parts.index("kustomize") + 1:]) if "kustomize" in parts else parts[-1]


def installed_by_stack(stack: Stack) -> Iterator[tuple[str, str]]:
    """(what is owned, who installs it) for what the stack itself installs."""
    for record in stack.of_type(KUSTOMIZE_DIRECTORY):
        directory = kustomization(record)
        for owned in KUSTOMIZATIONS.get(_kustomization_key(directory), ()) if directory is not None else ():
            yield owned, f"kustomization {record.name}"
    for record in stack.of_type(HELM_RELEASE):
        chart = str(record.inputs.get("chart", ""))
        if not runs_device_plugin(chart, dict(record.inputs.get("values") or {})):
            continue  # GPU Feature Discovery alone: the chart's device plugin is off, it owns no resource
        for owned in HELM_CHARTS.get(chart.rsplit("/", 1)[-1], ()):
            if _switched_on(record, owned):
                yield owned, f"Helm release {record.name}"
    for record in stack.of_type(EKS_ADDON):
        for owned in EKS_ADDONS.get(str(record.inputs.get("addonName", "")), ()):
            yield owned, f"EKS add-on {record.inputs['addonName']}"


def _switched_on(release: Resource, owned: str) -> bool:
    """Whether the release's values leave on the component that owns ``owned`` (CHART_SWITCHES)."""
    if owned not in CHART_SWITCHES:
        return True
    path, default = CHART_SWITCHES[owned]
    value: object = release.inputs.get("values") or {}
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return default if value is None else bool(value)


def printed_chart_switches(printed: Iterable[str]) -> list[dict[str, bool]]:
    """The ``--set <switch>=true|false`` of each HyperPod chart install among the program's ``printed`` warnings."""
    installs = []
    for message in printed:
        for command in HYPERPOD_CHART_INSTALL.findall(message):
            words = shlex.split(command)
            sets = [words[i + 1] for i, word in enumerate(words[:-1]) if word == "--set"]
            installs.append({key: value.lower() == "true" for key, _, value in (s.partition("=") for s in sets)})
    return installs


def installed_by_prerequisites(printed: Iterable[str]) -> Iterator[tuple[str, str]]:
    for switches in printed_chart_switches(printed):
        for component in HYPERPOD_CHART:
            if switches.get(component.condition, component.enabled_by_default):
                for owned in component.owns:
                    yield owned, f"the printed HyperPod chart install ({component.condition})"


def owners(stack: Stack, printed: Iterable[str]) -> dict[str, list[str]]:
    """Per API kind or extended resource, everything that reconciles it."""
    found: dict[str, list[str]] = {}
    for owned, owner in [*installed_by_stack(stack), *installed_by_prerequisites(printed)]:
        found.setdefault(owned, []).append(owner)
    return found


def one_controller_per_kind(stack: Stack, printed: Iterable[str] = ()) -> list[Finding]:
    """Two or more controllers of one kind, among what ``stack`` installs and the installs ``printed``."""
    findings = []
    for owned, who in sorted(owners(stack, printed).items()):
        if len(who) > 1:
            what = f"extended resource {owned.removeprefix('resource/')}" if owned.startswith("resource/") \
                else f"kind {owned}"
            findings.append(Finding(
                CONTROLLER, owned,
                f"{what} has {len(who)} controllers ({'; '.join(who)}): each acts on every object of it. "
                "Turn one off (for the HyperPod chart, --set <switch>=false in its install command).",
                f"{HYPERPOD_CHART_SOURCE}; the controllers' own manifests (module docstring)"))
    return findings
