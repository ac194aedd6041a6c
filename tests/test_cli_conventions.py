"""The command line's conventions: every command and option says what it does, in plain text; a
command that writes a file says so in one line on standard error (standard output holds only
documents, so `--format json -o` and `--json` stay parseable); a closed gate says why there too."""

import argparse
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from trainstack import cli
from trainstack.analysis import plan_stack, render_json
from trainstack.cli.parser import parser
from trainstack.plan import find_project

REPO = Path(__file__).resolve().parent.parent


def parsers(root: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """``root`` and every subcommand's parser under it, however deep."""
    yield root
    for action in root._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from parsers(sub)


def test_every_command_and_every_option_has_help():
    missing = []
    for command in parsers(parser()):
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                missing += [f"{command.prog} {choice.dest}" for choice in action._choices_actions if not choice.help]
            elif not action.help or action.help == argparse.SUPPRESS:
                missing.append(f"{command.prog} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []
    # every command, launch kind, `prices refresh`, `preflight nodes`, preview, up and destroy, init,
    # `capacity` with its offerings, extensions and training plans, upgrade, and doctor
    assert len(list(parsers(parser()))) == 1 + 8 + 7 + 1 + 1 + 3 + 1 + 4 + 1 + 1


def test_help_is_plain_text_without_markup():
    for command in parsers(parser()):
        text = command.format_help()
        assert "`" not in text and not re.search(r":\w+:", text), (command.prog, text)
    top = parser().format_help()
    assert "Plan an AWS training cluster offline" in top and "exit codes: 0 done; 1 " in top


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> tuple[Path, Path]:
    """The dev stack's record and one whose cost ceiling ($1/h) makes a new mandatory failure."""
    import yaml

    directory = tmp_path_factory.mktemp("records")
    document = yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text())
    document["config"]["trainstack:cost"] = {"maxHourlyUsd": 1}
    (directory / "Pulumi.yaml").write_text(f"name: trainstack\nruntime: python\nmain: {REPO / 'stacks'}\n")
    (directory / "Pulumi.dev.yaml").write_text(yaml.safe_dump(document))
    base, head = directory / "dev.json", directory / "over-ceiling.json"
    base.write_text(render_json(plan_stack("dev", find_project(REPO))))
    head.write_text(render_json(plan_stack("dev", find_project(directory))))
    return base, head


@pytest.mark.parametrize("command, says", [
    (["diff", "{base}", "{base}", "--format", "json"], "wrote the diff (json) to {file}\n"),
    (["diff", "{base}", "{base}"], "wrote the diff (text) to {file}\n"),
    (["report", "{base}"], "wrote the HTML report to {file}\n"),
])
def test_a_file_written_is_confirmed_in_one_line_on_standard_error(capsys, tmp_path, records, command, says):
    written = tmp_path / "out"
    argv = [part.format(base=records[0]) for part in command]
    assert cli.main([*argv, "-o", str(written)]) == 0
    out, err = capsys.readouterr()
    assert out == "" and err == says.format(file=written)
    assert written.stat().st_size > 0
    if "json" in argv:
        json.loads(written.read_text())
    assert cli.main(argv) == 0  # without -o the document is standard output, and nothing is said
    out, err = capsys.readouterr()
    assert out and err == ""


def test_a_closed_gate_says_why_in_one_line_on_standard_error_and_the_json_stays_parseable(capsys, records):
    base, head = records
    assert cli.main(["diff", str(base), str(head), "--format", "json"]) == 1
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["gate"]["passed"] is False
    assert err == f"error: the gate is closed: 1 blocking: {report['gate']['blocking'][0]}\n"
