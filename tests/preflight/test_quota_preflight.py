"""`trainstack preflight` reads the account's value of each quota the stack reaches (Service Quotas, through
botocore's Stubber, which checks every request and answer against the API's model: moto serves only the VPC's
defaults) and fails where it is below what the stack needs at max size (preflight/quotas.py)."""

import boto3
from botocore.stub import Stubber
from support.frontier_p5 import fsdp_p5_grown, validated
from trainstack.preflight.quotas import quota_checks

REGION = "us-east-1"
ACCOUNT_DEFAULTS = {"L-6D54EA21": 30, "L-BD136A63": 450, "L-DF5E4CA3": 5000}
SERVICES = {"L-6D54EA21": "eks", "L-BD136A63": "eks", "L-DF5E4CA3": "vpc", "L-417A185B": "ec2", "L-1216C47A": "ec2"}
# In the order the preflight asks: the vCPU quotas (by name), then EKS's and the VPC's.
ORDER = ("L-417A185B", "L-1216C47A", "L-6D54EA21", "L-BD136A63", "L-DF5E4CA3")


def checks_against(values, missing=()):
    """The quota checks of the 2,048-node fsdp-p5 against an account holding ``values`` (by code); a code in
    ``missing`` has no applied value, so its AWS default is read instead."""
    client = boto3.client("service-quotas", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="x")
    with Stubber(client) as stub:
        for code in ORDER:
            request = {"ServiceCode": SERVICES[code], "QuotaCode": code}
            answer = {"Quota": {"QuotaCode": code, "ServiceCode": SERVICES[code], "Value": values[code]}}
            if code in missing:
                stub.add_client_error("get_service_quota", "NoSuchResourceException", "no applied value",
                                      expected_params=request)
                stub.add_response("get_aws_default_service_quota", answer, request)
            else:
                stub.add_response("get_service_quota", answer, request)
        checks = list(quota_checks(validated(fsdp_p5_grown()), client))
        stub.assert_no_pending_responses()
    return {check.subject: check for check in checks}


def raised(**values):
    return {"L-417A185B": 2048 * 192, "L-1216C47A": 64, **ACCOUNT_DEFAULTS, "L-DF5E4CA3": 70000, **values}


def test_an_account_on_the_default_5000_network_interfaces_fails_2048_p5_nodes_with_the_increase_to_ask():
    checks = checks_against(raised(**{"L-DF5E4CA3": 5000}))
    failed = [check for check in checks.values() if check.status == "fail"]
    assert [check.subject for check in failed] == ["Network interfaces per Region (L-DF5E4CA3)"]
    (interfaces,) = failed
    assert interfaces.name == "VPC quota"
    assert interfaces.reason.startswith("the account's value 5000; the stack needs 67600 at max size (")
    assert "raise it by 62600 (aws service-quotas request-service-quota-increase --service-code vpc " \
           "--quota-code L-DF5E4CA3 --desired-value 67600)" in interfaces.reason


def test_an_account_with_the_quotas_raised_passes_2048_p5_nodes():
    checks = checks_against(raised())
    assert {check.status for check in checks.values()} == {"pass"}
    assert checks["Running On-Demand P instances (L-417A185B)"].reason.startswith(
        "quota 393216 vCPUs; max size needs 393216 (p5-0 410 x 192")


def test_a_p_vcpu_quota_below_2048_p5_nodes_fails():
    checks = checks_against(raised(**{"L-417A185B": 1536}))
    assert checks["Running On-Demand P instances (L-417A185B)"].status == "fail"


def test_a_quota_the_account_holds_no_applied_value_of_is_judged_by_its_aws_default():
    checks = checks_against(raised(**{"L-DF5E4CA3": 5000}), missing=("L-DF5E4CA3",))
    interfaces = checks["Network interfaces per Region (L-DF5E4CA3)"]
    assert interfaces.status == "fail"
    assert interfaces.reason.startswith("AWS's default (no applied value) 5000; the stack needs 67600")
