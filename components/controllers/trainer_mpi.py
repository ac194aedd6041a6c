"""Kubeflow Trainer v2 (v2.3.0) running a TrainJob against an MPI ClusterTrainingRuntime: what
the MPI plugin refuses or sets, and whether mpirun on the launcher reaches every rank.

What the plugin does (kubeflow/trainer ``pkg/runtime/framework/plugins/mpi/mpi.go`` at v2.3.0):

* ``Validate`` refuses a TrainJob whose ``trainer.env`` sets the Open MPI variables it sets
  itself (``pkg/constants/constants.go`` ``MPIReservedEnvNames``), and, with
  ``runLauncherAsNode``, one of 2+ nodes on a runtime without both a ``launcher`` and a
  ``node`` replicated job.
* ``EnforceMLPolicy`` supports OpenMPI only (any other implementation fails the job); gives
  the ``node`` job numNodes - 1 pods with ``runLauncherAsNode`` (the launcher is a node); mounts
  the job's ssh key at ``sshAuthMountPath`` on every ``node`` container, the private key with
  mode 0640 (``MPISSHPrivateKeyFileMode``), which ssh ignores for its owner: run as root, the
  launcher must hand ssh a 0600 copy.
* The trainer's image and command reach the launcher only; its environment and devices reach
  the launcher and the nodes (``pkg/runtime/framework/plugins/jobset/builder.go`` ``Trainer``).
  The ranks mpirun starts over ssh inherit sshd's environment, not the pod's: the fabric
  settings and the job's variables must be forwarded (controllers/mpi_operator.py says how).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .jobs import argv, runs
from .mpi_operator import ROOT_SSH_PATH, rank_env_problems

SOURCE = "kubeflow/trainer v2.3.0 pkg/runtime/framework/plugins/mpi/mpi.go, pkg/constants/constants.go"
RESERVED_ENV = ("OMPI_MCA_orte_default_hostfile", "OMPI_MCA_plm_rsh_args", "OMPI_MCA_orte_keep_fqdn_hostnames",
                "OMPI_MCA_orte_set_default_slots")
NODE, LAUNCHER = "node", "launcher"


def mpi_problems(trainer: Mapping[str, Any], policy: Mapping[str, Any],
                 jobs: Mapping[str, Mapping[str, Any]]) -> Iterator[str]:
    """In words, what keeps the MPI plugin from running ``trainer`` (a TrainJob's) as intended."""
    reserved = sorted({e.get("name") for e in trainer.get("env", [])} & set(RESERVED_ENV))
    if reserved:
        yield (f"trainer.env sets {', '.join(reserved)}, which the MPI plugin sets: the TrainJob is refused at "
               "admission. Remove them.")
    if policy.get("mpiImplementation", "OpenMPI") != "OpenMPI":
        yield f"mpiImplementation {policy.get('mpiImplementation')}: the v2.3.0 MPI plugin runs OpenMPI only."
    if policy.get("runLauncherAsNode") and trainer.get("numNodes", 1) >= 2 and not (NODE in jobs and LAUNCHER in jobs):
        yield (f"numNodes {trainer.get('numNodes')} on a runtime with runLauncherAsNode but replicated jobs "
               f"{sorted(jobs)}: the MPI plugin refuses it (it needs both {LAUNCHER} and {NODE}).")
    node, launcher = _container(jobs.get(NODE, {})), _container(jobs.get(LAUNCHER, {}))
    if not runs(node, "sshd"):
        yield (f"the node pods run {' '.join(argv(node))[:80]!r}, not sshd: the launcher's mpirun reaches them over "
               "ssh, so no rank starts there. Run `sshd -De` in the runtime's node container.")
    elif not any(word.startswith("-D") or " -D" in word for word in argv(node)):
        yield "the node pods start sshd without -D: it forks away, the container ends and the pod with it."
    command = trainer.get("command") or launcher.get("command") or []
    if not (runs({"command": command}, "mpirun") or runs({"command": command}, "mpiexec")):
        yield (f"the launcher runs {' '.join(command)[:80]!r} without mpirun: nothing starts ranks on the node "
               "pods. Start it with mpirun.")
    path = policy.get("sshAuthMountPath", ROOT_SSH_PATH)
    for role, container in (("launcher", launcher), ("node", node)):
        user = (container.get("securityContext") or {}).get("runAsUser")
        if path == ROOT_SSH_PATH and user != 0:
            yield (f"the {role} container runs as {user if user is not None else 'the image user'}, but the plugin "
                   f"mounts the ssh key at {ROOT_SSH_PATH}, root's: set securityContext.runAsUser: 0.")
    if path == ROOT_SSH_PATH and not any("IdentityFile" in word for word in command):
        yield (f"the plugin mounts the private key at {path} with mode 0640, which ssh ignores for root, its "
               "owner: copy it with mode 0600 and pass `-o IdentityFile=` in plm_rsh_args (launch/trainjob.py).")
    # The trainer's environment and devices reach both; only the launcher runs the trainer's command.
    resources = trainer.get("resourcesPerNode", {})
    yield from rank_env_problems({"command": command, "env": trainer.get("env", [])},
                                 {**node, "env": trainer.get("env", []), "resources": resources})


def _container(replicated: Mapping[str, Any]) -> Mapping[str, Any]:
    pod = replicated.get("template", {}).get("spec", {}).get("template", {}).get("spec", {})
    found: Mapping[str, Any] = next((c for c in pod.get("containers", []) if c.get("name") == NODE), {})
    return found
