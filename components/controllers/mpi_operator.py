"""The Kubeflow MPI operator (v0.8.0, MPIJob v2beta1) starting a job's ranks.

What the operator does with an MPIJob (``pkg/controller/mpi_job_controller.go`` at v0.8.0):

* ``newWorker``: a worker pod per replica; with no command of its own the first container
  runs ``/usr/sbin/sshd -De``. The examples run sshd explicitly
  (``examples/v2beta1/pi/pi.yaml``: ``/usr/sbin/sshd -De -f /home/mpiuser/.sshd_config``).
* ``newLauncherJob``: the launcher, a batch Job, gets ``OMPI_MCA_orte_default_hostfile``
  (``/etc/mpi/hostfile``, the workers and their slots) and ``OMPI_MCA_plm_rsh_args``; its
  mpirun reaches every worker over ssh and starts the ranks there. Ranks inherit the
  environment sshd gives them and what mpirun forwards (``-x NAME``), never the worker
  pod's own environment.
* ``setupSSHOnPod``: the ssh key pair and ``authorized_keys`` from a Secret, mounted at
  ``sshAuthMountPath`` (default ``/root/.ssh``; mode 0600 only there), so at the default
  only root can use them.

The model checks, per MPIJob: the workers run sshd in the foreground; the launcher runs
mpirun; the pods run as a user the key mount serves; every variable the ranks need (the
fabric settings of the accelerator's documentation, ``catalog.fabric_env``, and whatever
the job sets for its ranks) is set on the launcher and forwarded by mpirun. It does not
check the image: that it has sshd, Open MPI, host keys, or that its ssh client accepts
the workers' host keys.
"""

from __future__ import annotations

import itertools
import shlex
from collections.abc import Iterator, Mapping
from typing import Any

from ..catalog import EFA_RESOURCE
from ..catalog.fabric_env import NEURON_EFA_ENV_SOURCE, efa_env
from . import jobs
from .model import Finding

CONTROLLER = "mpi-operator"
SOURCE = "kubeflow/mpi-operator v0.8.0 pkg/controller/mpi_job_controller.go"
OPERATOR_WORKER_COMMAND = ["/usr/sbin/sshd", "-De"]
ROOT_SSH_PATH = "/root/.ssh"
# Set by the operator itself for mpirun on the launcher (role, hostfile, rsh args, slots, no GPUs:
# pkg/controller/mpi_job_controller.go at v0.8.0, the launcher's and the MPI implementations' env
# vars, ``openMPISlotsEnv``), or by the launcher for mpirun alone: none is for the ranks. The rehearsal
# showed the list was short: run on the real operator's launcher pod, the model asked for the
# operator's own OMPI_MCA_* and NVIDIA_* variables to be forwarded to the ranks.
LAUNCHER_ONLY = ("K_MPI_JOB_ROLE", "OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM",
                 "OMPI_MCA_orte_keep_fqdn_hostnames", "OMPI_MCA_orte_default_hostfile", "OMPI_MCA_plm_rsh_args",
                 "OMPI_MCA_orte_set_default_slots", "I_MPI_HYDRA_HOST_FILE", "I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS",
                 "I_MPI_PERHOST", "HYDRA_HOST_FILE", "HYDRA_LAUNCH_EXTRA_ARGS", "NVIDIA_VISIBLE_DEVICES",
                 "NVIDIA_DRIVER_CAPABILITIES")


def check_mpijob(job: jobs.Job) -> list[Finding]:
    """What would keep the operator's mpirun from starting every rank as the job intends."""
    if job.get("kind") != "MPIJob":
        return []
    replicas = jobs.replica_specs(job)
    launcher, worker = replicas.get("Launcher"), replicas.get("Worker")
    if launcher is None or worker is None:
        return [_finding(job, "an MPIJob needs a Launcher and Workers (mpiReplicaSpecs); the operator starts no ranks "
                              "without both.")]
    return [*_workers_run_sshd(job, worker), *_launcher_runs_mpirun(job, launcher), *_ssh_user(job, launcher, worker),
            *_environment_reaches_ranks(job, launcher, worker)]


def forwarded(launcher_argv: list[str]) -> set[str]:
    """The variables mpirun exports to every rank: ``-x NAME`` (or ``-x NAME=value``), also
    inside a ``sh -c`` script."""
    names = set()
    words = [part for word in launcher_argv for part in (_script_words(word) if " " in word else [word])]
    for flag, value in itertools.pairwise(words):
        if flag == "-x":
            names.add(value.split("=", 1)[0])
    return names


