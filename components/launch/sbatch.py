"""An sbatch script for HyperPod Slurm: one torchrun per node through srun.

The ranks get the EFA environment the EKS launchers give their pods, from the same list
(``catalog.fabric_env``), as exports before srun. They run on the host's network, so what names a
pod's interface is left out (``fabric_env.POD_NETWORK_ENV``). srun passes the script's environment
to every task with ``--export=ALL``, its default, named here because a script submitted with
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

ACCELERATOR_KINDS = {GPU_RESOURCE: "nvidia-gpu", NEURON_RESOURCE: "neuron"}
"""``catalog.fabric_env``'s accelerator kind of a HyperPod group's device resource."""


def render_sbatch(outputs: StackOutputs, *, name: str, group_name: str, nodes: int, script: Sequence[str],
                  gpus_per_node: Optional[int] = None) -> str:
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
        # sed reads every host: `head -n 1` would close the pipe while scontrol still writes, and under pipefail
        # its SIGPIPE (141) would end the job before srun.
        "head_node=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | sed -n 1p)",
        "# --auto-resume: HyperPod replaces a faulty node and restarts the step.",
        "srun --auto-resume=1 --export=ALL torchrun \\",
        f"  --nnodes={nodes} --nproc-per-node={gpus} \\",
        "  --rdzv-id=\"$SLURM_JOB_ID\" --rdzv-backend=c10d --rdzv-endpoint=\"$head_node:29500\" \\",
        "  " + " ".join(shlex.quote(part) for part in script),
        "",
    ]
    return "\n".join(lines)


def fabric_exports(target: HyperPodGroup) -> list[str]:
    """``export NAME=value`` lines of the group's EFA environment (``catalog.fabric_env``), then a blank
    line; none on a group without EFA or accelerators."""
    kind = ACCELERATOR_KINDS.get(target.accelerator_resource or "")
    env = efa_env(kind, target.efa_interfaces_per_node, target.instance_type, host_network=True) if kind else {}
    if not env:
        return []
    return ["# EFA: the fabric settings of the accelerator's documentation (trainstack catalog.fabric_env).",
            *(f"export {name}={shlex.quote(value)}" for name, value in env.items()), ""]
