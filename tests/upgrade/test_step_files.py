"""Each stack file `trainstack upgrade --write` writes is the file before it changed in place: the step's pull request
shows the lines of the keys the step sets and no other, and the file keeps its comments and its `$schema` line. Checked
on every shipped stack with a cluster and on the fully commented file `trainstack init` writes of each, through an
upgrade of two minors; each file reads back, through the stack-file reader, as the step's document."""

import copy
import difflib
import re
from pathlib import Path

import pytest
from support.cli_run import run_cli
from trainstack.boundary import dump_yaml, parse_yaml
from trainstack.catalog.eks_addon_versions import from_the_guide
from trainstack.plan import Project, load_stack
from trainstack.upgrade.gate import step_files
from trainstack.upgrade.steps import upgrade_steps

REPO = Path(__file__).resolve().parents[2]
CLUSTERS = ("trainstack:eks", "trainstack:existingCluster")
STACKS = [path.name.removeprefix("Pulumi.").removesuffix(".yaml") for path in sorted((REPO / "stacks").glob("Pulumi.*"))
          if any(f"  {cluster}:" in path.read_text() for cluster in CLUSTERS)]
"""Every shipped stack but hyperpod, whose HyperPod cluster has no EKS control plane to upgrade."""
FROM = {"b200-dra": "1.34"}
"""The minor each stack starts on, 1.33 where not named: a DRA group needs 1.34 or later
(components/config/device_allocation.py)."""
KEY = re.compile(r"^\s*(?:- )?([^\s#:'\"][^:#]*|'[^']*'|\"[^\"]*\"):")


def on_minor(text: str, minor: str) -> str:
    """The stack file with its cluster on ``minor``: its version changed in its own quotes, or a version line added
    first under ``trainstack:eks`` (the shipped stacks run the default, 1.35, which has nothing newer to go to)."""
    changed, count = re.subn(r"^(    version: )(['\"])1\.35\2$", rf"\g<1>\g<2>{minor}\g<2>", text, flags=re.M)
    if not count:
        changed, count = re.subn(r"^(  trainstack:eks:\n)", rf'\g<1>    version: "{minor}"\n', text, flags=re.M)
    assert count == 1
    return changed


def init_file(workload: str, directory: Path) -> str:
    (directory / "Pulumi.yaml").write_text(f"name: trainstack\nruntime: python\nmain: {REPO / 'stacks'}\n")
    code, _, err = run_cli(["init", "--workload", workload, "--stack", workload, "--cwd", str(directory)])
    assert code == 0, err
    return (directory / f"Pulumi.{workload}.yaml").read_text()


@pytest.fixture(params=["shipped", "init"])
def upgrade(request, tmp_path, stack):
    """The stack's file on its first minor, the upgrade's steps to 1.35, and each step's file."""
    text = (REPO / "stacks" / f"Pulumi.{stack}.yaml").read_text() if request.param == "shipped" \
        else init_file(stack, tmp_path)
    text = on_minor(text, FROM.get(stack, "1.33"))
    document = parse_yaml(text)
    steps = upgrade_steps(document, "1.35", from_the_guide)
    return text, document, steps, step_files(text, document, steps, f"stack file of {stack}")


def changed_lines(before: str, after: str) -> list[str]:
    return [line for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def entry_lines(value) -> int:
    """Lines ``key: value`` takes in block YAML: a mapping a line per key below its own, anything else one."""
    return 1 + sum(entry_lines(item) for item in value.values()) if isinstance(value, dict) else 1


def keys_in(value) -> set[str]:
    return {name for key, item in value.items() for name in {key, *keys_in(item)}} if isinstance(value, dict) else set()


def what_the_step_sets(step, before: dict) -> tuple[int, set[str]]:
    """The lines a step's keys take out and put in, and the keys those lines may name, from ``step.changes`` alone:
    a key set takes its old lines out and its new ones in, a key added brings its missing mappings' lines too."""
    lines, names, missing = 0, set(), set()
    for path, new in step.changes.items():
        keys = ["config", *path.split(".")]
        holder = before
        for depth, key in enumerate(keys[:-1]):
            if key not in holder:
                missing.add(tuple(keys[:depth + 1]))
                names.add(key)
            holder = holder.get(key, {})
        old = holder.get(keys[-1])
        names |= {keys[-1], *keys_in(old), *keys_in(new)}
        lines += (entry_lines(old) if old is not None else 0) + (entry_lines(new) if new is not None else 0)
    return lines + len(missing), names


def comments(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.lstrip().startswith("#")]


@pytest.mark.parametrize("stack", STACKS)
def test_each_steps_file_changes_only_the_lines_of_the_keys_the_step_sets(upgrade):
    text, document, steps, files = upgrade
    before_text, before = text, document
    for step, written in zip(steps, files, strict=True):
        changed = changed_lines(before_text, written)
        count, names = what_the_step_sets(step, before)
        assert len(changed) == count, (step.title, step.changes, changed)
        assert {KEY.match(line[1:]).group(1).strip("'\"") for line in changed} <= names, (step.title, changed)
        before_text, before = written, step.document


@pytest.mark.parametrize("stack", STACKS)
def test_each_steps_file_keeps_every_comment_and_the_schema_line(upgrade):
    text, _, _, files = upgrade
    assert text.startswith("# yaml-language-server: $schema=")
    for written in files:
        assert written.splitlines()[0] == text.splitlines()[0]
        assert comments(written) == comments(text)


@pytest.mark.parametrize("stack", STACKS)
def test_each_steps_file_reads_back_as_the_steps_document(upgrade, tmp_path):
    _, _, steps, files = upgrade
    for index, (step, written) in enumerate(zip(steps, files, strict=True)):
        edited, dumped = tmp_path / f"edited-{index}", tmp_path / f"dumped-{index}"
        for directory, content in ((edited, written), (dumped, dump_yaml(copy.deepcopy(step.document),
                                                                           sort_keys=False))):
            directory.mkdir()
            (directory / "Pulumi.s.yaml").write_text(content)
        read = [load_stack(Project(root=directory, name="trainstack", main=directory, stack_config_dir=directory),
                           "s").config for directory in (edited, dumped)]
        assert read[0] == read[1], step.title
