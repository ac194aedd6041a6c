"""Kubeflow Trainer v2: the TrainJob controller (with JobSet) and trainstack's ClusterTrainingRuntime.

Trainer v2 is the successor of the training operator v1 (PyTorchJob): a TrainJob names a
ClusterTrainingRuntime, the blueprint of the JobSet the controller creates. Installed from
the project's chart, ``oci://ghcr.io/kubeflow/charts/kubeflow-trainer`` 2.3.0, which brings
JobSet 0.12.0 as a dependency (kubeflow/trainer ``charts/kubeflow-trainer/Chart.yaml`` and
``values.yaml`` at v2.3.0). The chart's own runtimes stay off: trainstack's runtime is a
torch one with what the FSDP stack's PyTorchJobs carry (one process per GPU set by the
TrainJob, a memory-backed /dev/shm); placement, fabric and checkpoint settings are per
stack and come with each TrainJob (launch/trainjob.py).

On a stack with Neuron groups a second runtime, ``trainstack-mpi``, runs Open MPI the way the
MPIJob launcher does (``mpi_runtime``). It is created only there: it carries the Neuron custom
scheduler's name, which a GPU-only cluster does not run, and which no TrainJob can set (its
runtime patches carry no ``schedulerName``, trainjob_types.go at v2.3.0).

API: ``trainer.kubeflow.org/v1alpha1`` (``pkg/apis/trainer/v1alpha1/trainingruntime_types.go``
at v2.3.0). The torch runtime itself is ``catalog/torch_runtime.py``: a TrainJob on a DRA group brings a copy of it.
"""

from __future__ import annotations

from typing import Any, Optional

import pulumi
import pulumi_kubernetes as k8s

from ..catalog.addons import TRAINER
from ..catalog.image_registries import dlc_registry
from ..catalog.mpi_ssh import NODE_SSHD_COMMAND, ROOT, SSH_AUTH_MOUNT_PATH, SSH_PORT
from ..catalog.torch_runtime import API_VERSION, CHECK_RUNTIME, NODE, RESTARTS, torch_runtime
from ..cluster.system_nodes import SYSTEM_LABELS
from ..config.cluster_size import ClusterSize
from ..config.controller_resources import jobset_controller_resources, trainer_manager_resources
from ..helm import helm_release

NAMESPACE = "kubeflow-system"
MPI_RUNTIME = "trainstack-mpi"
# The replicated job whose pod runs mpirun (constants.Launcher at v2.3.0).
LAUNCHER = "launcher"
# The image of the MPI runtime's node pods. At v2.3.0 a TrainJob's trainer.image reaches only
# the launcher (pkg/runtime/framework/plugins/jobset/builder.go ``Trainer``: image and command go
# to the trainer-ancestor job's ``node`` container) and a runtime patch carries no image, so the
# nodes run the runtime's: AWS's Neuron training Deep Learning Container for PyTorch 2.8.0 and
# Neuron SDK 2.26.1, which installs Open MPI 4.1.5 and openssh-server "for MPI operator in k8s"
# (aws-neuron/deep-learning-containers ``pytorch/training/2.8.0/Dockerfile.neuronx`` at tag
# 2.26.1). The TrainJob's launcher must run the same one (launch/trainjob.py refuses another).
# The DLC registry is per region (catalog.image_registries): the image is named from the stack's.
NEURON_TRAINING_REPOSITORY = "pytorch-training-neuronx"
NEURON_TRAINING_TAG = "2.8.0-neuronx-py311-sdk2.26.1-ubuntu22.04"


def neuron_training_image(region: str) -> str:
    """The Neuron training DLC in ``region``'s registry; UnknownRegistryRegion where AWS publishes none."""
    return f"{dlc_registry(region, neuron=True).host}/{NEURON_TRAINING_REPOSITORY}:{NEURON_TRAINING_TAG}"


