"""An sbatch script for HyperPod Slurm: the job's command on every node through srun, one task per node.

The command is the one every torch launcher takes (launch/torchrun.py): it starts torchrun, which reads
its node count, processes per node and rendezvous from the ``PET_*`` variables exported here, as the
Kubernetes operators set them in pods; the nodes meet on a c10d store at the first node of the allocation.
The tasks get the EFA environment the EKS launchers give their pods, from the same list
(``catalog.fabric_env``), and the same checkpoint locations (``restarts.checkpoint_locations``: FSx, which
HyperPod mounts on every node, under ``slurm``), as exports before srun. They run on the host's network,
so what names a pod's interface is left out (``fabric_env.POD_NETWORK_ENV``). srun passes the script's
environment to every task with ``--export=ALL``, its default, named here because a script submitted with
``sbatch --export=NONE`` would otherwise hand NONE on to its steps (SchedMD/slurm
doc/man/man1/srun.1@slurm-25-11-7-1, ``--export``).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Optional

from ..catalog.fabric_env import efa_env
from ..names import GPU_RESOURCE, NEURON_RESOURCE
from ..outputs import HyperPodGroup, StackOutputs
from .arguments import check_slurm_job_name
from .placement import LaunchError, check_device_count, check_node_count
from .restarts import checkpoint_locations
from .torchrun import TorchJob, check_torch_command

ACCELERATOR_KINDS = {GPU_RESOURCE: "nvidia-gpu", NEURON_RESOURCE: "neuron"}
"""``catalog.fabric_env``'s accelerator kind of a HyperPod group's device resource."""
CHECKPOINT_SCOPE = "slurm"
"""The FSx directory under ``checkpoints/`` a Slurm job's name is unique within (a Kubernetes job's is its
namespace)."""
RENDEZVOUS_PORT = 29500
"""torchrun's default port (run.py ``--master-port``), on the allocation's first node."""


def render_sbatch(outputs: StackOutputs, *, name: str, group_name: str, nodes: int, command: Sequence[str],
                  gpus_per_node: Optional[int] = None) -> str:
    """``command``: what every node runs, ``torchrun train.py ...`` (launch/torchrun.py)."""
    check_slurm_job_name(name)
    hyperpod = outputs.hyperpod
    if hyperpod is None or hyperpod.orchestrator != "slurm":
        raise LaunchError(f"stack {outputs.stack} has no Slurm HyperPod cluster.")
    if group_name not in hyperpod.partitions:
        known = ", ".join(hyperpod.partitions) or "none"
        raise LaunchError(f"HyperPod cluster {hyperpod.cluster_name} has no worker group '{group_name}' "
                          f"(worker groups: {known}).")
    target = next(g for g in hyperpod.instance_groups if g.name == group_name)
    check_node_count(nodes, target.count, f"worker group '{group_name}' has {target.count} instances")
    gpus = target.accelerators_per_node if gpus_per_node is None else gpus_per_node
    check_device_count(gpus, max(target.accelerators_per_node, 1),
                       f"{target.instance_type} has {target.accelerators_per_node} accelerators per node")
    on_gpus = target.accelerator_resource == GPU_RESOURCE
    check_torch_command(command, TorchJob(nodes, nodes, gpus if on_gpus else None,
                                          counted=gpus == target.accelerators_per_node))
    lines = [
        "#!/bin/bash",
        f"#SBATCH --job-name={name}",
        f"#SBATCH --partition={hyperpod.partitions[group_name]}",
        f"#SBATCH --nodes={nodes}",
        "#SBATCH --ntasks-per-node=1",
        "#SBATCH --exclusive",
        "set -euo pipefail",
        "",
        *fabric_exports(target),
        *checkpoint_exports(outputs, name),
        # sed reads every host: `head -n 1` would close the pipe while scontrol still writes, and under pipefail
        # its SIGPIPE (141) would end the job before srun.
        "head_node=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | sed -n 1p)",
        *torchrun_exports(nodes, gpus),
        "# --auto-resume: HyperPod replaces a faulty node and restarts the step.",
        f"srun --auto-resume=1 --export=ALL {shlex.join(command)}",
        "",
    ]
    return "\n".join(lines)


def torchrun_exports(nodes: int, gpus: int) -> list[str]:
    """torchrun's options as the ``PET_*`` variables it reads them from when the command does not give them
    (pytorch/pytorch torch/distributed/argparse_util.py @0734fe09, ``env``), as the operators set them in pods."""
    return ["# torchrun: its nodes, processes per node and rendezvous (launch/torchrun.py).",
            f"export PET_NNODES={nodes}",
            f"export PET_NPROC_PER_NODE={gpus}",
            "export PET_RDZV_ID=\"$SLURM_JOB_ID\"",
            "export PET_RDZV_BACKEND=c10d",
            f"export PET_RDZV_ENDPOINT=\"$head_node:{RENDEZVOUS_PORT}\""]


def checkpoint_exports(outputs: StackOutputs, name: str) -> list[str]:
    """``export NAME=value`` lines of the job's checkpoint locations, the Kubernetes launchers' (restarts.py), then a
    blank line; none on a stack with neither FSx nor a checkpoint bucket."""
    env = checkpoint_locations(outputs, name, CHECKPOINT_SCOPE if outputs.storage is not None else None)
    if not env:
        return []
    return ["# Checkpoints: where the script saves and resumes (trainstack launch.restarts).",
            *(f"export {key}={shlex.quote(value)}" for key, value in env.items()), ""]


def fabric_exports(target: HyperPodGroup) -> list[str]:
    """``export NAME=value`` lines of the group's EFA environment (``catalog.fabric_env``), then a blank
    line; none on a group without EFA or accelerators."""
    kind = ACCELERATOR_KINDS.get(target.accelerator_resource or "")
    env = efa_env(kind, target.efa_interfaces_per_node, target.instance_type, host_network=True) if kind else {}
    if not env:
        return []
    return ["# EFA: the fabric settings of the accelerator's documentation (trainstack catalog.fabric_env).",
            *(f"export {name}={shlex.quote(value)}" for name, value in env.items()), ""]
