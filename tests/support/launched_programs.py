"""What a rendered job's nodes run, read by other means than the launchers use: the kubelet's expansion of a
container's command, torchrun's own parser (Python's argparse, declared as torchrun declares its options),
bash running the sbatch script with srun and scontrol played by scripts that record what they were given.

Sources: kubernetes/kubernetes third_party/forked/golang/expansion/expand.go (the kubelet's ``$(NAME)``);
pytorch/pytorch torch/distributed/run.py @010929fd ``get_args_parser`` and argparse_util.py @0734fe09 (options
default to ``PET_<NAME>``); kubeflow/training-operator v1.8.1 pkg/controller.v1/pytorch/envvar.go and kubeflow/trainer
v2.3.0 pkg/runtime/framework/plugins/torch/torch.go (the ``PET_*`` variables each operator sets)."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

# torchrun's options: (spellings, takes a value). Its positional script and the script's arguments follow.
TORCHRUN_OPTIONS = [
    (["--nnodes"], True), (["--nproc-per-node", "--nproc_per_node"], True),
    (["--rdzv-backend", "--rdzv_backend"], True), (["--rdzv-endpoint", "--rdzv_endpoint"], True),
    (["--rdzv-id", "--rdzv_id"], True), (["--rdzv-conf", "--rdzv_conf"], True), (["--standalone"], False),
    (["--max-restarts", "--max_restarts"], True), (["--monitor-interval", "--monitor_interval"], True),
    (["--start-method", "--start_method"], True), (["--event-log-handler", "--event_log_handler"], True),
    (["--role"], True), (["-m", "--module"], False), (["--no-python", "--no_python"], False),
    (["--run-path", "--run_path"], False), (["--log-dir", "--log_dir"], True), (["-r", "--redirects"], True),
    (["-t", "--tee"], True), (["--local-ranks-filter", "--local_ranks_filter"], True),
    (["--node-rank", "--node_rank"], True), (["--master-addr", "--master_addr"], True),
    (["--master-port", "--master_port"], True), (["--local-addr", "--local_addr"], True),
    (["--logs-specs", "--logs_specs"], True), (["--numa-binding", "--numa_binding"], True),
    (["--signals-to-handle", "--signals_to_handle"], True),
]
PYTHON = re.compile(r"python(\d+(\.\d+)*)?")


def torchrun_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="torchrun", add_help=False, exit_on_error=False)
    for spellings, takes_value in TORCHRUN_OPTIONS:
        parser.add_argument(*spellings, **({"default": None} if takes_value else {"action": "store_true"}))
    parser.add_argument("training_script")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return parser


def expand(word: str) -> str:
    """The kubelet's expansion of one command word, byte by byte as expand.go reads it: ``$$`` is ``$``; ``$(NAME)`` is
    NAME's value (any name may be set: the operators add their own), marked here; a ``$`` before any other byte is
    copied with that byte read as a character of its own (Go's ``string(byte)``). Bytes that are no longer UTF-8 come
    back as surrogates, so they compare unequal to any word given."""
    data, out, at = word.encode(), bytearray(), 0
    while at < len(data):
        if data[at:at + 1] != b"$" or at + 1 == len(data):
            out += data[at:at + 1]
            at += 1
        elif data[at + 1:at + 2] == b"$":
            out += b"$"
            at += 2
        elif data[at + 1:at + 2] == b"(" and b")" in data[at + 2:]:
            close = data.index(b")", at + 2)
            out += b"<value of " + data[at + 2:close] + b">"
            at = close + 1
        else:
            out += b"$" + chr(data[at + 1]).encode()
            at += 2
    return out.decode(errors="surrogateescape")


@dataclass(frozen=True)
class Program:
    """What a node runs: torchrun's script (or module) and its arguments with the nodes and processes torchrun
    resolves, or a command torchrun is no part of, as given."""
    runner: str
    """``torchrun`` or ``exec``."""
    module: bool
    no_python: bool
    script: str
    arguments: tuple[str, ...]
    nnodes: Optional[str] = None
    nproc_per_node: Optional[str] = None


def torchrun_words(words: list[str]) -> Optional[list[str]]:
    """What torchrun parses where ``words`` start it (``torchrun``, ``python -m torch.distributed.run``)."""
    if not words:
        return None
    if os.path.basename(words[0]) == "torchrun":
        return words[1:]
    if PYTHON.fullmatch(os.path.basename(words[0])):
        rest = words[1:]
        while rest and re.fullmatch(r"-[bBdEhiIOPqsSuvVxR]+", rest[0]):
            rest = rest[1:]
        if rest[:2] == ["-m", "torch.distributed.run"]:
            return rest[2:]
    return None


def program(words: list[str], env: Optional[dict[str, str]] = None) -> Optional[Program]:
    """The program ``words`` run with ``env`` (torchrun's PET_* variables), or None where torchrun's parser stops."""
    parsed_words = torchrun_words(words)
    if parsed_words is None:
        return Program("exec", False, False, words[0] if words else "", tuple(words[1:]))
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            parsed = torchrun_parser().parse_args(parsed_words)
    except (argparse.ArgumentError, SystemExit):
        return None
    env = env or {}
    return Program("torchrun", parsed.module, parsed.no_python, parsed.training_script,
                   tuple(parsed.training_script_args), parsed.nnodes or env.get("PET_NNODES"),
                   parsed.nproc_per_node or env.get("PET_NPROC_PER_NODE"))


def pytorchjob_program(job: dict[str, Any]) -> Program | None:
    """A PyTorchJob's Master (else first Worker) container command after expansion, with the PET_* variables the
    training operator sets: the replicas, or the elastic range, and ``nprocPerNode``."""
    replicas = job["spec"]["pytorchReplicaSpecs"]
    container = next(iter(replicas.values()))["template"]["spec"]["containers"][0]
    elastic = job["spec"].get("elasticPolicy")
    nodes = (f"{elastic['minReplicas']}:{elastic['maxReplicas']}" if elastic else
             str(sum(replica["replicas"] for replica in replicas.values())))
    env = {"PET_NNODES": nodes, "PET_NPROC_PER_NODE": job["spec"]["nprocPerNode"]}
    return program([expand(word) for word in container["command"]], env)


def trainjob_program(job: dict[str, Any]) -> Program | None:
    """A TrainJob's trainer command after expansion, with the PET_* variables Trainer's torch plugin sets."""
    trainer = job["spec"]["trainer"]
    env = {"PET_NNODES": str(trainer["numNodes"]), "PET_NPROC_PER_NODE": str(trainer["numProcPerNode"])}
    return program([expand(word) for word in trainer["command"]], env)


def _stand_in(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text(f"#!/usr/bin/env bash\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def sbatch_step(script: str, directory: Path) -> tuple[list[str], dict[str, str]]:
    """The words srun is given and the environment it hands its tasks when bash runs ``script`` as the batch step."""
    bin_dir = directory / "bin"
    bin_dir.mkdir(exist_ok=True)
    argv, env_file = directory / "srun.argv", directory / "srun.env"
    _stand_in(bin_dir, "scontrol", "echo node-1; echo node-2")
    _stand_in(bin_dir, "srun", f"printf '%s\\0' \"$@\" > {argv}; env -0 > {env_file}")
    path = directory / "job.sbatch"
    path.write_text(script)
    clean = {key: value for key, value in os.environ.items()
             if not key.startswith(("FI_", "NCCL_", "CCOM_", "PET_", "TRAINSTACK_"))}
    subprocess.run(["bash", str(path)], env={**clean, "PATH": f"{bin_dir}:{clean['PATH']}",
                                             "SLURM_JOB_NODELIST": "n", "SLURM_JOB_ID": "7"},
                   check=True, capture_output=True, timeout=30)
    words = argv.read_bytes().decode().split("\0")[:-1]
    env = dict(entry.split("=", 1) for entry in env_file.read_bytes().decode().split("\0") if entry)
    return words, env


def sbatch_program(script: str, directory: Path) -> Program | None:
    """The program srun starts on every node: its words after srun's own options, with the task's environment."""
    words, env = sbatch_step(script, directory)
    while words[:1] in (["--auto-resume=1"], ["--export=ALL"]):
        words = words[1:]
    return program(words, env)
