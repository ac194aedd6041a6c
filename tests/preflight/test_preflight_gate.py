"""`trainstack preflight` as a gate: a check that could not run is not a pass, a run that
checked nothing never passes, and --allow-unchecked accepts only what could not be checked
beside checks that did run. Against moto's EC2 on 127.0.0.1 and an endpoint where nothing listens."""

import argparse
from pathlib import Path

import boto3
import pytest
from botocore.config import Config
from trainstack.cli.commands import preflight
from trainstack.preflight import Check, Clients, verdict

REPO = Path(__file__).resolve().parents[2]
REGION = "us-east-1"
UNREACHABLE = "http://127.0.0.1:9"  # the discard port: nothing listens


def preflight_args(allow_unchecked: bool = False) -> argparse.Namespace:
    return argparse.Namespace(cwd=REPO, stack="dev", json=False, allow_unchecked=allow_unchecked)


def clients(ec2_endpoint: str, quotas_endpoint: str) -> Clients:
    config = Config(connect_timeout=1, retries={"max_attempts": 1})
    ec2 = boto3.client("ec2", region_name=REGION, endpoint_url=ec2_endpoint, config=config)
    return Clients(ec2=ec2, capacity=ec2, quotas=boto3.client("service-quotas", region_name=REGION,
                                                              endpoint_url=quotas_endpoint, config=config))


def test_when_no_check_reaches_aws_nothing_is_checked_and_preflight_exits_1_saying_so(monkeypatch, capsys):
    # Credentials, but AWS cannot be reached. (No credentials at all is refused before any check runs, exit 2:
    # tests/preflight/test_credentials.py.)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    unreachable = clients(UNREACHABLE, UNREACHABLE)
    for allow_unchecked in (False, True):
        assert preflight(preflight_args(allow_unchecked), unreachable) == 1
        out, err = capsys.readouterr()
        # The 2 passes: subnets this stack creates. The 8: the offerings, the vCPU quotas and EKS's and the VPC's
        # quotas (managed node groups, nodes per group, network interfaces).
        assert "0 failed, 8 could not be checked, 2 passed" in out
        assert err == ("error: preflight did not pass: nothing was checked against the account: all 8 checks could "
                       'not run (first: EndpointConnectionError: Could not connect to the endpoint URL: '
                       f'"{UNREACHABLE}/"); give credentials that may read EC2 and Service Quotas\n')


def test_checks_that_could_not_run_beside_ones_that_did_fail_the_gate_unless_allowed(aws, capsys):
    # EC2 answers (moto), Service Quotas cannot be reached: the offering is checked, the quotas are not.
    reachable_ec2 = clients(aws, UNREACHABLE)
    assert preflight(preflight_args(), reachable_ec2) == 1
    out, err = capsys.readouterr()
    # The 5 that could not run: the vCPU quotas and EKS's and the VPC's quotas, all read from Service Quotas.
    assert "pass             instance type offered" in out and "0 failed, 5 could not be checked, 6 passed" in out
    assert err.startswith("error: preflight did not pass: 5 checks could not run, and a check that could not run "
                          "is not a pass (first: vCPU quota: ")
    assert err.rstrip().endswith("pass --allow-unchecked to accept what could not be checked")
    assert preflight(preflight_args(allow_unchecked=True), reachable_ec2) == 0
    assert capsys.readouterr().err == ""


def test_a_failed_check_fails_the_gate_even_with_unchecked_ones_allowed():
    checks = [Check("instance type offered", "gpu", "fail", "not offered"),
              Check("vCPU quota", "G", "could-not-check", "AccessDenied")]
    assert verdict(checks, allow_unchecked=True) == "1 check failed"


@pytest.mark.parametrize("allow_unchecked", [False, True])
def test_a_stack_with_nothing_to_ask_the_account_about_does_not_pass(allow_unchecked):
    offline = [Check("subnet IPs", "new private subnet in us-east-1a", "pass", "created by this stack", offline=True)]
    assert verdict(offline, allow_unchecked).startswith("nothing was checked against the account: this stack has")
    assert verdict([], allow_unchecked) is not None


def test_every_check_answered_and_passed_passes():
    assert verdict([Check("vCPU quota", "G", "pass", "enough")]) is None
