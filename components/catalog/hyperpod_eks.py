"""Facts about SageMaker HyperPod with EKS orchestration that both the config (which refuses
what HyperPod cannot run) and the controller models (which check what a stack renders) read.

Kubernetes versions: SageMaker developer guide, "Getting started with Amazon EKS support in
SageMaker HyperPod" (docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-prerequisites.html),
"Kubernetes version support". The page has grown with each release (1.28-1.30, then to 1.32,
1.33); its current English text lists 1.30 to 1.35, which governs: older copies only lag it.

The HyperPod dependencies chart: aws/sagemaker-hyperpod-cli ``helm_chart/HyperPodHelmChart``
at commit 40eb213ed5fe90a4d16f1664db07d174b9b3d69d (2025-10-29): ``Chart.yaml`` (each
dependency's ``condition``) and ``values.yaml`` (its default). It has no published release;
AWS's prerequisite page installs it from a clone of the repository.
"""

from __future__ import annotations

from dataclasses import dataclass

HYPERPOD_EKS_KUBERNETES_VERSIONS = ("1.30", "1.31", "1.32", "1.33", "1.34", "1.35")
HYPERPOD_EKS_VERSIONS_SOURCE = ("SageMaker developer guide, sagemaker-hyperpod-eks-prerequisites.html, "
                                "Kubernetes version support")
# Same page, "Networking": the VPC CNI is the only CNI HyperPod supports, from 1.18.3.
HYPERPOD_EKS_MIN_VPC_CNI = (1, 18, 3)

HYPERPOD_CHART_REPOSITORY = "https://github.com/aws/sagemaker-hyperpod-cli.git"
HYPERPOD_CHART_COMMIT = "40eb213ed5fe90a4d16f1664db07d174b9b3d69d"
HYPERPOD_CHART_SOURCE = f"aws/sagemaker-hyperpod-cli helm_chart/HyperPodHelmChart values.yaml @ {HYPERPOD_CHART_COMMIT}"
# The chart's own name (its Chart.yaml ``name``), which every release of it records whatever the
# release is called: the console's setup and AWS's command may name the release differently.
HYPERPOD_CHART_NAME = "hyperpod-helm-chart"


@dataclass(frozen=True)
class ChartComponent:
    """One dependency of the HyperPod chart, switched by ``condition``."""

    condition: str
    """The values key that turns it on or off, e.g. ``mpi-operator.enabled``."""
    enabled_by_default: bool
    owns: tuple[str, ...]
    """The API kinds its controller reconciles (``group/Kind``) and the extended resources its
    device plugin advertises: what must have one owner in a cluster."""


# Kinds: the training-operators subchart runs the schemes its values.yaml lists (pytorchjob,
# tfjob, mxjob, xgboostjob, paddlejob; mpijob is left out "to avoid the conflicting
# mpijobs.kubeflow.org with mpi-operator"); the mpi-operator subchart's CRD is
# mpijobs.kubeflow.org v2beta1; cert-manager's are its certificate kinds.
HYPERPOD_CHART: tuple[ChartComponent, ...] = (
    ChartComponent("trainingOperators.enabled", True, (
        "kubeflow.org/PyTorchJob", "kubeflow.org/TFJob", "kubeflow.org/MXJob", "kubeflow.org/XGBoostJob",
        "kubeflow.org/PaddleJob")),
    ChartComponent("mpi-operator.enabled", True, ("kubeflow.org/MPIJob",)),
    ChartComponent("cert-manager.enabled", False, (
        "cert-manager.io/Certificate", "cert-manager.io/Issuer", "cert-manager.io/ClusterIssuer")),
    ChartComponent("nvidia-device-plugin.devicePlugin.enabled", True, ("resource/nvidia.com/gpu",)),
    ChartComponent("aws-efa-k8s-device-plugin.devicePlugin.enabled", True, ("resource/vpc.amazonaws.com/efa",)),
    ChartComponent("neuron-device-plugin.devicePlugin.enabled", True, ("resource/aws.amazon.com/neuron",)),
    # HyperPod's own agents: they act on HyperPod's nodes and jobs and own no kind trainstack installs.
    ChartComponent("health-monitoring-agent.enabled", True, ()),
    ChartComponent("deep-health-check.enabled", True, ()),
    ChartComponent("job-auto-restart.enabled", True, ()),
    ChartComponent("hyperpod-patching.enabled", True, ()),
)
