"""Pinned add-ons: every chart and operator manifest trainstack installs, one row per pin.

A row is the pinned version, where it was read, and which Kubernetes versions that version
supports, with where that was read. The components install the charts of this table
(``helm.helm_release``); the versions model (``controllers/versions.py``) judges every
release and manifest a plan installs against the same rows, and a pin with no row is a
finding. Adding an add-on is adding its row here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional


def minor(version: str) -> tuple[int, int]:
    """The Kubernetes minor a version names: ``"v1.35.4"`` and ``"1.35"`` are ``(1, 35)``."""
    found = re.match(r"v?(\d+)\.(\d+)", version)
    if found is None:
        raise ValueError(f"'{version}' names no Kubernetes minor version")
    return int(found.group(1)), int(found.group(2))


@dataclass(frozen=True)
class Support:
    """What a pinned version of a component says about the Kubernetes versions it runs on."""

    minimum: Optional[str]
    """The oldest Kubernetes minor supported (``"1.29"``); None when no matrix is published."""
    maximum: Optional[str]
    """The newest supported, where the matrix bounds it (the autoscaler: its own minor only)."""
    source: str

    def covers(self, cluster: tuple[int, int]) -> bool:
        """Whether the Kubernetes minor ``cluster`` is within the published bounds (unbounded sides pass)."""
        above = self.minimum is None or cluster >= minor(self.minimum)
        below = self.maximum is None or cluster <= minor(self.maximum)
        return above and below


@dataclass(frozen=True)
class Chart:
    name: str
    """The chart's name in its repository, or its ``oci://`` reference."""
    version: str
    repository: Optional[str]
    """The HTTP chart repository; ``None`` for OCI charts."""
    source: str
    """Where the pinned version was read, and when."""
    support: Support
    image_tag: Optional[str] = None
    """The image tag trainstack sets in the chart's values (``image.tag``) where it runs another release than the
    chart's own; None: the chart's. The support row is then the image's."""


@dataclass(frozen=True)
class OperatorManifest:
    """An operator installed from its release manifests (``addons/kustomize/<operator>``), whose
    kustomization names the version."""

    component: str
    """``kustomize:<operator>``, as the versions model names it."""
    version: str
    support: Support


_NO_MATRIX = "no Kubernetes support matrix read"

NVIDIA_DEVICE_PLUGIN = Chart(
    "nvidia-device-plugin", "0.20.0", "https://nvidia.github.io/k8s-device-plugin",
    "NVIDIA/k8s-device-plugin tag v0.20.0 (1b826acc)",
    Support("1.10", None, "NVIDIA/k8s-device-plugin v0.20.0 deployments/helm/nvidia-device-plugin/Chart.yaml "
            "kubeVersion '>= 1.10.0-0'; README prerequisites 'Kubernetes version >= 1.10'"))
EFA_DEVICE_PLUGIN = Chart(
    "aws-efa-k8s-device-plugin", "v0.5.30", "https://aws.github.io/eks-charts",
    "aws/eks-charts @5239609 (appVersion v0.5.20)",
    Support(None, None, f"aws/eks-charts aws-efa-k8s-device-plugin v0.5.30: {_NO_MATRIX}"))
# 1.9.0 is the newest release whose values could be read from source
# (aws-neuron/neuron-helm-charts b77a6f9, Neuron SDK 2.31); 1.10.0 exists but was not read.
NEURON_CHART = Chart(
    "oci://public.ecr.aws/neuron/neuron-helm-chart", "1.9.0", None,
    "aws-neuron/neuron-helm-charts b77a6f9 (appVersion 1.9.0)",
    Support(None, None, "aws-neuron/neuron-helm-charts b77a6f9: no support matrix read; its custom kube-scheduler "
            "is held to the skew policy instead"))
DCGM_EXPORTER = Chart(
    "dcgm-exporter", "4.8.2", "https://nvidia.github.io/dcgm-exporter/helm-charts",
    "NVIDIA/dcgm-exporter gh-pages index (2026-05-05)",
    Support(None, None, f"NVIDIA/dcgm-exporter chart 4.8.2: {_NO_MATRIX}"))
KUBE_PROMETHEUS_STACK = Chart(
    "kube-prometheus-stack", "88.5.3", "https://prometheus-community.github.io/helm-charts",
    "prometheus-community/helm-charts tag kube-prometheus-stack-88.5.3",
    Support(None, None, "prometheus-community/helm-charts kube-prometheus-stack-88.5.3: Chart.yaml kubeVersion "
            "not read"))
