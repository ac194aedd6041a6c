"""The HyperPod dependencies chart: the one HyperPod prerequisite trainstack cannot install itself.

HyperPod on EKS needs its health monitoring agent, the deep health check and job
auto-restart RBAC, and its patching agent in the cluster. AWS ships them only as a chart
in a git repository (aws/sagemaker-hyperpod-cli ``helm_chart/HyperPodHelmChart``) with no
published release, so trainstack prints the install command instead of vendoring it.

The chart also brings, on by default, controllers trainstack installs itself: the
Kubeflow training operator, the MPI operator and the NVIDIA, EFA and Neuron device
plugins. Two controllers of one kind reconcile every object of it twice (two operators
create, restart and delete the same job's pods; two device plugins advertise the same
devices), so the command turns the chart's copies off where trainstack runs its own.
trainstack keeps its own rather than the chart's: its training operator is the v1.8.1
release HyperPod's job auto-resume supports, its MPI operator (v0.8.0) is the one its
launchers render MPIJobs for, and both are pinned and placed on the system nodes in the
plan, where the chart's are an untagged training-operator build (``v1-855e096``) and MPI
operator 0.5. Everything HyperPod-specific in the chart stays on.
"""

from __future__ import annotations

from ..catalog.hyperpod_eks import HYPERPOD_CHART, HYPERPOD_CHART_COMMIT, HYPERPOD_CHART_REPOSITORY

# trainstack installs the device plugins for HyperPod's instance types with the cluster
# (GpuEksCluster's ``external_nodes``), whatever the operators.
DEVICE_PLUGINS = ("nvidia-device-plugin.devicePlugin.enabled", "aws-efa-k8s-device-plugin.devicePlugin.enabled",
                  "neuron-device-plugin.devicePlugin.enabled")
TRAINING_OPERATORS = "trainingOperators.enabled"
MPI_OPERATOR = "mpi-operator.enabled"
RELEASE, NAMESPACE = "hyperpod-dependencies", "kube-system"


def turned_off(*, training_operator: bool, mpi_operator: bool) -> list[str]:
    """The chart's switches set to false, given which job operators trainstack installs.

    trainstack's training operator alone runs the MPIJob (v1) scheme too, so the chart's MPI
    operator goes whenever trainstack runs either operator."""
    switches = list(DEVICE_PLUGINS)
    if training_operator:
        switches.append(TRAINING_OPERATORS)
    if training_operator or mpi_operator:
        switches.append(MPI_OPERATOR)
    known = {c.condition for c in HYPERPOD_CHART}
    assert set(switches) <= known, set(switches) - known  # a switch the chart does not have would be ignored
    return switches


def install_command(switches_off: list[str]) -> str:
    """The shell command that installs the chart at the pinned commit with ``switches_off`` false."""
    return (f"{_CLONE} && helm install {RELEASE} HyperPodHelmChart --namespace {NAMESPACE} {_sets(switches_off)}")


def upgrade_command(release: str, namespace: str, switches_off: list[str]) -> str:
    """The shell command that turns ``switches_off`` off in an installed release, keeping its other values."""
    return (f"{_CLONE} && helm upgrade {release} HyperPodHelmChart --namespace {namespace} --reuse-values "
            f"{_sets(switches_off)}")


_CLONE = (f"git clone {HYPERPOD_CHART_REPOSITORY} && git -C sagemaker-hyperpod-cli checkout {HYPERPOD_CHART_COMMIT} "
          "&& cd sagemaker-hyperpod-cli/helm_chart && helm dependencies update HyperPodHelmChart")


def _sets(switches_off: list[str]) -> str:
    return " ".join(f"--set {switch}=false" for switch in switches_off)
