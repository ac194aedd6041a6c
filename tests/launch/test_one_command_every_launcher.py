"""Every launcher takes the command its nodes run the same way (launch/torchrun.py;
docs/adr/0015-one-launch-command.md): a command given after `--` to every torch launcher (PyTorchJob, HyperPod's
PyTorchJob, a TrainJob on a GPU group, the HyperPod Slurm sbatch script) runs, on every one of them, the same program
with the same arguments and the same nodes and processes, or is refused by every one of them in the same words; the
MPI launchers (MPIJob, a TrainJob on Neuron) hand mpirun the same words. The sbatch tasks also start with the
checkpoint locations the Kubernetes jobs get.

Property-based (Hypothesis, the suite's profile) over generated command lines: torchrun or python or a script first,
torchrun options of every kind, scripts and `-m` modules, arguments with spaces, quotes, `$(...)`, `$$` and `--`.
What was rendered is read by independent means (tests/support/launched_programs.py): the kubelet's expansion and
torchrun's own argparse parser for Kubernetes, bash with srun and scontrol played by recorders for sbatch."""

import json
import os
import shlex
from pathlib import Path

import pytest
import yaml
from hypothesis import event, given
from hypothesis import strategies as st
from support import launched_programs, plan_records, rendered_jobs
from support.cli_run import run_cli
from support.launched_programs import Program, expand, pytorchjob_program, sbatch_program, trainjob_program
from trainstack.catalog.mpi_ssh import MPI_LAUNCHERS

RECORDED = rendered_jobs.plan_records.REPO / "tests" / "data" / "outputs"
P5_WORKERS = [{"name": "p5", "instanceType": "ml.p5.48xlarge", "count": 2, "partition": "p5"}]
NODES, GPUS = 2, 8
"""Every torch launcher's job here: 2 nodes of 8 GPUs (p5), each node's every GPU."""


@pytest.fixture(scope="module")
def outputs_files(tmp_path_factory) -> dict[str, str]:
    """Each launcher's stack outputs, as files `--outputs` reads: the recorded fsdp-p5 and hyperpod-eks, the shipped
    kueue-p5 (Trainer v2) and trn1 with Trainer v2 planned, the Slurm stack planned with a p5 worker group."""
    directory = tmp_path_factory.mktemp("outputs")

    def add_p5(config):
        config["trainstack:hyperpod"]["workers"] += P5_WORKERS

    planned = {"kueue-p5": rendered_jobs.planned_record("kueue-p5")["outputs"],
               "trn1-trainer": rendered_jobs.variant_record("trn1-trainer")["outputs"],
               "hyperpod-p5": plan_records.record(directory, "hyperpod", add_p5)["outputs"]}
    files = {}
    for stack in ("fsdp-p5", "hyperpod-eks", "trn1"):
        files[stack] = str(RECORDED / f"{stack}.json")
    for stack, outputs in planned.items():
        files[stack] = str(directory / f"{stack}.json")
        (directory / f"{stack}.json").write_text(json.dumps(outputs))
    return files


TORCH_LAUNCHERS = {
    "pytorchjob": ("fsdp-p5", ["pytorchjob", "--group", "p5", "--image", "img:1"]),
    "hyperpod-pytorchjob": ("hyperpod-eks", ["hyperpod-pytorchjob", "--group", "gpu", "--image", "img:1"]),
    "trainjob": ("kueue-p5", ["trainjob", "--group", "p5", "--image", "img:1", "--team", "llm"]),
    "sbatch": ("hyperpod-p5", ["sbatch", "--group", "p5"]),
}
MPI_LAUNCHERS_HERE = {
    "mpijob": ("trn1", ["mpijob", "--group", "trn1", "--image", "img:1"]),
    "trainjob (mpi)": ("trn1-trainer", ["trainjob", "--group", "trn1"]),
}


def launch(files, launcher, command) -> tuple[int, str, str]:
    stack, argv = launcher
    return run_cli(["launch", *argv, "--outputs", files[stack], "--nodes", str(NODES), "--name", "train", "--",
                    *command])


def ran(label: str, printed: str, directory) -> Program | None:
    """The program the job's nodes run, read from what the launcher printed."""
    if label == "sbatch":
        return sbatch_program(printed, directory)
    job = list(yaml.safe_load_all(printed))[-1]
    return trainjob_program(job) if job["kind"] == "TrainJob" else pytorchjob_program(job)