TRAINER = Chart(
    "oci://ghcr.io/kubeflow/charts/kubeflow-trainer", "2.3.0", None, "kubeflow/trainer tag v2.3.0",
    Support("1.31", None, "kubeflow/trainer v2.3.0 charts/kubeflow-trainer/README.md prerequisites: "
            "'Kubernetes >= 1.31'"))
KUEUE = Chart(
    "oci://registry.k8s.io/kueue/charts/kueue", "0.19.2", None, "kubernetes-sigs/kueue tag v0.19.2",
    Support("1.29", None, "kubernetes-sigs/kueue v0.19.2 README.md: 'Requires Kubernetes 1.29 or newer'"))
KARPENTER = Chart(
    "oci://public.ecr.aws/karpenter/karpenter", "1.14.1", None,
    "aws/karpenter-provider-aws tag v1.14.1, hack/release/release.sh and common.sh: the release publishes the chart "
    "and the controller image at the tag's version (charts/karpenter/Chart.yaml at the tag reads 1.13.0 until the "
    "release rewrites it; read 2026-11-27)",
    Support("1.30", "1.36", "aws/karpenter-provider-aws v1.14.1 website/content/en/docs/upgrading/compatibility.md, "
            "Compatibility Matrix: Kubernetes 1.30 (>= 0.37) to 1.35 (>= 1.9) and 1.36 (1.13.x on)"))
