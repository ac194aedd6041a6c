"""Whether the stack's job operators can run a training job on its accelerated groups at all.

The Kubeflow training operator v1.8.1 cannot run a job on a DRA group (``deviceAllocation: dra``): the pod
template of its PyTorchJob CRD was generated from ``k8s.io/api`` v0.29.3, whose ``PodResourceClaim`` is
``{name, source}``; it has no ``resourceClaimTemplateName``, the field of ``resource.k8s.io/v1`` pods
(kubeflow/training-operator v1.8.1 ``manifests/base/crds/kubeflow.org_pytorchjobs.yaml`` and ``go.mod``). So the
API server refuses a PyTorchJob whose pods claim devices under strict field validation, ``kubectl apply``'s
default (seen with the real kube-apiserver, ``tests/engines/test_admission.py``), and otherwise prunes the claim
as an unknown field, leaving pods that hold no device (KEP-2885, kubernetes/enhancements
``keps/sig-api-machinery/2885-server-side-unknown-field-validation``); ``launch/claims.py`` refuses such a
launch. What does claim them: a TrainJob of Kubeflow Trainer v2 on a GPU group (it brings its own
TrainingRuntime, ``launch/claims.py``) and an MPIJob on a Neuron group (the MPI operator v0.8.0's CRD keeps
``resourceClaims``, ``launch/mpijob.py``).

A stack whose every accelerated group is on DRA and whose one job operator is the training operator would
deploy a cluster on which only the device check (a plain Job) runs; the shipped b200-dra stack was such a
stack. It is refused here, before any resource exists, rather than at the first launch after a deploy:
nothing the training operator could do on that cluster is worth installing it for, and ``trainingOperator``
is on by default, so a stack file need not even name it to get it. A stack with a group on device plugins,
or HyperPod workers in the cluster, keeps it: PyTorchJobs run there, and a PyTorchJob launched on one of its
DRA groups is refused by name, with the way to a TrainJob.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...catalog import AcceleratorKind
from ..base import ConfigValueError

if TYPE_CHECKING:
    from ..stack_view import StackView


def check_job_operators(config: StackView) -> None:
    """Refuse ``operators.trainingOperator`` as the only job operator of a stack whose accelerated groups are
    all on DRA, naming the operator that claims their devices instead."""
    operators, groups = config.operators, config.node_groups
    hyperpod_workers = config.hyperpod is not None and config.hyperpod.orchestrator == "eks"
    if not operators.training_operator or not groups or hyperpod_workers:
        return
    if any(group.device_allocation != "dra" for group in groups):
        return
    neuron = any(group.accelerator.kind is AcceleratorKind.NEURON for group in groups)
    if neuron and operators.mpi_operator:
        return  # the Neuron groups train through MPIJobs
    gpu = any(group.accelerator.kind is AcceleratorKind.GPU for group in groups)
    instead = [*(["operators.trainer: true (Kubeflow Trainer v2: TrainJobs claim a GPU group's devices)"]
                 if gpu else []),
               *(["operators.mpiOperator: true (MPIJobs claim a Neuron group's devices)"] if neuron else [])]
    raise ConfigValueError(
        "every accelerated node group hands out its devices through DRA (deviceAllocation: dra), and no job "
        "operator of this stack can run a training job there: the Kubeflow training operator v1.8.1's PyTorchJob "
        "CRD has no resourceClaims[].resourceClaimTemplateName in its pod template, so the API server refuses a "
        "PyTorchJob whose pods claim devices (or, without strict field validation, drops the claim).",
        fix=f"set operators.trainingOperator: false and {' and '.join(instead)}; or put a group on "
            "deviceAllocation: device-plugins to run PyTorchJobs there.",
        path=("operators", "trainingOperator"), value=True)