# Arguments a script may take: any text, and the words that trip a shell, the kubelet or a parser.
ARGUMENTS = st.lists(st.text(max_size=8) | st.sampled_from(
    ["--", "-m", "--lr=0.1", "--nnodes", "-r3", "a b", "it's", 'say "hi"', "$(TRAINSTACK_CHECKPOINT_DIR)", "$$",
     "$HOME", "$é", "`id`", "\\", "", "\n"]), max_size=4)
SCRIPTS = st.sampled_from(["train.py", "/workspace/train.py", "dir with space/train.py", "it's.py", "torchrun",
                           "python", "-"]) | st.from_regex(r"[a-z_/]{1,10}\.py", fullmatch=True)
MODULES = st.sampled_from(["torch.distributed.run", "nemo.train"]) | st.from_regex(r"[a-z_]{1,6}(\.[a-z_]{1,6})?",
                                                                                      fullmatch=True)
FIRST = st.sampled_from([[], ["torchrun"], ["/opt/conda/bin/torchrun"], ["python"], ["python3", "-u"],
                         ["python", "-m", "torch.distributed.run"], ["torchrun", "torchrun"], ["bash", "-c"],
                         ["./run.sh"]])
TORCHRUN_OPTIONS = st.lists(st.sampled_from([
    ["--nproc-per-node", "8"], ["--nproc-per-node=4"], ["--nproc_per_node", "gpu"], ["--nproc", "8"], ["--nnodes", "2"],
    ["--nnodes=1:2"], ["--nnodes", "2:2"], ["--max-restarts", "3"], ["--max_res=3"], ["--n", "8"], ["--standalone"],
    ["--rdzv-backend=c10d"], ["--master-port", "29400"], ["--bogus"], ["-r3"], ["-t", "3"], ["--no-python"],
    ["--log-dir", "/fsx/logs"], ["--rdzv-conf"], ["--"], ["-mt3"]]), max_size=3)
PROGRAMS = SCRIPTS.map(lambda script: [script]) | MODULES.map(lambda module: ["-m", module]) | st.just([])


def joined(first: list[str], options: list[list[str]], program: list[str], arguments: list[str]) -> list[str]:
    return [*first, *(word for option in options for word in option), *program, *arguments]


ANY_COMMAND = st.builds(joined, FIRST, TORCHRUN_OPTIONS, PROGRAMS, ARGUMENTS)
# torchrun commands every launcher should run: the options the job allows, a script or module, any arguments.
RUNNABLE = st.builds(
    joined, st.sampled_from([["torchrun"], ["/opt/conda/bin/torchrun"], ["python", "-m", "torch.distributed.run"]]),
    st.lists(st.sampled_from([["--nproc-per-node", "8"], ["--nproc_per_node=gpu"], ["--nnodes", "2"],
                              ["--max-restarts", "3"], ["--log-dir", "/fsx/logs"], ["-t3"]]),
             max_size=2, unique_by=lambda option: option[0]),
    st.sampled_from([["train.py"], ["dir with space/it's.py"], ["-m", "nemo.train"], ["--no-python", "python",
                                                                                     "train.py"]]),
    ARGUMENTS)
COMMANDS = RUNNABLE | ANY_COMMAND


@given(command=COMMANDS)
def test_every_torch_launcher_runs_the_same_program_with_the_same_arguments_or_every_one_refuses_it_alike(
        outputs_files, tmp_path_factory, command):
    outcomes = {label: launch(outputs_files, launcher, command) for label, launcher in TORCH_LAUNCHERS.items()}
    refused = {label for label, (code, _, _) in outcomes.items() if code != 0}
    event("refused" if refused else f"ran: {command[0]}")
    if refused:
        said = {label: err for label, (_, _, err) in outcomes.items()}
        assert refused == set(TORCH_LAUNCHERS), f"{shlex.join(command)!r} refused by {sorted(refused)} only: {said}"
        assert len(set(said.values())) == 1, said
        assert next(iter(said.values())).startswith("error: launch: command ") and "Fix: " in said["sbatch"]
        return
    given_program = launched_programs.program(command)
    # torchrun's own parser reads what every launcher accepted: nothing it would stop at got through.
    assert given_program is not None, f"{shlex.join(command)!r}: torchrun's parser refuses it, no launcher did"
    # Python runs only as torchrun, and torchrun runs neither itself nor a file named python.
    started, python = os.path.basename(given_program.script), launched_programs.PYTHON
    assert not (given_program.runner == "exec" and python.fullmatch(started)), command
    assert not (given_program.runner == "torchrun" and not given_program.module and (
        started == "torchrun" or (python.fullmatch(started) and not given_program.no_python))), command
    for label, (_, printed, _) in outcomes.items():
        program = ran(label, printed, tmp_path_factory.mktemp(label))
        assert program is not None, (label, printed[-400:])
        assert (program.runner, program.module, program.no_python, program.script, program.arguments) == (
            given_program.runner, given_program.module, given_program.no_python, given_program.script,
            given_program.arguments), label
        if program.runner == "torchrun":
            # torchrun's nodes and processes, from the command or the launcher's PET_* variables: the job's own.
            assert nodes_of(program.nnodes) == (NODES, NODES) and processes(program.nproc_per_node) == GPUS, (
                label, program)