def _workers_run_sshd(job: jobs.Job, worker: dict) -> Iterator[Finding]:
    container = jobs.main_container(worker)
    words = jobs.argv(container) or OPERATOR_WORKER_COMMAND
    if not jobs.runs({"command": words}, "sshd"):
        yield _finding(job, f"the workers run {' '.join(words)[:80]!r}, not sshd: the launcher's mpirun reaches "
                            "workers over ssh, so no rank starts. Run `/usr/sbin/sshd -De` on the workers (the "
                            "operator's examples) or leave their command unset.")
    elif not any(word.startswith("-D") or " -D" in word for word in words):
        yield _finding(job, "the workers start sshd without -D: it forks into the background, the container's "
                            "main process exits and the worker pod ends. Run `sshd -De`.")


def _launcher_runs_mpirun(job: jobs.Job, launcher: dict) -> Iterator[Finding]:
    container = jobs.main_container(launcher)
    if not (jobs.runs(container, "mpirun") or jobs.runs(container, "mpiexec")):
        command = " ".join(jobs.argv(container))[:80]
        yield _finding(job, f"the launcher runs {command!r} without mpirun: it runs alone on "
                            "the launcher pod and nothing starts ranks on the workers. Start it with mpirun.")


def _ssh_user(job: jobs.Job, launcher: dict, worker: dict) -> Iterator[Finding]:
    path = job.get("spec", {}).get("sshAuthMountPath", ROOT_SSH_PATH)
    for role, replica in (("launcher pod", launcher), ("worker pods", worker)):
        user = jobs.run_as_user(replica)
        if path == ROOT_SSH_PATH and user != 0:
            said = "no runAsUser, so the image's user" if user is None else f"runAsUser {user}"
            yield _finding(job, f"the {role} run as {said}, but the operator mounts the ssh keys at {ROOT_SSH_PATH} "
                                "(mode 0600, root's), which only root can use: set securityContext.runAsUser: 0, or "
                                "sshAuthMountPath to the user's ~/.ssh with a user-run sshd as in the operator's "
                                "examples.")
        elif path != ROOT_SSH_PATH and user in (None, 0):
            yield _finding(job, f"sshAuthMountPath is {path}, so the {role} must run as the user whose ~/.ssh that "
                                "is: set securityContext.runAsUser to it.")


def _script_words(script: str) -> list[str]:
    try:
        return shlex.split(script)
    except ValueError:  # not shell words (an unbalanced quote): no flags to read in it
        return [script]


def _environment_reaches_ranks(job: jobs.Job, launcher: dict, worker: dict) -> Iterator[Finding]:
    for problem in rank_env_problems(jobs.main_container(launcher), jobs.main_container(worker)):
        yield _finding(job, problem)


def rank_env_problems(launcher_container: Mapping[str, Any], worker_container: Mapping[str, Any]) -> Iterator[str]:
    """Each variable the ranks need (the fabric settings, whatever the job sets for its ranks)
    that the launcher's mpirun would not hand them, in words. Shared with Trainer's MPI runtime."""
    launcher_env, exported = jobs.env(launcher_container), forwarded(jobs.argv(launcher_container))
    kind = jobs.accelerator_kind(worker_container)
    fabric = dict(efa_env(kind, jobs.limit(worker_container, EFA_RESOURCE))) if kind else {}
    # The fabric settings with their documented values; whatever else the job sets for its ranks, as set.
    needed: dict[str, str | None] = {name: None for name in [*jobs.env(worker_container), *launcher_env]
                                     if name not in LAUNCHER_ONLY}
    needed.update(fabric)
    for name, value in sorted(needed.items()):
        source = NEURON_EFA_ENV_SOURCE if kind == "neuron" else "catalog.fabric_env"
        where = f" (the fabric setting of {source})" if name in fabric else ""
        if name not in launcher_env:
            place = ("is set only on the worker pods, whose sshd does not pass it on"
                     if name in jobs.env(worker_container) else "is set nowhere")
            yield (f"{name}{where} {place}: the ranks mpirun starts never see it. Set it on the launcher and "
                   f"forward it with `mpirun -x {name}`.")
        elif name not in exported:
            yield (f"{name}{where} is set on the launcher but mpirun does not forward it: add `-x {name}` so every "
                   "rank sees it.")
        elif value is not None and launcher_env[name] != value:
            yield f"{name}={launcher_env[name]!r} where the accelerator's documentation sets {value!r}{where}."


def _finding(job: jobs.Job, message: str) -> Finding:
    return Finding(controller=CONTROLLER, subject=jobs.job_name(job), message=message, source=SOURCE)

