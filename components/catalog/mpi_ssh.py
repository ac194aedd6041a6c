"""How Open MPI's ranks reach the nodes of a Kubernetes job: mpirun on one pod starts every
other rank over ssh, into an sshd each node pod runs. One list for the MPIJob launcher
(launch/mpijob.py), the Trainer v2 MPI runtime (addons/trainer.py) and its TrainJobs.

* Each node runs sshd in the foreground (-D) logging to stderr (-e), as the MPI operator's
  examples (kubeflow/mpi-operator ``examples/v2beta1/pi/pi.yaml`` at v0.8.0) and Trainer's
  MPI runtimes (kubeflow/trainer ``manifests/base/runtimes/deepspeed_distributed.yaml`` at
  v2.3.0) do; the command also creates what a stock image lacks (host keys, ``/run/sshd``).
* The pods run as root, the user whose ``/root/.ssh`` the operators mount the job's key at.
* Ranks inherit sshd's environment, not the pod's: what they need is set on the launching
  pod and forwarded by mpirun (``-x NAME``).
* The launching ssh must not stop at unknown host keys; the operators' own ssh argument
  is ``-o ConnectionAttempts=10`` (mpi-operator ``pkg/controller/mpi_job_controller.go``
  v0.8.0; trainer ``pkg/constants/constants.go`` v2.3.0 ``OpenMPIEnvDefaultValueRSHArgs``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

SSH_AUTH_MOUNT_PATH = "/root/.ssh"
SSH_PORT = 22
ROOT: dict[str, Any] = {"runAsUser": 0}
NODE_SSHD = ("mkdir -p /run/sshd && { ls /etc/ssh/ssh_host_*_key >/dev/null 2>&1 || ssh-keygen -A; } "
             "&& exec /usr/sbin/sshd -De")
NODE_SSHD_COMMAND = ["/bin/sh", "-c", NODE_SSHD]
RSH_ARGS = "-o ConnectionAttempts=10 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
# Open MPI's mpirun refuses to run as root unless both are set (its documented equivalent of
# --allow-run-as-root, which mpirun releases spell differently).
OPEN_MPI_AS_ROOT = [{"name": "OMPI_ALLOW_RUN_AS_ROOT", "value": "1"},
                    {"name": "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "value": "1"}]
MPI_LAUNCHERS = ("mpirun", "mpiexec")


class MissingCommand(ValueError):
    """A launcher without a command: mpirun would have nothing to start."""


def mpirun_command(command: Sequence[str], forwarded: Sequence[str], rsh_args: str = RSH_ARGS) -> list[str]:
    """mpirun with the ssh options and ``-x NAME`` for every variable the ranks need, then the
    rest of ``command``; a command that does not start with mpirun is run by it on every slot."""
    if not command:
        raise MissingCommand("the job needs a command for its launcher, e.g. `mpirun python train.py`.")
    first, rest = command[0], list(command[1:])
    if os.path.basename(first) not in MPI_LAUNCHERS:
        first, rest = "mpirun", list(command)
    flags = ["--mca", "plm_rsh_args", rsh_args]
    for name in forwarded:
        flags += ["-x", name]
    return [first, *flags, *rest]
