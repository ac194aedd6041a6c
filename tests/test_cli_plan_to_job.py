"""The offline path from a plan to a job: `trainstack plan --json > plan.json`, then
`trainstack launch KIND --outputs plan.json`, for every launch kind on every shipped stack.

A plan record holds the outputs the deployed stack would export, so it renders the same job
as `pulumi stack output --json` of that stack; a kind that does not apply to a stack is
refused in one line that names the stack or the group."""

import json
import re
import shlex
from pathlib import Path

import pytest
from support.cli_run import run_cli as run
from trainstack.cli.launch import KINDS

REPO = Path(__file__).resolve().parent.parent
SHIPPED = sorted(path.name[len("Pulumi."):-len(".yaml")] for path in (REPO / "stacks").glob("Pulumi.*.yaml"))

APPLIES = {
    "dev": {"pytorchjob", "device-check", "all-reduce"},
    "fsdp-p5": {"pytorchjob", "device-check", "all-reduce"},
    "nemo-p4de": {"pytorchjob", "device-check", "all-reduce"},
    # Kubeflow Trainer v2 instead of the training operator: TrainJobs, not PyTorchJobs.
    "kueue-p5": {"device-check", "all-reduce", "trainjob"},
    # The same at 2,048 nodes, the pool of eight managed node groups seen as one group.
    "frontier-p5": {"device-check", "all-reduce", "trainjob"},
    "trn1": {"mpijob", "device-check"},
    "hyperpod": {"sbatch"},
    "hyperpod-eks": {"hyperpod-pytorchjob"},
    # DRA with Kubeflow Trainer v2: the device check claims devices through a ResourceClaimTemplate (printed first);
    # a TrainJob, the all-reduce among them, brings a runtime whose pods claim them. No PyTorchJob: the training
    # operator v1.8.1's CRD refuses a pod's claims (config/checks/job_operators.py).
    "b200-dra": {"device-check", "all-reduce", "trainjob"},
    # An existing cluster's p5 group: the training operator, as on a stack that makes its own.
    "byo-p5": {"pytorchjob", "device-check", "all-reduce"},
}
"""The launch kinds that render a job on each shipped stack; every other kind is refused there."""


@pytest.fixture(scope="module")
def plans(tmp_path_factory) -> dict[str, Path]:
    """Each shipped stack's plan record, as `trainstack plan --stack S --json > S.plan.json` writes it."""
    directory = tmp_path_factory.mktemp("plans")
    saved = {}
    for stack in SHIPPED:
        code, out, err = run(["plan", "--stack", stack, "--cwd", str(REPO), "--json"])
        assert code == 0, err
        saved[stack] = directory / f"{stack}.plan.json"
        saved[stack].write_text(out)
    return saved


def test_the_table_names_every_shipped_stack_and_every_kind_runs_somewhere():
    assert sorted(APPLIES) == SHIPPED
    assert set().union(*APPLIES.values()) == {kind.name for kind in KINDS}


def groups(contract: dict) -> list[str]:
    """The stack's accelerated groups, EKS node groups and HyperPod instance groups alike."""
    hyperpod = contract.get("hyperpod") or {}
    return [*contract.get("acceleratedGroups", {}),
            *(g["name"] for g in hyperpod.get("instanceGroups", []) if g.get("acceleratorResource"))]


def launch_argv(kind, outputs: Path, group: str, contract: dict) -> list[str]:
    argv = ["launch", kind.name, "--outputs", str(outputs), "--group", group, "--nodes", "2"]
    if kind.image != "none":
        argv += ["--image", "img:1"]
    if kind.name == "all-reduce":
        argv += ["--floor-gbps", "100"]  # groups without EFA have no default floor
    queues = (contract.get("scheduling") or {}).get("queues") or {}
    if kind.queued and len(queues) > 1:
        argv += ["--team", sorted(queues)[0]]
    # The command each node runs: torchrun's, or on the MPI launchers mpirun's (launch/torchrun.py); a TrainJob on a
    # Neuron group runs the MPI runtime.
    neuron = group in contract.get("acceleratedGroups", {}) and \
        contract["acceleratedGroups"][group]["acceleratorKind"] == "neuron"
    starter = ["mpirun", "python"] if kind.name == "mpijob" or neuron else ["torchrun"]
    return argv + (["--", *starter, "train.py"] if kind.command else [])


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
@pytest.mark.parametrize("stack", SHIPPED)
def test_a_plan_record_renders_the_job_the_stacks_outputs_render_or_the_kind_is_refused_clearly(plans, tmp_path,
                                                                                               stack, kind):
    record = json.loads(plans[stack].read_text())
    pulumi_outputs = tmp_path / "outputs.json"  # what `pulumi stack output --json` prints for the deployed stack
    pulumi_outputs.write_text(json.dumps(record["outputs"]))
    contract = record["outputs"]["trainstack"]
    assert groups(contract), stack
    for group in groups(contract):
        code, job, err = run(launch_argv(kind, plans[stack], group, contract))
        if kind.name in APPLIES[stack]:
            assert (code, err) == (0, ""), (stack, kind.name, group, err)
            # Written out whole: no YAML anchor or alias for a tool downstream to resolve (tests/test_written_yaml.py).
            assert not re.search(r"[&*]id\d+", job), (stack, kind.name, group, re.findall(r"[&*]id\d+", job))
            assert run(launch_argv(kind, pulumi_outputs, group, contract)) == (0, job, "")
        else:
            assert code == 2 and job == "", (stack, kind.name, group, job[:200])
            assert err.startswith("error: launch: ") and err.count("\n") == 1, err
            assert f"stack {stack}" in err or f"'{group}'" in err, err


def docs_plan_to_job() -> list[str]:
    text = (REPO / "docs" / "launchers.md").read_text()
    block = re.search(r"With no deployed stack.*?```bash\n(.*?)```", text, re.S)
    assert block is not None, "the plan-to-job block of docs/launchers.md is gone"
    return [line for line in block.group(1).splitlines() if line and not line.startswith("#")]


def test_the_launcher_pages_plan_to_job_commands_run_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    commands = docs_plan_to_job()
    assert commands[0].startswith("trainstack plan ") and commands[0].endswith(" --json > plan.json")
    assert len(commands) > 1 and all("--outputs plan.json" in line for line in commands[1:])
    for line in commands:
        words = shlex.split(line.replace("<repo>:<tag>", "img:1"))
        target = words[words.index(">") + 1] if ">" in words else None
        argv = words[1:words.index(">")] if target else words[1:]
        code, out, err = run([*argv, "--cwd", str(REPO)] if argv[0] == "plan" else argv)
        assert (code, err) == (0, ""), (line, err)
        if target:
            (tmp_path / target).write_text(out)
        else:
            assert out.startswith("apiVersion: "), line