def mpi_runtime(scheduler_name: str, region: str, restarts: int = RESTARTS) -> dict[str, Any]:
    """The ClusterTrainingRuntime TrainJobs on Neuron groups name: Open MPI over ssh.

    The shape of kubeflow/trainer's own MPI runtime at v2.3.0
    (``manifests/base/runtimes/deepspeed_distributed.yaml``) with its MPI plugin
    (``pkg/runtime/framework/plugins/mpi/mpi.go``): ``runLauncherAsNode``, so the launcher pod is
    rank 0's node too (it gets the TrainJob's devices and is in the hostfile) and the ``node``
    job has one pod fewer than the TrainJob's numNodes; the nodes start after their sshd is ready
    (``dependsOn`` Ready, readiness on the ssh port); the JobSet succeeds when the launcher does.
    The plugin mounts the job's ssh key at ``sshAuthMountPath`` on every ``node`` container and
    sets Open MPI's hostfile, slots and rsh variables on the launcher's."""
    placement = {"schedulerName": scheduler_name}
    image = neuron_training_image(region)
    node = {"name": NODE, "image": image, "command": list(NODE_SSHD_COMMAND),
            "securityContext": dict(ROOT),
            "readinessProbe": {"tcpSocket": {"port": SSH_PORT}, "initialDelaySeconds": 5}}
    launcher = {"name": NODE, "image": image, "securityContext": dict(ROOT)}
    return {
        "apiVersion": API_VERSION, "kind": "ClusterTrainingRuntime",
        "metadata": {"name": MPI_RUNTIME, "labels": {"trainer.kubeflow.org/framework": "mpi"}},
        "spec": {"mlPolicy": {"numNodes": 1, "mpi": {
                     "numProcPerNode": 1, "mpiImplementation": "OpenMPI",
                     "sshAuthMountPath": SSH_AUTH_MOUNT_PATH, "runLauncherAsNode": True}},
                 "template": {"spec": {
                     "network": {"publishNotReadyAddresses": True},
                     "successPolicy": {"operator": "All", "targetReplicatedJobs": [LAUNCHER]},
                     "failurePolicy": {"maxRestarts": restarts},
                     "replicatedJobs": [
                         {"name": NODE, "template": {"spec": {"backoffLimit": 0, "template": {"spec": {
                             **placement, "containers": [node]}}}}},
                         {"name": LAUNCHER, "dependsOn": [{"name": NODE, "status": "Ready"}], "template": {
                             "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                             "spec": {"backoffLimit": 0, "template": {"spec": {
                                 **placement, "containers": [launcher]}}}}}]}}},
    }


def trainer(name: str, *, provider: k8s.Provider, parent: pulumi.Resource,
            depends_on: list[pulumi.Resource], region: str,
            neuron_scheduler: Optional[str] = None, size: Optional[ClusterSize] = None) -> k8s.helm.v3.Release:
    """The controller on the system nodes, then trainstack's runtimes once their CRD is served;
    ``neuron_scheduler``: the stack has Neuron groups, whose pods that scheduler places; their
    runtime's image comes from ``region``'s registry; ``size``: the stack's, which sizes Trainer's and
    JobSet's controllers on a large stack (config/controller_resources.py)."""
    manager: dict[str, Any] = {"nodeSelector": dict(SYSTEM_LABELS)}
    jobset: dict[str, Any] = {"install": True}
    if (manager_resources := trainer_manager_resources(size)) is not None:
        manager["resources"] = manager_resources
    if (jobset_resources := jobset_controller_resources(size)) is not None:
        jobset["controller"] = {"resources": jobset_resources}
    release = helm_release(
        f"{name}-trainer", TRAINER, namespace=NAMESPACE, provider=provider, parent=parent, depends_on=depends_on,
        values={"manager": manager, "jobset": jobset, "runtimes": {"defaultEnabled": False}})
    runtimes = [torch_runtime(), torch_runtime(CHECK_RUNTIME, restarts=0)]
    if neuron_scheduler:
        runtimes.append(mpi_runtime(neuron_scheduler, region))
    for runtime in runtimes:
        k8s.apiextensions.CustomResource(
            f"{name}-runtime-{runtime['metadata']['name']}", api_version=runtime["apiVersion"], kind=runtime["kind"],
            metadata=runtime["metadata"], spec=runtime["spec"],
            opts=pulumi.ResourceOptions(provider=provider, parent=parent, depends_on=[release]))
    return release
