"""SageMaker training plans for HyperPod: `trainstack capacity training-plans` (SearchTrainingPlanOfferings) and the
preflight of a HyperPod group's `trainingPlanArn` (DescribeTrainingPlan), read through botocore's Stubber, which
checks every request and response against SageMaker's model. moto has no training-plan API (neither operation is in
its SageMaker backend), so no test here runs against moto's server. Nothing is bought: CreateTrainingPlan is never
stubbed, so a call to it would fail the test."""

from __future__ import annotations

from datetime import UTC, datetime

import boto3
import pytest
from botocore.stub import Stubber
from trainstack import cli, validate_stack_config
from trainstack.preflight import Clients, run_preflight
from trainstack.preflight.capacity_blocks import CapacityQueryError
from trainstack.preflight.checks import _training_plan
from trainstack.preflight.training_plans import offerings

START, END = datetime(2026, 12, 1, 11, 30, tzinfo=UTC), datetime(2026, 12, 3, 11, 30, tzinfo=UTC)
ARN = "arn:aws:sagemaker:us-east-1:123456789012:training-plan/llm-december"


@pytest.fixture
def client():
    return boto3.client("sagemaker", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y")


def offer(offering_id: str, fee: str, zones=("us-east-1a",)) -> dict:
    return {"TrainingPlanOfferingId": offering_id, "TargetResources": ["hyperpod-cluster"], "DurationHours": 48,
            "UpfrontFee": fee, "CurrencyCode": "USD",
            "ReservedCapacityOfferings": [{"InstanceType": "ml.p5.48xlarge", "InstanceCount": 4 // len(zones),
                                           "AvailabilityZone": zone, "DurationHours": 48, "StartTime": START,
                                           "EndTime": END} for zone in zones]}


REQUEST = {"InstanceType": "ml.p5.48xlarge", "InstanceCount": 4, "DurationHours": 48,
           "TargetResources": ["hyperpod-cluster"]}


def test_offerings_for_hyperpod_are_listed_cheapest_first_with_their_capacity_and_fee_per_instance_hour(client):
    with Stubber(client) as stub:
        stub.add_response("search_training_plan_offerings", {"TrainingPlanOfferings": [
            offer("tpo-expensive", "9000.00"), offer("tpo-cheap", "7680.00", ("us-east-1a", "us-east-1b"))]},
            {**REQUEST, "StartTimeAfter": START, "EndTimeBefore": END})
        found = offerings(client, "ml.p5.48xlarge", 4, 48, START, END)
        stub.assert_no_pending_responses()
    assert [o.offering_id for o in found] == ["tpo-cheap", "tpo-expensive"]
    assert found[0].as_dict() == {
        "offeringId": "tpo-cheap", "targetResources": ["hyperpod-cluster"], "startsAt": "2026-12-01T11:30:00Z",
        "endsAt": "2026-12-03T11:30:00Z", "hours": 48, "upfrontFee": 7680.0, "currency": "USD",
        "perInstanceHour": 40.0, "reservedCapacity": [
            {"instanceType": "ml.p5.48xlarge", "instanceCount": 2, "zone": zone, "startsAt": "2026-12-01T11:30:00Z",
             "endsAt": "2026-12-03T11:30:00Z"} for zone in ("us-east-1a", "us-east-1b")]}


@pytest.mark.parametrize(("args", "said"), [
    (("ml.g5.48xlarge", 4, 48), "--instance-type ml.g5.48xlarge: the catalog has no SageMaker training plans"),
    (("p5.48xlarge", 4, 48), "--instance-type p5.48xlarge: the catalog has no SageMaker training plans"),
    (("ml.p5.48xlarge", 0, 48), "--count 0: a training plan offering holds 1 to 256 instances"),
    (("ml.p5.48xlarge", 257, 48), "--count 257: a training plan offering holds 1 to 256 instances"),
    (("ml.p5.48xlarge", 4, 0), "--hours 0: a training plan lasts 1 to 87600 hours"),
    (("ml.p5.48xlarge", 4, 87601), "--hours 87601: a training plan lasts 1 to 87600 hours")])
def test_what_sagemaker_or_the_catalog_would_refuse_is_refused_before_asking(client, args, said):
    with Stubber(client), pytest.raises(CapacityQueryError) as caught:  # no response stubbed: a call would fail
        offerings(client, *args)
    assert said in str(caught.value) and "Fix:" in str(caught.value)


def test_the_command_lists_them_as_text_and_as_json(client, monkeypatch, listing):
    monkeypatch.setattr("trainstack.cli.capacity.sagemaker_client", lambda region: client)
    with Stubber(client) as stub:
        text, document = listing(
            stub, "search_training_plan_offerings", {"TrainingPlanOfferings": [offer("tpo-cheap", "7680.00")]},
            {**REQUEST, "StartTimeAfter": START},
            ["capacity", "training-plans", "--instance-type", "ml.p5.48xlarge", "--count", "4", "--hours", "48",
             "--earliest", "2026-12-01T11:30:00Z", "--region", "us-east-1"])
    assert ("tpo-cheap  4 x ml.p5.48xlarge in us-east-1a  2026-12-01T11:30:00Z to 2026-12-03T11:30:00Z (48 h)  "
            "7,680.00 USD (40.00 per instance-hour)") in text
    assert document["trainingPlans"][0]["upfrontFee"] == 7680.0


@pytest.mark.parametrize(("instance_type", "region", "said"), [
    ("ml.g5.48xlarge", "us-east-1", "error: --instance-type ml.g5.48xlarge: the catalog has no SageMaker"),
    ("ml.p5.48xlarge", "xx-nowhere-1", "error: 'xx-nowhere-1' is not an AWS region")])
def test_a_bad_argument_exits_2_with_one_line(capsys, instance_type, region, said):
    assert cli.main(["capacity", "training-plans", "--instance-type", instance_type, "--count", "4", "--hours",
                     "48", "--region", region]) == 2
    assert capsys.readouterr().err.startswith(said)


def hyperpod(count=4, instance_type="ml.p5.48xlarge"):
    config = validate_stack_config({
        "profile": "dev", "region": "us-east-1", "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
        "network": {"zones": ["us-east-1a", "us-east-1b"]},
        "hyperpod": {"clusterName": "ml", "orchestrator": "eks",
                     "zone": "us-east-1b", "workers": [{"name": "gpu", "instanceType": instance_type,
                                                        "count": count, "trainingPlanArn": ARN}]}})
    return config


def plan(status="Active", targets=("hyperpod-cluster",), instance_type="ml.p5.48xlarge", total=4) -> dict:
    return {"TrainingPlanArn": ARN, "TrainingPlanName": "llm-december", "Status": status, "StartTime": START,
            "EndTime": END, "TargetResources": list(targets), "ReservedCapacitySummaries": [{
                "ReservedCapacityArn": "arn:aws:sagemaker:us-east-1:123456789012:reserved-capacity/rc-1",
                "InstanceType": instance_type, "TotalInstanceCount": total, "Status": "Active"}]}


def judged(client, answer=None, error=None, count=4):
    (group,) = hyperpod(count).hyperpod.groups
    with Stubber(client) as stub:
        if error:
            stub.add_client_error("describe_training_plan", error, "no", expected_params={"TrainingPlanName": ARN})
        else:
            stub.add_response("describe_training_plan", answer, {"TrainingPlanName": ARN})
        checks = list(_training_plan(group, client))
        stub.assert_no_pending_responses()
    return {c.name: (c.status, c.reason) for c in checks}


def test_a_plan_that_covers_the_group_passes_and_its_end_is_reported(client):
    found = judged(client, plan())
    assert {name: status for name, (status, _) in found.items()} == {
        "training plan state": "pass", "training plan target": "pass", "training plan instance type": "pass",
        "training plan size": "pass", "training plan end": "pass"}
    assert found["training plan end"][1] == "ends 2026-12-03T11:30:00Z"
    assert judged(client, plan("Scheduled"))["training plan state"][0] == "pass"


@pytest.mark.parametrize(("answer", "check", "said"), [
    (plan("Expired"), "training plan state", "Expired: HyperPod can use a plan once it is Scheduled or Active"),
    (plan("Failed"), "training plan state", "set trainingPlanArn to it"),
    (plan("Pending"), "training plan state", "wait until its payment completes"),
    (plan(targets=("training-job",)), "training plan target", "HyperPod uses only plans for hyperpod-cluster"),
    (plan(instance_type="ml.p4d.24xlarge"), "training plan instance type",
     "the group runs ml.p5.48xlarge: set instanceType to the plan's"),
    (plan(total=2), "training plan size", "holds 2 x ml.p5.48xlarge; the group has 4: set count to at most 2")])
def test_a_plan_that_cannot_serve_the_group_fails_naming_the_key_and_the_fix(client, answer, check, said):
    status, reason = judged(client, answer)[check]
    assert status == "fail" and reason.startswith("hyperpod gpu trainingPlanArn: ") and said in reason


def test_a_plan_that_cannot_be_read_is_unchecked_and_one_that_does_not_exist_fails(client):
    assert judged(client, error="AccessDeniedException") == {
        "training plan": ("could-not-check", "AccessDeniedException: no")}
    status, reason = judged(client, error="ResourceNotFound")["training plan"]
    assert status == "fail" and "set trainingPlanArn to a plan of this account" in reason


def test_preflight_asks_sagemaker_for_each_hyperpod_groups_plan(client, aws):
    ec2 = boto3.client("ec2", region_name="us-east-1", endpoint_url=aws)
    quotas = boto3.client("service-quotas", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    with Stubber(client) as stub, Stubber(quotas) as quota_stub:
        stub.add_response("describe_training_plan", plan(total=2), {"TrainingPlanName": ARN})
        quota_stub.add_response("get_service_quota", {"Quota": {"QuotaCode": "L-1216C47A", "Value": 64,
                                                                "ServiceCode": "ec2"}},
                                {"ServiceCode": "ec2", "QuotaCode": "L-1216C47A"})
        checks = run_preflight(hyperpod(), Clients(ec2=ec2, capacity=ec2, quotas=quotas, sagemaker=client))
        stub.assert_no_pending_responses()
    assert [c.name for c in checks if c.status == "fail"] == ["training plan size"]
