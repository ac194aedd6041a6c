"""Each workload guide (docs/guides/) runs as written: every line of its tested block, from the repository root,
exits 0 with nothing on standard error but what it was asked for (``--cost``), and each rendered job is one."""

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest
import yaml
from trainstack import cli

REPO = Path(__file__).resolve().parent.parent
GUIDES = sorted((REPO / "docs" / "guides").glob("*.md"))
TESTED = re.compile(r"<!-- tested: tests/test_guides.py runs each line -->\n```bash\n(.*?)```", re.S)


def commands_of(guide: Path) -> list[str]:
    blocks = TESTED.findall(guide.read_text(encoding="utf-8"))
    return [line for block in blocks for line in block.splitlines() if line and not line.startswith("#")]


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


def test_there_are_guides_and_each_has_a_tested_block():
    assert len(GUIDES) >= 4
    assert all(commands_of(guide) for guide in GUIDES), [g.name for g in GUIDES if not commands_of(g)]


@pytest.mark.parametrize("guide", GUIDES, ids=lambda path: path.stem)
def test_the_guides_commands_run_as_written(guide, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # files the commands write land here; the project is the checkout (--cwd)
    for line in commands_of(guide):
        words = shlex.split(line.replace("<repo>:<tag>", "img:1"))
        assert words[0] == "trainstack", line
        target = words[words.index(">") + 1] if ">" in words else None
        argv = words[1:words.index(">")] if target else words[1:]
        code, out, err = run([*argv, "--cwd", str(REPO)] if argv[0] == "plan" else argv)
        assert code == 0, (line, err)
        asked = "--cost" in argv
        assert (err.startswith("cost: ") and err.count("\n") == 1) if asked else err == "", (line, err)
        if target:
            (tmp_path / target).write_text(out)
        elif argv[0] == "launch":
            rendered = out if argv[1] == "sbatch" else yaml.safe_load(out)
            assert (rendered.startswith("#!/bin/bash") if argv[1] == "sbatch" else rendered["kind"]), line
        else:
            assert out, line