# The autoscaler's minor version must match the cluster's ("use the latest Cluster Autoscaler release that
# corresponds to the minor version of Kubernetes", cluster-autoscaler/README.md): one chart per Kubernetes minor, the
# newest chart whose values.yaml ``image.tag`` runs that minor (the tag, not the chart's appVersion, decides the
# binary: charts 9.54.0 to 9.55.0 say 1.35.0 and run v1.34.2). Read in kubernetes/autoscaler at 55c37cd5
# (2026-08-22), charts/cluster-autoscaler at each chart tag.
# 1.36: no chart's own image is 1.36 (cluster-autoscaler-1.36.0 and -1.36.1 are tagged; the newest chart, 9.59.0,
# runs v1.35.0), so 1.36 runs chart 9.59.0 with image.tag v1.36.1, the newest 1.36 release (README 'Releases': the
# latest release of the cluster's minor). Read before deciding, in kubernetes/autoscaler at 55c37cd5:
# * RBAC: upstream's own manifest for the AWS provider, cluster-autoscaler/cloudprovider/aws/examples/
#   cluster-autoscaler-autodiscover.yaml, changed from cluster-autoscaler-1.35.0 to -1.36.1 only by adding
#   resource.k8s.io deviceclasses, resourceslices and resourceclaims (watch, list, get). Chart 9.59.0's ClusterRole
#   and Role (templates/clusterrole.yaml, role.yaml at cluster-autoscaler-chart-9.59.0; cloudProvider aws,
#   rbac.create, clusterScoped) grant every rule of that 1.36.1 manifest, those three included.
# * What 1.36 reads beyond it is behind flags that are off by default (config/flags/flags.go at
#   cluster-autoscaler-1.36.1): capacity buffers (capacity-buffer-controller-enabled, -pod-injection-enabled: their
#   pod templates, ResourceQuotas and CapacityBuffers) and CapacityQuotas (capacity-quotas-enabled: the only user of
#   the controller-runtime manager main.go now starts). trainstack sets none of them.
# * Flags: no flag of 1.35.0 is gone in 1.36.1 (flags.go diff: additions, two moved lines), so every argument the
#   chart and trainstack pass still parses; enable-dynamic-resource-allocation is still locked to true
#   (catalog/autoscaler_dra.py: 9.59.0's DRA handling holds).
# * Chart.yaml at 9.59.0 sets no kubeVersion, so Helm installs it on 1.36.
# * The AWS provider's node templates are unchanged (cloudprovider/aws: only aws_cloud_provider.go's registration
#   changed), so controllers/cluster_autoscaler.py's model, read at 1.35.0, holds for 1.36.1.
_AUTOSCALER_REPOSITORY = "https://kubernetes.github.io/autoscaler"
CLUSTER_AUTOSCALER = {
    "1.36": Chart(
        "cluster-autoscaler", "9.59.0", _AUTOSCALER_REPOSITORY,
        "kubernetes/autoscaler cluster-autoscaler-chart-9.59.0 with image.tag v1.36.1 (tag cluster-autoscaler-1.36.1, "
        "2026-07-22; read at 55c37cd5, 2026-11-29)",
        Support("1.36", "1.36", "kubernetes/autoscaler cluster-autoscaler-1.36.1, run by chart 9.59.0 (image.tag): "
                "the autoscaler's minor matches the cluster's (README 'Releases'); the chart's RBAC covers the "
                "release's own AWS manifest (cloudprovider/aws/examples/cluster-autoscaler-autodiscover.yaml)"),
        image_tag="v1.36.1"),
    "1.35": Chart(
        "cluster-autoscaler", "9.59.0", _AUTOSCALER_REPOSITORY,
        "kubernetes/autoscaler cluster-autoscaler-chart-9.59.0 (appVersion 1.35.0)",
        Support("1.35", "1.35", "kubernetes/autoscaler cluster-autoscaler-chart-9.59.0 (appVersion 1.35.0); "
                "cluster-autoscaler/README.md 'Releases' at cluster-autoscaler-1.35.0: the autoscaler's minor "
                "matches the cluster's")),
    "1.34": Chart(
        "cluster-autoscaler", "9.52.0", _AUTOSCALER_REPOSITORY,
        "kubernetes/autoscaler cluster-autoscaler-chart-9.52.0 (appVersion 1.34.1)",
        Support("1.34", "1.34", "kubernetes/autoscaler cluster-autoscaler-chart-9.52.0 (appVersion 1.34.1); "
                "README 'Releases': 1.34.x with chart 9.51.0+")),
    "1.33": Chart(
        "cluster-autoscaler", "9.51.0", _AUTOSCALER_REPOSITORY,
        "kubernetes/autoscaler cluster-autoscaler-chart-9.51.0 @9befb31f (appVersion 1.33.0, image.tag v1.33.0; "
        "read 2026-11-28)",
        Support("1.33", "1.33", "kubernetes/autoscaler cluster-autoscaler-chart-9.51.0 charts/cluster-autoscaler "
                "values.yaml image.tag v1.33.0: the autoscaler's minor matches the cluster's (README 'Releases')")),
    "1.32": Chart(
        "cluster-autoscaler", "9.46.6", _AUTOSCALER_REPOSITORY,
        "kubernetes/autoscaler cluster-autoscaler-chart-9.46.6 @13dba175 (appVersion 1.32.0, image.tag v1.32.0; "
        "read 2026-11-28)",
        Support("1.32", "1.32", "kubernetes/autoscaler cluster-autoscaler-chart-9.46.6 charts/cluster-autoscaler "
                "values.yaml image.tag v1.32.0: the autoscaler's minor matches the cluster's (README 'Releases')")),
}
AUTOSCALER_SOURCE = "kubernetes/autoscaler at 55c37cd5 (2026-08-22): charts/cluster-autoscaler at each chart tag"
"""Where the per-minor charts were read, for a minor that has none."""
# The Neuron chart's custom scheduler runs kube-scheduler v1.31.12 (values.yaml at b77a6f9:
# scheduler.customScheduler.image), minors behind the control planes trainstack offers: outside Kubernetes'
# version-skew policy (kube-scheduler at most one minor older than kube-apiserver, never newer). It runs the
# release of the cluster's own minor version instead, as the upstream image (registry.k8s.io, the Kubernetes
# release images; the chart's deployment runs /usr/local/bin/kube-scheduler, where those images have it). Each tag
# is a k8s.io/kubernetes release the Go module proxy serves (tests/catalog/test_pinned_images.py checks it).
NEURON_SCHEDULER_IMAGES = {
    "1.36": ("registry.k8s.io/kube-scheduler", "v1.36.3"),
    "1.35": ("registry.k8s.io/kube-scheduler", "v1.35.0"),
    "1.34": ("registry.k8s.io/kube-scheduler", "v1.34.1"),
    "1.33": ("registry.k8s.io/kube-scheduler", "v1.33.13"),
    "1.32": ("registry.k8s.io/kube-scheduler", "v1.32.13"),
}
TRAINING_OPERATOR = OperatorManifest(
    "kustomize:training-operator", "v1.8.1",
    Support("1.25", None, "kubeflow/training-operator v1.8.1 README.md, Kubernetes version table (latest: 1.25+)"))
MPI_OPERATOR = OperatorManifest(
    "kustomize:mpi-operator", "v0.8.0",
    Support(None, None, "kubeflow/mpi-operator v0.8.0 README.md publishes no Kubernetes support matrix"))

# DRA drivers (device allocation profile ``dra``, catalog/device_allocation.py). Each is installed only on a
# stack with a DRA group, so stacks on device plugins render none of them.
NVIDIA_DRA_DRIVER = Chart(
    "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu", "0.4.1", None,
    "Amazon EKS User Guide, device-management-nvidia-dra-device-plugin (install command, read 2026-11-26); "
    "kubernetes-sigs/dra-driver-nvidia-gpu v0.4.1 deployments/helm/dra-driver-nvidia-gpu/values.yaml",
    Support("1.34", None, "Amazon EKS User Guide device-management-nvidia-dra-device-plugin, comparison table: "
            "minimum Kubernetes version 1.34 (read 2026-11-26)"))
