"""TrainJob (Kubeflow Trainer v2, trainer.kubeflow.org/v1alpha1): the same placement, devices,
fabric environment, FSx mount, checkpoint location and queue as the v1 launchers, against
the stack's torch ClusterTrainingRuntime (GPU groups, as the PyTorchJob) or its Open MPI one
(Neuron groups, as the MPIJob).

The runtime (addons/trainer.py) holds what is the same for every job; what depends on the
stack travels in the TrainJob: ``trainer`` (image, command, nodes, processes and devices
per node, environment) and one ``runtimePatches`` entry that places the pods on the group
(node selector, tolerations, volumes and mounts, topology request). Field names:
kubeflow/trainer ``pkg/apis/trainer/v1alpha1/trainjob_types.go`` at v2.3.0; where each
setting lands: ``pkg/runtime/framework/plugins/jobset/builder.go`` ``Trainer`` and
``pkg/runtime/core/trainingruntime.go`` at v2.3.0. The trainer's image and command go to the
container named ``node`` of the job labelled as the trainer step; its environment and devices
to that container and, with the MPI policy's ``runLauncherAsNode``, to the ``node`` job's too.

On Neuron the launcher pod is rank 0's node and runs mpirun, which starts the other ranks over
ssh in the ``node`` pods (catalog.mpi_ssh): the ranks inherit sshd's environment, so what they
need (Neuron's fabric settings, the checkpoint location, a team's Pod Identity variables) is
forwarded with ``mpirun -x`` as the MPIJob's launcher does. Trainer v2.3.0 mounts the job's
private key with mode 0640, which ssh ignores for its owner (root); the launcher uses a 0600 copy.

A team's job runs as the team's ServiceAccount (team_identity.py) through the runtime patch: ``PodSpecPatch``
has ``serviceAccountName``, which the runtime merges into the patched job's pod template (strategic merge,
``mergeRuntimePatches`` in ``pkg/runtime/core/trainingruntime.go`` at v2.3.0). The patch names every replicated
job of trainstack's runtimes (the torch runtime's node job; the MPI runtime's node and launcher jobs), so every
pod runs as the team, and the runtimes stay the same for every team.
"""

from __future__ import annotations

import copy
import shlex
from collections.abc import Sequence
from typing import Any, Optional

from ..catalog.mpi_ssh import OPEN_MPI_AS_ROOT, RSH_ARGS, SSH_AUTH_MOUNT_PATH, MissingCommand, mpirun_command
from ..names import LAUNCH_FIELD_MANAGER
from ..outputs import AcceleratedGroup, StackOutputs
from . import placement
from .arguments import check_image, check_namespace, check_replica_job_name
from .claims import RUNTIME_COPIED_FROM, is_dra, refuse_dra
from .expansion import as_written
from .limits import check_job
from .placement import LaunchError
from .queueing import QueueRequest, admission, annotate_pods, label_job
from .rendezvous import run_id_env
from .restarts import checkpoint_env
from .team_identity import forwarded_identity, run_as_team
from .torchrun import TorchJob, check_torch_command
from .ultraserver import keep_in_unit

API_VERSION = "trainer.kubeflow.org/v1alpha1"
API_GROUP = API_VERSION.split("/")[0]
NODE = "node"
LAUNCHER = "launcher"
# Kueue's pod set group: the launcher and the nodes ask for one topology domain together.
TRAINER_PODS = "trainer"
# Where the launcher copies the job's ssh key with the mode ssh accepts (see above).
SSH_KEY_COPY = "/tmp/trainstack-mpi-ssh-key"
KINDS = ("nvidia-gpu", "neuron")


