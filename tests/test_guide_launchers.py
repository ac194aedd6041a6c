"""Every launcher command a workload guide (docs/guides/) shows renders a job on the shipped stack the guide is
about, as shipped: every ``trainstack launch ...`` of every code block, the offline ones and the ones for a
deployed stack alike (``pulumi stack output --json -s S | trainstack launch ...``), against that stack's offline
plan record, which holds the outputs the deployed stack would export.

A guide is about the shipped stack it plans or starts from (``--stack S``, ``-s S``, or ``trainstack init
--workload W --stack S``); every shipped stack has a guide. tests/test_guides.py runs a guide's tested block as
written; this covers every launch line a guide shows, on the stack file in stacks/."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
import yaml
from support import rendered_jobs
from support.cli_run import run_cli as run

REPO = Path(__file__).resolve().parent.parent
GUIDES = sorted((REPO / "docs" / "guides").glob("*.md"))
SHELL_BLOCK = re.compile(r"^```(?:bash|sh|shell|console)\n(.*?)^```", re.S | re.M)
PLACEHOLDERS = {"<repo>:<tag>": rendered_jobs.IMAGE}


def words_of(line: str) -> list[str]:
    """A shell line's words as the shell splits them, ``|`` and ``>`` apart, placeholders filled in, no comment."""
    for placeholder, value in PLACEHOLDERS.items():
        line = line.replace(placeholder, value)
    lexer = shlex.shlex(line, posix=True, punctuation_chars="|>")
    lexer.whitespace_split = True
    return list(lexer)


def command_lines(guide: Path) -> list[list[str]]:
    """Each command line of the guide's shell code blocks, as words (a line ending in ``\\`` goes on)."""
    blocks = [block.replace("\\\n", " ") for block in SHELL_BLOCK.findall(guide.read_text(encoding="utf-8"))]
    return [words for block in blocks for line in block.splitlines() if (words := words_of(line))]


def launches(words: list[str]) -> list[list[str]]:
    """The ``trainstack launch`` commands of one line (the words after ``launch``): a pipeline's stages, output
    redirections left out."""
    stages: list[list[str]] = [[]]
    for word in words:
        if word == "|":
            stages.append([])
        else:
            stages[-1].append(word)
    commands = [stage[:stage.index(">")] if ">" in stage else stage for stage in stages]
    return [command[2:] for command in commands if command[:2] == ["trainstack", "launch"]]


def stack_of(guide: Path) -> str:
    """The shipped stack the guide plans or starts from, through the name ``init`` gives it."""
    commands = command_lines(guide)
    workload_of = {words[words.index("--stack") + 1]: words[words.index("--workload") + 1]
                   for words in commands if words[:2] == ["trainstack", "init"]}
    named = {words[index + 1] for words in commands for index, word in enumerate(words[:-1])
             if word == "--stack" or (word == "-s" and words[0] == "pulumi")}
    shipped = {workload_of.get(name, name) for name in named} & set(rendered_jobs.SHIPPED_STACKS)
    assert len(shipped) == 1, f"{guide.name} plans {sorted(named)}: it must name exactly one shipped stack"
    return shipped.pop()


GUIDE_LAUNCHES = [(guide, stack_of(guide), argv) for guide in GUIDES
                  for words in command_lines(guide) for argv in launches(words)]


def launch_id(case: tuple[Path, str, list[str]]) -> str:
    guide, stack, argv = case
    return f"{guide.stem}:{stack}:{' '.join(argv[:argv.index('--group') + 2])}"


@pytest.fixture(scope="module")
def plan_files(tmp_path_factory) -> dict[str, Path]:
    """Each shipped stack's offline plan record as `trainstack plan --stack S --json` writes it, written lazily
    (the records are planned once per session, support/rendered_jobs.py)."""
    directory = tmp_path_factory.mktemp("plans")
    return {stack: directory / f"{stack}.plan.json" for stack in rendered_jobs.SHIPPED_STACKS}


def plan_file(plan_files: dict[str, Path], stack: str) -> Path:
    path = plan_files[stack]
    if not path.exists():
        path.write_text(json.dumps(rendered_jobs.planned_record(stack)))
    return path


def with_outputs(argv: list[str], outputs: Path) -> list[str]:
    """The command reading ``outputs`` instead of the file it names or the standard input it reads."""
    if "--outputs" in argv:
        at = argv.index("--outputs")
        return [*argv[:at], "--outputs", str(outputs), *argv[at + 2:]]
    return [*argv[:1], "--outputs", str(outputs), *argv[1:]]


def test_every_shipped_stack_has_a_guide_that_launches_a_job_on_it():
    launched = {stack for _, stack, _ in GUIDE_LAUNCHES}
    assert launched == set(rendered_jobs.SHIPPED_STACKS), \
        f"no guide in docs/guides launches a job on {sorted(set(rendered_jobs.SHIPPED_STACKS) - launched)}"


@pytest.mark.parametrize("case", GUIDE_LAUNCHES, ids=launch_id)
def test_every_launcher_a_guide_shows_renders_a_job_on_its_stack_as_shipped(plan_files, case):
    guide, stack, argv = case
    code, out, err = run(["launch", *with_outputs(argv, plan_file(plan_files, stack))])
    assert code == 0, f"{guide.name} shows `trainstack launch {' '.join(argv)}`, refused on stack {stack}: {err}"
    # Standard error says nothing unless the cost was asked for (docs/getting-started.md).
    assert all(line.startswith("cost: ") for line in err.splitlines()) and ("--cost" in argv) == bool(err), err
    if argv[0] == "sbatch":
        assert out.startswith("#!/bin/bash"), out[:200]
    else:  # on a DRA group, the TrainingRuntime and ResourceClaimTemplate its pods name come first
        documents = list(yaml.safe_load_all(out))
        assert documents and all(d["apiVersion"] and d["kind"] for d in documents), out[:200]


def test_a_guide_line_is_read_as_the_shell_reads_it():
    piped = ("pulumi stack output --json -s nemo | trainstack launch pytorchjob --group p4de --nodes 2 --image "
             "<repo>:<tag> -- torchrun train.py | kubectl apply -f -   # applied")
    redirected = "trainstack launch sbatch --outputs plan.json --group g --nodes 2 -- python train.py > train.sbatch"
    (from_stdin,) = launches(words_of(piped))
    assert from_stdin == ["pytorchjob", "--group", "p4de", "--nodes", "2", "--image", rendered_jobs.IMAGE, "--",
                          "torchrun", "train.py"]
    assert launches(words_of(redirected)) == [["sbatch", "--outputs", "plan.json", "--group", "g", "--nodes", "2",
                                               "--", "python", "train.py"]]
    assert with_outputs(from_stdin, Path("r.json"))[:3] == ["pytorchjob", "--outputs", "r.json"]
    assert launches(words_of("trainstack plan --stack dev --json > plan.json")) == []


def test_a_command_continued_on_the_next_line_is_one_command(tmp_path):
    guide = tmp_path / "g.md"
    guide.write_text("```bash\ntrainstack launch device-check --group p5 \\\n  --nodes 2\n```\n")
    assert [launches(words) for words in command_lines(guide)] == [[["device-check", "--group", "p5", "--nodes", "2"]]]
