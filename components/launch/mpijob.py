"""MPIJob (Kubeflow MPI operator v0.8.0, MPIJob v2beta1) for Neuron: a launcher that runs
mpirun and one worker per node that mpirun reaches over ssh.

How the operator runs it (``pkg/controller/mpi_job_controller.go`` at v0.8.0): it writes
a hostfile (``/etc/mpi/hostfile``, one line per worker with ``slotsPerWorker`` slots) and
an ssh key pair (a Secret mounted at ``sshAuthMountPath``, default ``/root/.ssh``, mode
0600 only there) into the pods, and sets ``OMPI_MCA_orte_default_hostfile`` and
``OMPI_MCA_plm_rsh_args`` on the launcher. mpirun then starts every rank with ssh on the
workers, so:

* each worker runs sshd in the foreground, as the operator's examples do
  (``examples/v2beta1/pi/pi.yaml``); trainstack's worker command also creates what a
  stock image lacks (host keys, ``/run/sshd``), which the examples' base image makes at
  build time (``build/base/Dockerfile``);
* the pods run as root, the user the key mount at ``/root/.ssh`` serves;
* the ranks inherit sshd's environment, not the worker pod's: what they need is set on
  the launcher and forwarded by mpirun (``-x NAME``), the Neuron fabric settings
  (``catalog.fabric_env``) and the checkpoint location among it;
* the launcher's ssh must not stop at an unknown host key: the operator's examples turn
  host-key checking off in the image's ``ssh_config``; trainstack passes the same options
  in ``plm_rsh_args`` on mpirun's command line, which overrides the operator's variable.

Restarts: the launcher is a batch Job whose ``backoffLimit`` is the MPIJob's; a lost worker
fails mpirun, the launcher is restarted within that limit, and the script resumes from
the checkpoint location in its environment. MPIJob v2beta1 has no elastic mode. The
operator maps ``ExitCode`` to the pod policy ``Never`` and leaves the Job to retry every
failure (``setRestartPolicy``), so ``ExitCode`` would not mean here what it means for a
PyTorchJob, and ``Always`` is no policy a Job's pods may have: both are refused.

A team's job (a stack with teams) runs as the team's ServiceAccount, launcher and workers alike
(team_identity.py). The operator copies each replica's template as it is and makes no account or Role for
the launcher: v2beta1 starts the ranks over ssh, not ``kubectl exec``
(kubeflow/mpi-operator v0.8.0 ``pkg/controller/mpi_job_controller.go`` ``newLauncherPodTemplate`` and ``newWorker``;
``proposals/scalable-robust-operator.md`` drops the launcher's ServiceAccount, Role and RoleBinding). So the
launcher needs nothing of Kubernetes' API, and the team's account serves it: its Pod Identity variables are
what the launcher forwards to the ranks with ``-x``.

DRA (``deviceAllocation: dra``): the workers claim their Neuron devices and EFA interfaces (claims.py); the
launcher claims none. The MPI operator v0.8.0's CRD keeps the pod's ``resourceClaims[].resourceClaimTemplateName``
(``manifests/base/kubeflow.org_mpijobs.yaml``), unlike the training operator's PyTorchJob.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from ..catalog.mpi_ssh import (
    NODE_SSHD_COMMAND,
    OPEN_MPI_AS_ROOT,
    ROOT,
    SSH_AUTH_MOUNT_PATH,
    MissingCommand,
    mpirun_command,
)
from ..outputs import StackOutputs
from . import placement
from .arguments import check_image, check_namespace, check_replica_job_name
from .claims import pod_claims
from .expansion import as_written
from .limits import check_job
from .placement import LaunchError
from .queueing import Admission, QueueRequest, admission, annotate_pods, label_job
from .restarts import backoff_limit_for, checkpoint_env
from .team_identity import forwarded_identity, run_as_team
from .ultraserver import keep_in_unit

LAUNCHER_RESTART_POLICIES = ("OnFailure", "Never")


def render_mpijob(outputs: StackOutputs, *, name: str, group_name: str, nodes: int, image: str,
                  command: Sequence[str], devices_per_worker: Optional[int] = None,
                  namespace: Optional[str] = None, restart_policy: str = "OnFailure",
                  backoff_limit: Optional[int] = None, min_nodes: Optional[int] = None,
                  queue: Optional[QueueRequest] = None) -> dict[str, Any]:
    """``command``: what the launcher runs, ``mpirun ...`` or the program mpirun starts on every slot.
    ``queue``: the team, topology and priority on a stack with Kueue queues (queueing.py); the
    topology request is on the workers, the launcher needs no accelerator node."""
    check_image(image)
    check_namespace(namespace)
    target = placement.group(outputs, group_name)
    if target.accelerator_kind != "neuron":
        raise LaunchError(f"group '{group_name}' runs {target.accelerator_kind}; MPIJobs here are for Neuron groups.")
    if not outputs.operators.mpi_operator:
        raise LaunchError(f"stack {outputs.stack} does not run the MPI operator; turn on operators.mpiOperator.")
    placement.check_nodes(target, group_name, nodes)
    check_replica_job_name(name, [f"{name}-launcher", f"{name}-worker-{nodes - 1}"], "MPIJob")
    if min_nodes is not None and min_nodes != nodes:
        raise LaunchError(f"MPIJob v2beta1 has no elastic mode: mpirun needs all {nodes} workers, so a minimum of "
                          f"{min_nodes} cannot apply; leave the minimum unset (the launcher restarts instead).")
    if restart_policy not in LAUNCHER_RESTART_POLICIES:
        raise LaunchError(f"restart policy '{restart_policy}': the MPI operator runs the launcher as a batch Job, "
                          "whose pods restart OnFailure or Never (ExitCode becomes Never and the Job retries every "
                          "failure); use OnFailure (restarts within the backoff limit) or Never (fails at once).")
    devices = placement.devices_per_node(target, group_name, devices_per_worker)
    # A batch Job without a backoff limit retries six times (Kubernetes' default): Never sets none, so 0.
    limit = backoff_limit_for(restart_policy, backoff_limit)
    limit = 0 if limit is None else limit
    granted = admission(outputs, group_name, nodes, queue, namespace)
    job_metadata = placement.metadata(outputs, name, granted.namespace or namespace)
    vols, mounts = placement.volumes(outputs, job_metadata.get("namespace"))
    rank_env = (placement.fabric_env(target.accelerator_kind, target.efa_interfaces_per_node,
                                      target.instance_type)
                + checkpoint_env(outputs, job_metadata, granted.checkpoint_prefix))
    worker: dict[str, Any] = {"spec": {**placement.pod_placement(target),
                                       **pod_claims(target, group_name, devices), "volumes": vols, "containers": [{
        "name": "worker", "image": image, "command": list(NODE_SSHD_COMMAND), "securityContext": dict(ROOT),
        "resources": placement.resources(target, devices), "volumeMounts": mounts}]}}
    # On a Trn2 UltraServer the workers stay inside one unit (NeuronLink-v3), as the Neuron docs' MPIJobs do.
    worker = keep_in_unit(worker, target.instance_type, nodes, name)
    annotate_pods(worker, granted)
    run_as_team(worker, granted)
    launcher = _launcher(image, command, rank_env, granted)
    return check_job(label_job({
        "apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": job_metadata,
        "spec": {
            "slotsPerWorker": placement.ranks_per_node(target, devices),
            "sshAuthMountPath": SSH_AUTH_MOUNT_PATH,
            "runPolicy": {"cleanPodPolicy": "Running", "backoffLimit": limit},
            "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "restartPolicy": restart_policy, "template": launcher},
                "Worker": {"replicas": nodes, "restartPolicy": restart_policy, "template": worker},
            },
        },
    }, granted))


def _launcher(image: str, command: Sequence[str], rank_env: list[dict[str, Any]],
              granted: Admission) -> dict[str, Any]:
    """The launcher's pod template: it only starts mpirun, so it needs no devices and stays off accelerator nodes.
    It runs as the team as the workers do, and forwards the team's Pod Identity variables to the ranks."""
    forwarded = [e["name"] for e in rank_env] + forwarded_identity(granted)
    return run_as_team({"spec": {"containers": [{
        "name": "launcher", "image": image, "command": launcher_command(command, forwarded),
        "securityContext": dict(ROOT), "resources": {"requests": {"cpu": "1", "memory": "2Gi"}},
        "env": OPEN_MPI_AS_ROOT + rank_env}]}}, granted)


def launcher_command(command: Sequence[str], forwarded: Sequence[str]) -> list[str]:
    """mpirun with the ssh options and ``-x NAME`` for every variable the ranks need (catalog.mpi_ssh)."""
    try:
        return as_written(mpirun_command(command, forwarded))
    except MissingCommand as error:
        raise LaunchError(str(error)) from None