def render_trainjob(outputs: StackOutputs, *, name: str, group_name: str, nodes: int, image: Optional[str],
                    command: Sequence[str], gpus_per_node: Optional[int] = None, namespace: Optional[str] = None,
                    queue: Optional[QueueRequest] = None, runtime: Optional[str] = None) -> dict[str, Any]:
    """``runtime``: the ClusterTrainingRuntime to name; the stack's torch (GPU) or MPI (Neuron)
    runtime by default. ``gpus_per_node``: the accelerators each node claims (all by default).
    ``image``: on Neuron, the MPI runtime's image or None (the nodes run that image)."""
    target = placement.group(outputs, group_name)
    neuron = target.accelerator_kind == "neuron"
    runtime = _runtime_for(outputs, target, group_name, runtime)
    if image is not None:
        check_image(image)
    check_namespace(namespace)
    placement.check_nodes(target, group_name, nodes)
    check_replica_job_name(name, derived_names(name, nodes, neuron), "TrainJob")
    devices = placement.devices_per_node(target, group_name, gpus_per_node)
    granted = admission(outputs, group_name, nodes, queue, namespace)
    job_metadata = placement.metadata(outputs, name, granted.namespace or namespace)
    rank_env = (placement.fabric_env(target.accelerator_kind, target.efa_interfaces_per_node, target.instance_type)
                + checkpoint_env(outputs, job_metadata, granted.checkpoint_prefix))
    if neuron:
        trainer, patched = _mpi_trainer(outputs, target, group_name, nodes, devices, image, command, rank_env,
                                        forwarded_identity(granted))
    else:
        # torchrun's rendezvous id (rendezvous.py): Trainer's torch plugin sets none and does not reserve it.
        trainer, patched = _torch_trainer(target, nodes, devices, image, command,
                                          rank_env + run_id_env(name, job_metadata.get("namespace"))), [NODE]
    runtime_ref = _runtime_ref(target, name, runtime, trainer, job_metadata)
    # On an UltraServer type, every node pod in one unit (launch/ultraserver.py); a runtime patch may set both the pods'
    # labels and their affinity (PodTemplatePatch, trainjob_types.go at v2.3.0).
    pod = keep_in_unit(_placement(outputs, target, job_metadata.get("namespace"), keep_shm=neuron),
                       target.instance_type, nodes, name)
    run_as_team(pod, granted)  # every replicated job is patched: each pod runs as the team (see above)
    grouped = TRAINER_PODS if len(patched) > 1 else None
    job = {
        "apiVersion": API_VERSION, "kind": "TrainJob", "metadata": job_metadata,
        "spec": {
            "runtimeRef": runtime_ref,
            "trainer": trainer,
            "runtimePatches": [{"manager": LAUNCH_FIELD_MANAGER, "trainingRuntimeSpec": {"template": {"spec": {
                "replicatedJobs": [{"name": job_name, "template": {"spec": {
                    "template": annotate_pods(copy.deepcopy(pod), granted, grouped)}}}
                                   for job_name in patched]}}}}],
        },
    }
    return check_job(label_job(job, granted))


def _runtime_for(outputs: StackOutputs, target: AcceleratedGroup, group_name: str, runtime: Optional[str]) -> str:
    """The ClusterTrainingRuntime a TrainJob on the group names, or LaunchError where none can run it."""
    if target.accelerator_kind == "neuron":
        # The MPI runtime names the Neuron scheduler extension, which a DRA Neuron group does not run.
        refuse_dra(target, group_name, "Open MPI TrainJob", "an MPIJob (`trainstack launch mpijob`)")
    if outputs.operators.trainer_runtime is None:
        # A TrainJob is the one training job a DRA GPU group can run (launch/claims.py): no other kind to offer.
        other = "" if is_dra(target) else ", or launch a PyTorchJob or MPIJob"
        raise LaunchError(f"stack {outputs.stack} does not run Kubeflow Trainer v2; set operators.trainer: true and "
                          f"operators.trainingOperator: false{other}.")
    if target.accelerator_kind not in KINDS:
        raise LaunchError(f"group '{group_name}' runs {target.accelerator_kind}; trainstack's TrainJob runtimes are "
                          "torch for GPU groups and Open MPI for Neuron groups.")
    neuron = target.accelerator_kind == "neuron"
    runtime = runtime or (outputs.operators.trainer_mpi_runtime if neuron else outputs.operators.trainer_runtime)
    if runtime is None:
        raise LaunchError(f"stack {outputs.stack} has no MPI TrainJob runtime for Neuron group '{group_name}'.")
    if target.scheduler_name and not neuron:
        raise LaunchError(f"group '{group_name}' needs scheduler {target.scheduler_name}, which a TrainJob's "
                          "runtime patch cannot set.")
    return runtime


def _runtime_ref(target: AcceleratedGroup, name: str, runtime: str, trainer: dict[str, Any],
                 job_metadata: dict[str, Any]) -> dict[str, str]:
    """The runtime the job names: the cluster's, or on a DRA group the job's own TrainingRuntime, which claims the
    devices (launch/claims.py says why). That one is named as the job and copies the cluster runtime the job would
    have named (the all-reduce's never restarts); the trainer then sets no resourcesPerNode."""
    if not is_dra(target):
        return {"name": runtime}
    job_metadata.setdefault("annotations", {})[RUNTIME_COPIED_FROM] = runtime
    del trainer["resourcesPerNode"]
    return {"name": name, "kind": "TrainingRuntime", "apiGroup": API_GROUP}


