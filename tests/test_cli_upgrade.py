"""`trainstack upgrade` writes a stack's upgrade two minors ahead as eight stack files, one pull request each, and the
gate passes every one: the autoscaler held one minor behind is a warning until the charts step moves it."""

import json

import pytest
import yaml
from support.cli_run import run_cli
from support.plan_records import stack_config, write_project
from trainstack.config import validate_stack_config


@pytest.fixture(scope="module")
def dev_on_1_33(tmp_path_factory):
    config = stack_config("dev")
    config["trainstack:eks"]["version"] = "1.33"
    return write_project(tmp_path_factory.mktemp("project"), "dev", config)


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


def test_an_upgrade_to_a_minor_without_pins_is_refused_with_what_is_missing(dev_on_1_33):
    code, _, err = run_cli(["upgrade", "--stack", "dev", "--to", "1.36", "--cwd", str(dev_on_1_33)])
    assert code == 2
    assert "no Cluster Autoscaler chart runs the autoscaler of Kubernetes 1.36" in err
