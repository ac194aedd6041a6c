"""`trainstack upgrade` writes a stack's upgrade two minors ahead as eight stack files, one pull request each, and the
gate passes every one: the autoscaler held one minor behind is a warning until the charts step moves it. Each file is
the one before it with the step's lines alone changed, its comments and `$schema` line kept."""

import difflib
import itertools
import json
from pathlib import Path

import pytest
import yaml
from support.cli_run import run_cli
from support.plan_records import stack_config, write_project
from trainstack.config import validate_stack_config

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def dev_on_1_33(tmp_path_factory):
    """The shipped dev stack as its author wrote it (comments, `$schema` line), with its cluster on 1.33."""
    directory = write_project(tmp_path_factory.mktemp("project"), "dev", stack_config("dev"))
    shipped = (REPO / "stacks" / "Pulumi.dev.yaml").read_text()
    (directory / "Pulumi.dev.yaml").write_text(shipped.replace("  trainstack:eks:\n",
                                                                '  trainstack:eks:\n    version: "1.33"\n'))
    return directory


@pytest.fixture(scope="module")
def upgraded(dev_on_1_33):
    code, out, err = run_cli(["upgrade", "--stack", "dev", "--to", "1.35", "--cwd", str(dev_on_1_33), "--json",
                              "--write", str(dev_on_1_33 / "steps")])
    return code, json.loads(out), err


def test_every_step_passes_the_gate_in_order(upgraded):
    code, document, err = upgraded
    assert code == 0, err
    assert [(step["part"], step["minor"]) for step in document["steps"]] == [
        (part, minor) for minor in ("1.34", "1.35") for part in ("control plane", "add-ons", "charts", "node groups")]
    assert all(step["gate"]["passed"] for step in document["steps"])


def test_the_node_groups_step_says_which_nodes_roll_and_for_how_long(upgraded):
    _, document, _ = upgraded
    node_groups = document["steps"][3]
    assert any("nodes rolled, jobs on them are killed" in warning and "Estimated" in warning
               for warning in node_groups["gate"]["warnings"])


def test_each_written_stack_file_is_a_valid_stack_and_the_last_is_on_the_target(upgraded):
    _, document, _ = upgraded
    configs = [yaml.safe_load(open(path))["config"] for path in document["written"]]
    assert len(configs) == 8
    for config in configs:
        validate_stack_config({key.split(":", 1)[1]: value for key, value in config.items()})
    assert configs[-1]["trainstack:eks"]["version"] == "1.35" and "upgrade" not in configs[-1]["trainstack:eks"]


def test_each_written_stack_file_is_the_one_before_it_with_only_the_steps_lines_changed(upgraded, dev_on_1_33):
    """The version (2 lines) and the upgrade block (3) of a control plane step, the add-on versions block (3) then
    one version (2), the held list (2), the upgrade block's removal (3); comments and the `$schema` line kept."""
    _, document, _ = upgraded
    texts = [path.read_text() for path in (dev_on_1_33 / "Pulumi.dev.yaml", *map(Path, document["written"]))]
    changed = [sum(line[:1] in "+-" and not line.startswith(("+++", "---"))
                   for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0))
               for before, after in itertools.pairwise(texts)]
    assert changed == [5, 3, 2, 3, 5, 2, 2, 3]
    comments = [[line for line in text.splitlines() if line.lstrip().startswith("#")] for text in texts]
    assert comments[0][0].startswith("# yaml-language-server: $schema=") and all(each == comments[0]
                                                                                 for each in comments)


def test_an_upgrade_to_a_minor_without_pins_is_refused_with_what_is_missing(dev_on_1_33, monkeypatch):
    from trainstack.catalog import addons

    monkeypatch.delitem(addons.CLUSTER_AUTOSCALER, "1.36")  # every minor of the window has its pins today
    code, _, err = run_cli(["upgrade", "--stack", "dev", "--to", "1.36", "--cwd", str(dev_on_1_33)])
    assert code == 2
    assert "no Cluster Autoscaler chart runs the autoscaler of Kubernetes 1.36" in err
