"""A job runs on at least one node and uses at least one device of each: every launcher refuses a
count below one for what it is (nodes must be >= 1), not as "more than the group has"."""

import json
from pathlib import Path

import pytest
from trainstack import cli
from trainstack.cli.launch import KINDS
from trainstack.launch import LaunchError, render_pytorchjob
from trainstack.outputs import parse_outputs

RECORDED = Path(__file__).resolve().parents[1] / "data" / "outputs"
WHERE = {"pytorchjob": ("fsdp-p5", "p5"), "mpijob": ("trn1", "trn1"), "hyperpod-pytorchjob": ("hyperpod-eks", "gpu"),
         "sbatch": ("hyperpod", "worker-group-1"), "device-check": ("fsdp-p5", "p5"), "all-reduce": ("fsdp-p5", "p5"),
         "trainjob": ("fsdp-p5 with Kubeflow Trainer", "p5")}
"""A recorded stack and group each kind applies to."""


@pytest.fixture
def outputs_of(tmp_path):
    def path(stack: str) -> Path:
        if stack != "fsdp-p5 with Kubeflow Trainer":
            return RECORDED / f"{stack}.json"
        document = json.loads((RECORDED / "fsdp-p5.json").read_text())
        document["trainstack"]["operators"] = {"trainerRuntime": "trainstack-torch"}
        (tmp_path / "trainer.json").write_text(json.dumps(document))
        return tmp_path / "trainer.json"
    return path


def argv(outputs_of, kind, *counts: str) -> list[str]:
    stack, group = WHERE[kind.name]
    image = ["--image", "img:1"] if kind.image != "none" else []
    # The command each node runs: torchrun's, or on the MPI launcher mpirun's (launch/torchrun.py).
    starter = ["mpirun", "python"] if kind.name == "mpijob" else ["torchrun"]
    command = ["--", *starter, "train.py"] if kind.command else []
    return ["launch", kind.name, "--outputs", str(outputs_of(stack)), "--group", group, *counts, *image, *command]


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_each_kind_renders_on_its_stack_with_one_node_or_more(capsys, outputs_of, kind):
    assert cli.main(argv(outputs_of, kind, "--nodes", "2")) == 0, capsys.readouterr().err


@pytest.mark.parametrize("nodes", ["0", "-3"])
@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_no_nodes_or_fewer_is_refused_because_a_job_needs_a_node(capsys, outputs_of, kind, nodes):
    assert cli.main(argv(outputs_of, kind, "--nodes", nodes)) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"error: launch: nodes is {nodes}; it must be >= 1 (a job runs on at least one node).\n"


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_no_devices_per_node_is_refused_because_a_job_needs_a_device(capsys, outputs_of, kind):
    assert cli.main(argv(outputs_of, kind, "--nodes", "2", "--per-node", "0")) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: launch: devices per node is 0; it must be >= 1 (leave it unset for all "), err


def test_more_nodes_than_the_group_has_is_still_refused_with_the_numbers():
    outputs = parse_outputs(json.loads((RECORDED / "fsdp-p5.json").read_text()))
    with pytest.raises(LaunchError, match=r"^group 'p5' scales to 16 nodes; 17 were asked for\.$"):
        render_pytorchjob(outputs, name="x", group_name="p5", nodes=17, image="i", command=["t"])
