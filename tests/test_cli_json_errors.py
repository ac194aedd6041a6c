"""With --json, standard output stays one parseable JSON document (the error's, or the record) and
the error is also said in one line on standard error, where a person or a CI log looks for it; every
kind of error cli/errors.py maps, and a plan that fails its policies."""

import json
from pathlib import Path

import pytest
import yaml
from trainstack import cli

REPO = Path(__file__).resolve().parent.parent


def project(tmp_path: Path, config: dict | None = None, program: str | None = None) -> Path:
    main = tmp_path if program is not None else REPO / "stacks"
    (tmp_path / "Pulumi.yaml").write_text(f"name: trainstack\nruntime: python\nmain: {main}\n")
    if program is not None:
        (tmp_path / "__main__.py").write_text(program)
    document = yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text())
    document["config"].update(config or {})
    (tmp_path / "Pulumi.dev.yaml").write_text(yaml.safe_dump(document))
    return tmp_path


def json_and_one_line(capsys, argv: list[str], code: int) -> tuple[dict, str]:
    assert cli.main(argv) == code
    out, err = capsys.readouterr()
    document = json.loads(out)
    assert err.startswith("error: ") and err.count("\n") == 1 and len(err) < 700, err
    return document, err


@pytest.mark.parametrize("command", ["plan", "preflight"])
def test_an_unknown_stack_is_a_json_error_and_one_line(capsys, tmp_path, command):
    document, err = json_and_one_line(capsys, [command, "--stack", "nope", "--cwd", str(project(tmp_path)),
                                               "--json"], 2)
    assert document["error"]["kind"] == "project"
    assert err == f"error: {document['error']['message']}\n" and "stack 'nope'" in err


def test_a_config_error_is_the_issues_in_json_and_the_first_in_one_line(capsys, tmp_path):
    cwd = project(tmp_path, {"trainstack:region": 5, "trainstack:profile": "staging"})
    document, err = json_and_one_line(capsys, ["plan", "--cwd", str(cwd), "--json"], 2)
    issues = document["error"]["issues"]
    # The region and the profile, and the allowlist that a stack without a profile's defaults keeps private.
    assert {issue["path"] for issue in issues} == {"trainstack:region", "trainstack:profile",
                                                   "trainstack:eks.publicAccessCidrs"}
    first = issues[0]
    assert err == (f"error: the trainstack stack configuration is invalid: {first['path']}: "
                   f"{first['message'].rstrip('.')} (and 2 more); every problem, its value and fix are in the JSON "
                   "document on standard output\n")


def test_a_bad_file_is_a_json_error_and_one_line(capsys, tmp_path):
    config = tmp_path / "policy.json"
    config.write_text("[]")
    document, err = json_and_one_line(capsys, ["plan", "--cwd", str(REPO), "--json", "--policy-config",
                                               str(config)], 2)
    assert document["error"]["kind"] == "input" and err == f"error: {document['error']['message']}\n"


def test_a_crashing_program_is_a_json_error_and_one_line_without_a_traceback(capsys, tmp_path):
    cwd = project(tmp_path, program="raise RuntimeError('boom')\n")
    document, err = json_and_one_line(capsys, ["plan", "--cwd", str(cwd), "--json"], 3)
    assert document["error"] == {"kind": "program", "message": "RuntimeError: boom"}
    assert err == "error: RuntimeError: boom\n"


def test_a_plan_that_fails_a_policy_prints_the_record_and_says_why_in_one_line(capsys, tmp_path):
    cwd = project(tmp_path, {"trainstack:cost": {"maxHourlyUsd": 1}})
    record, err = json_and_one_line(capsys, ["plan", "--cwd", str(cwd), "--json"], 1)
    assert record["policies"]["mandatoryFailures"] == 1
    assert err == ("error: the plan of trainstack / dev did not pass: 1 mandatory policy failed, "
                   "0 controller model errors\n")
