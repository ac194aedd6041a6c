"""Every command that calls AWS, run where botocore finds no usable credentials, ends with one line that says where
it looked and how to give them, and exits 2 (input the user can fix), instead of botocore's bare
"NoCredentialsError: Unable to locate credentials" and exit 3. Incomplete keys, a profile that is not there and an
IAM Identity Center session never started say so too. Nothing here reaches AWS: credentials are resolved before
any request is signed, and the instance metadata service is switched off."""

import json
import os
import subprocess
import sys
from pathlib import Path

import boto3
import pytest
from botocore.exceptions import ClientError, EndpointConnectionError
from trainstack import cli
from trainstack.preflight.credentials import credentials_problem

REPO = Path(__file__).resolve().parents[2]
REGION = "us-east-1"
AWS_COMMANDS = {
    "prices refresh": ["prices", "refresh", "--region", REGION, "--out", "{tmp}/prices.json"],
    "capacity offerings": ["capacity", "offerings", "--region", REGION, "--instance-type", "p5.48xlarge",
                           "--count", "1", "--hours", "24"],
    "capacity extensions": ["capacity", "extensions", "--region", REGION, "--reservation-id", "cr-0123456789abcdef0",
                            "--hours", "24"],
    "capacity training-plans": ["capacity", "training-plans", "--region", REGION, "--instance-type",
                                "ml.p5.48xlarge", "--count", "1", "--hours", "24"],
    "preflight": ["preflight", "--cwd", str(REPO), "--stack", "dev"],
}
SSO_PROFILE = ("[profile research]\nsso_start_url = https://example.awsapps.com/start\nsso_region = us-east-1\n"
               "sso_account_id = 123456789012\nsso_role_name = Researcher\n")


@pytest.fixture
def no_credentials(monkeypatch, tmp_path) -> Path:
    """An environment with no AWS credentials anywhere botocore looks: no AWS_ variables, empty credentials and
    config files, no SSO token cache (HOME is empty), no instance metadata."""
    for name in [name for name in os.environ if name.startswith("AWS_")]:
        monkeypatch.delenv(name)
    (tmp_path / "credentials").write_text("")
    (tmp_path / "config").write_text("")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("HOME", str(tmp_path))
    fresh_default_session(monkeypatch)
    return tmp_path


def fresh_default_session(monkeypatch) -> None:
    """boto3.client's default session resolves its profile and credentials once per process, as a command's process
    does; each step here is a process of its own."""
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)


def run(command: str, tmp: Path) -> list[str]:
    return [part.format(tmp=tmp) for part in AWS_COMMANDS[command]]


def nowhere(tmp: Path) -> str:
    return (f"error: no AWS credentials found: botocore looked in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, profile "
            f"'default' in {tmp}/credentials and {tmp}/config (keys, IAM Identity Center, credential_process, a role "
            "to assume), a web identity token, a container's credentials (ECS, EKS Pod Identity) and no instance role "
            "(AWS_EC2_METADATA_DISABLED is true). Fix: export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and "
            "AWS_SESSION_TOKEN for temporary keys), or set AWS_PROFILE to a profile those files hold (`aws configure`, "
            "or `aws configure sso` then `aws sso login --profile NAME`), or run where an instance or pod role "
            "applies.\n")


@pytest.mark.parametrize("command", AWS_COMMANDS)
def test_a_command_that_calls_aws_without_credentials_says_where_they_were_looked_for_and_exits_2(
        command, no_credentials, capsys):
    assert cli.main(run(command, no_credentials)) == 2
    out, err = capsys.readouterr()
    assert err == nowhere(no_credentials) and out == ""


def test_the_installed_command_says_the_same_in_a_process_of_its_own(no_credentials):
    done = subprocess.run([sys.executable, "-m", "trainstack.cli", *run("prices refresh", no_credentials)],
                          capture_output=True, text=True, env=dict(os.environ), timeout=120)
    assert (done.returncode, done.stderr, done.stdout) == (2, nowhere(no_credentials), "")
    assert not (no_credentials / "prices.json").exists()


def test_with_json_the_error_document_names_the_kind_credentials(no_credentials, capsys):
    assert cli.main([*run("capacity offerings", no_credentials), "--json"]) == 2
    out, err = capsys.readouterr()
    assert json.loads(out) == {"error": {"kind": "credentials", "message": nowhere(no_credentials)[7:-1]}}
    assert err == nowhere(no_credentials)


@pytest.mark.parametrize("command", ["capacity offerings", "preflight"])
def test_incomplete_keys_a_missing_profile_and_a_sign_in_never_started_each_say_what_to_do(
        command, no_credentials, monkeypatch, capsys):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLE")
    assert cli.main(run(command, no_credentials)) == 2
    assert capsys.readouterr().err == (
        "error: AWS credentials are incomplete: Partial credentials found in env, missing: AWS_SECRET_ACCESS_KEY. "
        "Fix: set the missing one, or unset the other so botocore looks further (a profile, IAM Identity Center, the "
        "instance's role).\n")
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.setenv("AWS_PROFILE", "research")
    fresh_default_session(monkeypatch)
    assert cli.main(run(command, no_credentials)) == 2
    assert capsys.readouterr().err == (
        f"error: The config profile (research) could not be found: it is in neither of {no_credentials}/credentials "
        f"and {no_credentials}/config. Fix: set AWS_PROFILE to a profile they hold (`aws configure list-profiles`), "
        "or unset it.\n")
    (no_credentials / "config").write_text(SSO_PROFILE)
    fresh_default_session(monkeypatch)
    assert cli.main(run(command, no_credentials)) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the AWS sign-in session of profile 'research' has expired or was never started: "
                          "Error loading SSO Token: ")
    assert err.endswith("Fix: run `aws sso login --profile research`, then run this again.\n")


def test_a_failure_to_reach_aws_or_its_refusal_is_not_taken_for_missing_credentials():
    assert credentials_problem(EndpointConnectionError(endpoint_url="https://ec2.us-east-1.amazonaws.com/")) is None
    assert credentials_problem(ClientError({"Error": {"Code": "UnauthorizedOperation", "Message": "no"}},
                                           "DescribeCapacityBlockOfferings")) is None
    assert credentials_problem(ValueError("Unable to locate credentials")) is None