AWS_DRANET = Chart(
    "aws-dranet", "1.0.0", "https://aws.github.io/eks-charts",
    "aws/eks-charts stable/aws-dranet/Chart.yaml @c043cef (version 1.0.0, appVersion v1.2.0-eksbuild.2); "
    "Amazon EKS User Guide device-management-efa (helm install aws-dranet eks/aws-dranet, read 2026-11-26)",
    Support("1.34", None, "Amazon EKS User Guide device-management-efa: the EFA DRA driver needs Kubernetes 1.34 "
            "or later (read 2026-11-26)"))

def runs_device_plugin(chart: str, values: dict) -> bool:
    """Whether a release of ``chart`` with ``values`` runs a device plugin: not the NVIDIA device-plugin chart with
    ``devicePlugin.enabled: false``, which renders GPU Feature Discovery alone (addons/feature_discovery.py; the
    chart's templates/daemonset-device-plugin.yml at v0.20.0 renders only ``if .Values.devicePlugin.enabled``)."""
    if chart_reference(chart) != NVIDIA_DEVICE_PLUGIN.name:
        return True
    return bool((values.get("devicePlugin") or {}).get("enabled", True))

NEURON_DRA_DRIVER = Chart(
    NEURON_CHART.name, NEURON_CHART.version, None,
    "aws-neuron/neuron-helm-charts b77a6f9 (1.9.0) charts/neuron-helm-chart/values.yaml: draDriver (off by "
    "default, image public.ecr.aws/neuron/neuron-dra-driver:1.1.0, its own namespace neuron-dra-driver); "
    "templates/dra-driver/dra-driver-deviceclass.yaml @97e1b7d: DeviceClass neuron.aws.com selecting device.driver == "
    "\"neuron.aws.com\" (read 2026-11-26)",
    Support("1.34", None, "Amazon EKS User Guide device-management-neuron, comparison table: Neuron DRA driver "
            "minimum Kubernetes version 1.34; Neuron SDK docs deploy/eks/dra.rst (aws-neuron/aws-neuron-sdk "
            "3afa0fd) FAQ: control plane 1.34, node AMI 1.34.2 or later (read 2026-11-26)"))
"""The Neuron DRA driver: the pinned Neuron chart again, released a second time with only ``draDriver`` on. Not a
row of ``CHARTS`` (one row per chart: the release is found by the chart's name, whose row is ``NEURON_CHART``)."""

CHARTS: tuple[Chart, ...] = (NVIDIA_DEVICE_PLUGIN, EFA_DEVICE_PLUGIN, NEURON_CHART, DCGM_EXPORTER,
                             KUBE_PROMETHEUS_STACK, TRAINER, KUEUE, KARPENTER, *CLUSTER_AUTOSCALER.values(),
                             NVIDIA_DRA_DRIVER, AWS_DRANET)
OPERATOR_MANIFESTS: tuple[OperatorManifest, ...] = (TRAINING_OPERATOR, MPI_OPERATOR)


def chart_reference(chart: str) -> str:
    """The chart a release installs, as the catalog names it, whether the release takes it from its repository (the
    name, or its ``oci://`` reference) or from a directory of pulled charts (``helmCharts.directory``: a path to
    ``<name>-<version>.tgz`` or ``<name>/``), so that what reads releases (the controller models, the estimates)
    knows the chart either way."""
    if "://" in chart or "/" not in chart:
        return chart
    base = chart.rstrip("/").rsplit("/", 1)[-1]
    for known in CHARTS:
        name = known.name.rsplit("/", 1)[-1]
        if base in (name, f"{name}-{known.version}.tgz"):
            return known.name
    return chart


def support(component: str, version: str, image_tag: Optional[str] = None) -> Optional[Support]:
    """The support row of a pinned component (a chart as a release records it, or ``kustomize:<operator>``):
    the row of the image the release sets (``image_tag``, its values' ``image.tag``) where one names it, else the
    chart's own."""
    pins = [(c.name, c.version, c.image_tag, c.support) for c in CHARTS]
    pins += [(m.component, m.version, None, m.support) for m in OPERATOR_MANIFESTS]
    rows = {tag: row for name, pinned, tag, row in pins if (name, pinned) == (component, version)}
    return rows.get(image_tag) if image_tag in rows else rows.get(None)

# The awslabs/amazon-eks-ami release whose nodeadm trainstack's node facts were read from
# (controllers/cluster_autoscaler.py): the release a production Karpenter group's error suggests
# pinning (NodeGroupConfig.amiVersion).
EKS_AMI_RELEASE = "v20260724"