def nodes_of(nnodes: str | None) -> tuple[int, int] | None:
    parts = (nnodes or "").split(":")
    return (int(parts[0]), int(parts[-1])) if all(part.isdigit() for part in parts) else None


def processes(nproc: str | None) -> int | None:
    """``--nproc-per-node`` as torchrun counts it on a node whose every GPU the job has."""
    return GPUS if nproc in ("gpu", "auto") else int(nproc) if nproc and nproc.isdigit() else None


MPI_COMMANDS = st.builds(lambda first, program, arguments: [*first, *program, *arguments],
                         st.sampled_from([[], ["mpirun"], ["mpirun", "-np", "64"]]),
                         st.sampled_from([["python", "train.py"], ["python3", "-m", "nemo.train"], ["./train"]]),
                         ARGUMENTS)


@given(command=MPI_COMMANDS)
def test_every_mpi_launcher_hands_mpirun_the_words_given(outputs_files, command):
    given_words = command[1:] if command[0] in MPI_LAUNCHERS else command
    for label, launcher in MPI_LAUNCHERS_HERE.items():
        code, printed, err = launch(outputs_files, launcher, command)
        assert code == 0, (label, err)
        job = list(yaml.safe_load_all(printed))[-1]
        if job["kind"] == "MPIJob":
            words = [expand(w) for w in job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]
                     ["command"]]
        else:  # the runtime's launcher: `sh -c "install ... && exec mpirun ..."`, as sh reads it after the kubelet
            words = shlex.split(expand(job["spec"]["trainer"]["command"][2]).split(" && exec ", 1)[1])
        assert words[0] == "mpirun" and after_trainstacks_flags(words[1:]) == given_words, (label, words)


def after_trainstacks_flags(words: list[str]) -> list[str]:
    """mpirun's words after the ssh options and ``-x NAME`` forwards the launchers put first (catalog.mpi_ssh)."""
    while words[:2] == ["--mca", "plm_rsh_args"] or words[:1] == ["-x"]:
        words = words[3:] if words[0] == "--mca" else words[2:]
    return words


SLURM_NAMES = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12) | st.sampled_from(
    [".", "..", "a/b", "it's", "$HOME", "llama-pretrain"])


@given(name=SLURM_NAMES)
def test_every_sbatch_task_starts_with_the_checkpoint_locations_a_kubernetes_job_of_that_name_gets(
        outputs_files, tmp_path_factory, name):
    stack, argv = TORCH_LAUNCHERS["sbatch"]
    code, out, err = run_cli(["launch", *argv, "--outputs", outputs_files[stack], "--nodes", "2", f"--name={name}",
                              "--", "torchrun", "train.py"])
    if code != 0:
        assert code == 2 and "Fix: pass --name" in err, err
        return
    # The name is the checkpoint directory's last part: never a path of its own.
    assert "/" not in name and name not in (".", ".."), name
    assert code == 0, err
    contract = json.loads(Path(outputs_files[stack]).read_text())["trainstack"]
    _, env = launched_programs.sbatch_step(out, tmp_path_factory.mktemp("sbatch"))
    # As docs/launchers.md writes a Kubernetes job's (its namespace's place is `slurm` here).
    assert {key: value for key, value in env.items() if key.startswith("TRAINSTACK_")} == {
        "TRAINSTACK_CHECKPOINT_DIR": f"{contract['storage']['mountPath']}/checkpoints/slurm/{name}",
        "TRAINSTACK_CHECKPOINT_URI": f"s3://{contract['checkpointBucket']}/{contract['stack']}/{name}/"}
