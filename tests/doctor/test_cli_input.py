"""`trainstack doctor`'s input, refused before anything is read, in one line naming the flag, the value and the fix
(exit 2): no plan to judge by, no cluster to read, outputs of another stack, files that are not there, a section
it does not have; and an AWS account with no credentials is out of reach (exit 2), saying where botocore looked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.rendered_jobs import planned_record
from trainstack import cli

STACK = "kueue-p5"


def _run(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = cli.main(["doctor", *arguments])
    out, err = capsys.readouterr()
    return code, out, err


def _parser_refuses(capsys: pytest.CaptureFixture[str], *arguments: str) -> str:
    with pytest.raises(SystemExit) as exited:
        cli.main(["doctor", *arguments])
    assert exited.value.code == 2
    return capsys.readouterr().err


def test_no_plan_to_judge_by_names_both_ways_to_give_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert "error: one of the arguments --stack/-s --plan is required" in _parser_refuses(capsys, "--kubeconfig", "k")


def test_a_section_doctor_does_not_have_is_refused_with_the_ones_it_has(capsys: pytest.CaptureFixture[str]) -> None:
    err = _parser_refuses(capsys, "--stack", STACK, "--section", "queues")
    assert "argument --section: invalid choice: 'queues' (choose from 'cluster', 'pending', 'fabric', 'aws')" in err


def test_no_cluster_to_read_names_the_flags_that_give_one(record: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "--plan", str(record))
    assert (code, out) == (2, "")
    assert err == ("error: doctor reads the cluster through a kubeconfig: give --kubeconfig PATH (and --context NAME) "
                   "for the cluster, or --outputs OUTPUTS.json (pulumi stack output --json --show-secrets) to read it "
                   "through the stack's own kubeconfig output\n")


def test_outputs_of_another_stack_are_refused_naming_both_stacks(record: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    outputs = tmp_path / "dev-outputs.json"
    outputs.write_text(json.dumps(planned_record("dev")["outputs"]))
    code, _, err = _run(capsys, "--plan", str(record), "--outputs", str(outputs))
    assert code == 2
    assert err == (f"error: outputs {outputs} are stack dev's, and the plan is stack {STACK}'s; give the outputs of "
                   f"{STACK}, or --stack dev\n")


def test_a_plan_record_that_is_not_there_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere.json"
    code, _, err = _run(capsys, "--plan", str(missing), "--kubeconfig", str(tmp_path / "k"))
    assert code == 2 and err.startswith("error: ") and str(missing) in err


def test_a_kubeconfig_that_is_not_there_is_named(record: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no.kubeconfig"
    code, _, err = _run(capsys, "--plan", str(record), "--kubeconfig", str(missing))
    assert code == 2 and err.startswith("error: ") and str(missing) in err


def test_an_account_without_credentials_is_out_of_reach_and_says_where_botocore_looked(
        record: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
                     "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                     "AWS_WEB_IDENTITY_TOKEN_FILE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    code, out, err = _run(capsys, "--plan", str(record), "--section", "aws", "--json")
    assert code == 2
    assert json.loads(out)["unreachable"].startswith("the AWS account in us-east-1 could not be read: no AWS "
                                                     "credentials found")
    assert err.startswith("error: the AWS account in us-east-1 could not be read: no AWS credentials found")
