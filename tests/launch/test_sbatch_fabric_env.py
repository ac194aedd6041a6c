"""The HyperPod Slurm sbatch script gives its ranks the EFA environment the EKS launchers give their
pods, from the same list (catalog.fabric_env): FI_PROVIDER=efa and NCCL's bootstrap interfaces on every
EFA GPU, FI_EFA_USE_DEVICE_RDMA=1 where the type has GPUDirect RDMA, AWS Neuron's settings on Trainium
less the pod's interface name (the ranks run on the host's network). Run here with bash: scontrol and
srun are stand-ins, and srun records the environment a task would start with."""

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from support import plan_records
from trainstack.launch import render_sbatch
from trainstack.launch.placement import fabric_env
from trainstack.names import NEURON_RESOURCE
from trainstack.outputs import StackOutputs, parse_outputs

GPU_BOOTSTRAP = {"FI_PROVIDER": "efa", "NCCL_SOCKET_IFNAME": "^lo,docker,pod-id-link", "NCCL_DEBUG": "INFO"}
EXTRA_WORKERS = [{"name": "p5", "instanceType": "ml.p5.48xlarge", "count": 2, "partition": "p5"},
                 {"name": "trn1", "instanceType": "ml.trn1.32xlarge", "count": 2, "partition": "trn1"}]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> StackOutputs:
    """The shipped Slurm HyperPod stack's outputs (its g5 workers), with p5 and trn1 worker groups beside them."""
    def add_workers(config):
        config["trainstack:hyperpod"]["workers"] += EXTRA_WORKERS
    record = plan_records.record(tmp_path_factory.mktemp("hyperpod"), "hyperpod", add_workers)
    return parse_outputs(record["outputs"])


def _stand_in(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text(f"#!/usr/bin/env bash\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def task_environment(tmp_path: Path, script: str) -> dict[str, str]:
    """The environment srun hands a task when ``script`` runs as the batch step."""
    bin_dir, seen = tmp_path / "bin", tmp_path / "task.env"
    bin_dir.mkdir()
    # Hosts written one at a time, as scontrol prints a long node list: a reader that stops after the first would
    # leave the second write a SIGPIPE, and the script's pipefail would end the job (141).
    _stand_in(bin_dir, "scontrol", "echo node-1; sleep 0.2; echo node-2")
    _stand_in(bin_dir, "srun", f"env -0 > {seen}")
    path = tmp_path / "job.sbatch"
    path.write_text(script)
    # The submitting shell's own fabric settings must not leak in: the script sets its own.
    env = {key: value for key, value in os.environ.items() if not key.startswith(("FI_", "NCCL_", "CCOM_"))}
    subprocess.run(["bash", str(path)], env={**env, "PATH": f"{bin_dir}:{env['PATH']}", "SLURM_JOB_NODELIST": "n",
                                             "SLURM_JOB_ID": "7"}, check=True, capture_output=True, timeout=30)
    return dict(entry.split("=", 1) for entry in seen.read_text().split("\0") if entry)


def fabric_of(environment: dict[str, str]) -> dict[str, str]:
    return {key: value for key, value in environment.items() if key.startswith(("FI_", "NCCL_", "CCOM_"))}


def render(outputs: StackOutputs, group: str) -> str:
    return render_sbatch(outputs, name="train", group_name=group, nodes=2, command=["torchrun", "train.py"])


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("group, expected", [
    # g5: EFA without GPUDirect RDMA, where FI_EFA_USE_DEVICE_RDMA=1 would keep the EFA provider from opening.
    ("worker-group-1", GPU_BOOTSTRAP),
    ("p5", {**GPU_BOOTSTRAP, "FI_EFA_USE_DEVICE_RDMA": "1"}),
    # Trainium: the Neuron sample's settings; CCOM_SOCKET_IFNAME=eth0 names a pod's interface, not the host's.
    ("trn1", {"FI_PROVIDER": "efa", "FI_EFA_USE_DEVICE_RDMA": "1", "FI_EFA_FORK_SAFE": "1"}),
])
def test_every_task_starts_with_the_fabric_environment_of_its_instance_type(outputs, tmp_path, group, expected):
    assert fabric_of(task_environment(tmp_path, render(outputs, group))) == expected


@pytest.mark.parametrize("group", ["worker-group-1", "p5", "trn1"])
def test_the_script_exports_what_the_eks_launchers_put_in_a_pod_of_the_same_type(outputs, group):
    target = next(g for g in outputs.hyperpod.instance_groups if g.name == group)
    kind = "neuron" if target.accelerator_resource == NEURON_RESOURCE else "nvidia-gpu"
    pod = {entry["name"]: entry["value"] for entry in fabric_env(kind, target.efa_interfaces_per_node,
                                                                 target.instance_type)}
    exported = dict(line.removeprefix("export ").replace("'", "").split("=", 1)
                    for line in render(outputs, group).splitlines()
                    if line.startswith(("export FI_", "export NCCL_", "export CCOM_")))
    assert exported == {name: value for name, value in pod.items() if name != "CCOM_SOCKET_IFNAME"}
    assert exported  # every one of these groups has EFA


def test_srun_passes_the_scripts_environment_even_when_sbatch_was_told_to_export_none(outputs):
    # sbatch --export=NONE hands NONE on to srun unless srun names its own (srun(1), --export).
    assert "srun --auto-resume=1 --export=ALL torchrun" in render(outputs, "p5")
