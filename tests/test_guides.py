"""Each workload guide (docs/guides/) runs as written: every line of its tested block exits 0 with nothing on
standard error but what it was asked for (``--cost``, ``init``'s line), each rendered job is one, and the output a
guide shows is what its command prints.

The lines run in a project of one's own (the consumer example's ``Pulumi.yaml`` and program, no stack file):
``trainstack init`` writes its stack there and ``plan`` plans it there; a shipped stack not written by the guide
is planned from the repository."""

import re
import shlex
import shutil
from pathlib import Path

import pytest
import yaml
from support.cli_run import run_cli as run

REPO = Path(__file__).resolve().parent.parent
GUIDES = sorted((REPO / "docs" / "guides").glob("*.md"))
TESTED = re.compile(r"<!-- tested: tests/test_guides.py runs each line -->\n```bash\n(.*?)```", re.S)
SHOWN = re.compile(r"<!-- output of `([^`]+)`: tests/test_guides.py checks it -->\n```text\n(.*?)```", re.S)
ELIDED = "..."


def commands_of(guide: Path) -> list[str]:
    blocks = TESTED.findall(guide.read_text(encoding="utf-8"))
    return [line for block in blocks for line in block.splitlines() if line and not line.startswith("#")]


def shown_outputs(guide: Path) -> list[tuple[str, list[str]]]:
    """Each output a guide shows: its command and its lines (``...`` stands for lines left out)."""
    return [(command, text.splitlines()) for command, text in SHOWN.findall(guide.read_text(encoding="utf-8"))]


def shows(printed: str, shown: list[str]) -> bool:
    """Every shown line is a whole line of ``printed`` (trailing spaces aside), in the order shown."""
    lines = iter(line.rstrip() for line in printed.splitlines())
    return all(any(line == wanted.rstrip() for line in lines) for wanted in shown if wanted != ELIDED)


def test_there_are_guides_and_each_has_a_tested_block_and_shows_some_output():
    assert len(GUIDES) >= 8
    assert all(commands_of(guide) for guide in GUIDES), [g.name for g in GUIDES if not commands_of(g)]
    assert all(shown_outputs(guide) for guide in GUIDES), [g.name for g in GUIDES if not shown_outputs(g)]


@pytest.mark.parametrize("guide", GUIDES, ids=lambda path: path.stem)
def test_the_guides_commands_run_as_written(guide, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # files the commands write land here: the project of one's own
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(REPO / "examples" / "consumer" / name, tmp_path)
    printed: dict[str, str] = {}
    for line in commands_of(guide):
        words = shlex.split(line.replace("<repo>:<tag>", "img:1"))
        assert words[0] == "trainstack", line
        target = words[words.index(">") + 1] if ">" in words else None
        argv = words[1:words.index(">")] if target else words[1:]
        code, out, err = run([*argv, "--cwd", str(_project_of(argv, tmp_path))] if argv[0] in ("plan", "init")
                             else argv)
        assert code == 0, (line, err)
        printed[line] = out + err
        _check_standard_error(argv, err, line)
        if target:
            (tmp_path / target).write_text(out)
        elif argv[0] == "launch":
            if argv[1] == "sbatch":
                assert out.startswith("#!/bin/bash"), line
            else:  # on a DRA group, the ResourceClaimTemplates its pods name come first
                assert all(document["kind"] for document in yaml.safe_load_all(out)), line
        elif argv[0] != "init":
            assert out, line
    for command, shown in shown_outputs(guide):
        assert command in printed, f"{guide.name} shows the output of `{command}`, which its tested block does not run"
        assert shows(printed[command], shown), (command, shown, printed[command])


def _project_of(argv: list[str], here: Path) -> Path:
    """Where a plan or init runs: here, unless it plans a shipped stack the guide did not write."""
    stack = argv[argv.index("--stack") + 1] if "--stack" in argv else "dev"
    return here if argv[0] == "init" or (here / f"Pulumi.{stack}.yaml").is_file() else REPO


def _check_standard_error(argv: list[str], err: str, line: str) -> None:
    if "--cost" in argv:
        assert err.startswith("cost: ") and err.count("\n") == 1, (line, err)
    elif argv[0] == "init":
        assert err.startswith("wrote Pulumi.") and err.count("\n") == 1, (line, err)
    else:
        assert err == "", (line, err)


def test_a_shown_line_the_command_does_not_print_is_caught():
    printed = "Offline plan of x\nCost:\n  at desired size: $1/h\n"
    assert shows(printed, ["Offline plan of x", ELIDED, "  at desired size: $1/h"])
    assert not shows(printed, ["  at desired size: $2/h"])
    assert not shows(printed, ["  at desired size: $1/h", "Offline plan of x"])  # out of order
