"""`trainstack init --workload W` writes the shipped stack W into a project of one's own, each key commented with
its description from the config models, beside the JSON Schema; the file plans without edits."""

import itertools
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from support.cli_run import run_cli as run
from trainstack.cli.init import workloads
from trainstack.config.schema import render

REPO = Path(__file__).resolve().parent.parent
WORKLOADS = sorted(workloads())


@pytest.fixture
def project(tmp_path):
    """The consumer example (Pulumi.yaml and its program) without its own stack file."""
    shutil.copytree(REPO / "examples" / "consumer", tmp_path / "cluster")
    (tmp_path / "cluster" / "Pulumi.dev.yaml").unlink()
    return tmp_path / "cluster"


def test_every_shipped_stack_is_a_workload():
    assert WORKLOADS == sorted(p.name[len("Pulumi."):-len(".yaml")] for p in (REPO / "stacks").glob("Pulumi.*.yaml"))
    assert {"nemo-p4de", "trn1", "fsdp-p5", "hyperpod", "hyperpod-eks", "dev"} <= set(WORKLOADS)


@pytest.mark.parametrize("workload", WORKLOADS)
def test_the_written_stack_file_holds_the_shipped_stacks_values_and_plans_without_edits(workload, project):
    code, _, err = run(["init", "--workload", workload, "--stack", "mine", "--cwd", str(project)])
    assert code == 0 and err.startswith("wrote ") and "Pulumi.mine.yaml (workload " in err, err
    written = yaml.safe_load((project / "Pulumi.mine.yaml").read_text())
    assert written == yaml.safe_load((REPO / "stacks" / f"Pulumi.{workload}.yaml").read_text())
    code, out, err = run(["plan", "--stack", "mine", "--cwd", str(project), "--json"])
    assert code == 0, err
    assert json.loads(out)["stack"] == "mine"


def test_each_key_has_its_description_above_it_and_only_free_form_keys_go_without(project):
    run(["init", "--workload", "nemo-p4de", "--cwd", str(project)])
    lines = (project / "Pulumi.nemo-p4de.yaml").read_text().splitlines()
    assert lines[lines.index("      efa: true") - 1] == "      # Attach EFA interfaces."
    assert lines[lines.index("  trainstack:region: us-east-1") - 1].startswith("  # AWS region of every resource")
    uncommented = [line.split(":")[0].strip(" -") for above, line in itertools.pairwise(lines)
                   if re.match(r"^\s*(- )?[\w:]+:", line) and not above.lstrip().startswith("#")]
    assert uncommented == ["team", "workload"], uncommented  # tags' keys are the user's own


def test_the_file_opens_with_the_schema_line_and_the_shipped_stacks_own_words(project):
    run(["init", "--workload", "trn1", "--stack", "llama", "--cwd", str(project)])
    text = (project / "Pulumi.llama.yaml").read_text()
    assert text.startswith("# yaml-language-server: $schema=stack.schema.json\n# Llama 2 13B pretraining")
    assert text.count("yaml-language-server") == 1
    assert (project / "stack.schema.json").read_text() == render()


def test_an_existing_stack_file_is_kept_unless_forced(project):
    (project / "Pulumi.dev.yaml").write_text("config: {}\n")
    code, _, err = run(["init", "--workload", "dev", "--cwd", str(project)])
    assert code == 2 and "Pulumi.dev.yaml exists in " in err and "choose another --stack, or pass --force" in err, err
    assert (project / "Pulumi.dev.yaml").read_text() == "config: {}\n"
    code, _, _ = run(["init", "--workload", "dev", "--cwd", str(project), "--force"])
    assert code == 0 and "trainstack:profile: dev" in (project / "Pulumi.dev.yaml").read_text()


def test_an_unknown_workload_is_refused_with_the_known_ones(project):
    with pytest.raises(SystemExit) as exit_:
        run(["init", "--workload", "p5-nemo", "--cwd", str(project)])
    assert exit_.value.code == 2


def test_outside_a_project_init_says_where_it_looked(tmp_path):
    code, _, err = run(["init", "--workload", "dev", "--cwd", str(tmp_path)])
    assert code == 2 and "no Pulumi.yaml" in err, err