def derived_names(name: str, nodes: int, neuron: bool) -> list[str]:
    """The longest names JobSet derives from the TrainJob's (its JobSet's) name, which its webhook
    refuses unless each is a DNS-1035 label: the Job ``<set>-<replicated job>-<index>`` and the pod
    ``<set>-<replicated job>-<job index>-<pod index>-<5 random>`` (kubernetes-sigs/jobset
    pkg/webhooks/jobset_webhook.go, ValidateCreate, "longestPodName"). trainstack's runtimes have
    one Job per replicated job; the node job's pods are the nodes (one fewer beside the MPI launcher)."""
    node_pods = nodes - 1 if neuron else nodes
    names = [f"{name}-{NODE}-0-{max(node_pods - 1, 0)}-xxxxx"]
    return [*names, f"{name}-{LAUNCHER}-0-0-xxxxx"] if neuron else names


def _torch_trainer(target: AcceleratedGroup, nodes: int, gpus: int, image: Optional[str],
                   command: Sequence[str], rank_env: list[dict[str, Any]]) -> dict[str, Any]:
    """torchrun on every node: one process per GPU, the environment on every node's container."""
    if not image:
        raise LaunchError("a TrainJob on a GPU group needs an image (--image).")
    check_torch_command(command, TorchJob(nodes, nodes, gpus, counted=gpus == target.accelerators_per_node))
    return {"image": image, "command": as_written(command), "numNodes": nodes, "numProcPerNode": gpus,
            "resourcesPerNode": placement.resources(target, gpus), "env": rank_env}


def _mpi_trainer(outputs: StackOutputs, target: AcceleratedGroup, group_name: str, nodes: int, devices: int,
                 image: Optional[str], command: Sequence[str], rank_env: list[dict[str, Any]],
                 identity: list[str]) -> tuple[dict[str, Any], list[str]]:
    """mpirun on the launcher (rank 0's node), one rank per NeuronCore of the claimed devices; ``identity``: the
    Pod Identity variables it forwards besides the ranks' environment (team_identity.py)."""
    runtime_image = outputs.operators.trainer_mpi_image
    if image and image != runtime_image:
        raise LaunchError(f"image '{image}': the MPI runtime's node pods run {runtime_image}, and a TrainJob sets "
                          "the image of the launcher only (Trainer v2.3.0), so ranks would run different software. "
                          "Leave the image unset, or launch an MPIJob with your image.")
    if nodes < 2:
        raise LaunchError(f"{nodes} node on group '{group_name}': the MPI runtime's launcher is a node and its node "
                          "job keeps at least one pod (Trainer v2.3.0 mpi.go), so a TrainJob takes 2 nodes at least; "
                          "ask for 2 or more, or launch an MPIJob.")
    try:
        mpirun = mpirun_command(command, [e["name"] for e in rank_env] + identity,
                                rsh_args=f"{RSH_ARGS} -o IdentityFile={SSH_KEY_COPY}")
    except MissingCommand as error:
        raise LaunchError(str(error)) from None
    key = f"{SSH_AUTH_MOUNT_PATH}/id_rsa"
    launch = f"install -m 0600 {key} {SSH_KEY_COPY} && exec {shlex.join(mpirun)}"
    return ({"image": runtime_image, "command": as_written(["/bin/sh", "-c", launch]), "numNodes": nodes,
             "numProcPerNode": placement.ranks_per_node(target, devices),
             "resourcesPerNode": placement.resources(target, devices),
             "env": OPEN_MPI_AS_ROOT + rank_env},
            [NODE, LAUNCHER])


def _placement(outputs: StackOutputs, target: AcceleratedGroup, namespace: str | None, keep_shm: bool
               ) -> dict[str, Any]:
    """The pod patch: the group's nodes, and the stack's volumes in the job's ``namespace`` (the torch runtime
    brings /dev/shm)."""
    vols, mounts = placement.volumes(outputs, namespace)
    if not keep_shm:
        vols, mounts = [v for v in vols if v["name"] != "shm"], [m for m in mounts if m["name"] != "shm"]
    pod_spec: dict[str, Any] = {
        "nodeSelector": dict(target.node_selector),
        "tolerations": [t.model_dump(exclude_none=True) for t in target.tolerations]}
    if vols:
        pod_spec["volumes"] = vols
        pod_spec["containers"] = [{"name": NODE, "volumeMounts": mounts}]
    return {"spec": pod_spec}
