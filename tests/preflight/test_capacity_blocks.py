"""`trainstack capacity offerings|extensions`: the Capacity Blocks EC2 has on sale and a block's extensions,
read through botocore's Stubber (moto has neither API), which also checks every request against EC2's model.
Nothing is bought: no purchase call is ever stubbed, so one would fail the test."""

from __future__ import annotations

from datetime import UTC, datetime

import boto3
import pytest
from botocore.stub import Stubber
from trainstack import cli
from trainstack.preflight.capacity_blocks import CapacityQueryError, extension_offerings, offerings

START, END = datetime(2026, 12, 1, 11, 30, tzinfo=UTC), datetime(2026, 12, 3, 11, 30, tzinfo=UTC)


@pytest.fixture
def client():
    return boto3.client("ec2", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y")


def offer(offering_id: str, fee: str, zone: str = "us-east-1a") -> dict:
    return {"CapacityBlockOfferingId": offering_id, "InstanceType": "p5.48xlarge", "AvailabilityZone": zone,
            "InstanceCount": 2, "StartDate": START, "EndDate": END, "CapacityBlockDurationHours": 48,
            "UpfrontFee": fee, "CurrencyCode": "USD", "Tenancy": "default"}


def test_offerings_are_read_page_by_page_cheapest_first_with_their_fee_per_instance_hour(client):
    request = {"InstanceType": "p5.48xlarge", "InstanceCount": 2, "CapacityDurationHours": 48}
    with Stubber(client) as stub:
        stub.add_response("describe_capacity_block_offerings",
                          {"CapacityBlockOfferings": [offer("cbr-0aaaaaaaaaaaaaaaa", "5000.00")], "NextToken": "t"},
                          request)
        stub.add_response("describe_capacity_block_offerings",
                          {"CapacityBlockOfferings": [offer("cbr-0bbbbbbbbbbbbbbbb", "3840.00", "us-east-1b")]},
                          {**request, "NextToken": "t"})
        found = offerings(client, "p5.48xlarge", 2, 48)
        stub.assert_no_pending_responses()
    assert [o.offering_id for o in found] == ["cbr-0bbbbbbbbbbbbbbbb", "cbr-0aaaaaaaaaaaaaaaa"]
    assert found[0].as_dict() == {
        "offeringId": "cbr-0bbbbbbbbbbbbbbbb", "instanceType": "p5.48xlarge", "zone": "us-east-1b",
        "instanceCount": 2, "startsAt": "2026-12-01T11:30:00Z", "endsAt": "2026-12-03T11:30:00Z", "hours": 48,
        "upfrontFee": 3840.0, "currency": "USD", "perInstanceHour": 40.0}


def test_an_extension_is_offered_from_the_blocks_end(client):
    with Stubber(client) as stub:
        stub.add_response("describe_capacity_block_extension_offerings", {"CapacityBlockExtensionOfferings": [{
            "CapacityBlockExtensionOfferingId": "cbr-0cccccccccccccccc", "InstanceType": "p5.48xlarge",
            "InstanceCount": 2, "AvailabilityZone": "us-east-1a", "CapacityBlockExtensionStartDate": END,
            "CapacityBlockExtensionEndDate": datetime(2026, 12, 4, 11, 30, tzinfo=UTC),
            "CapacityBlockExtensionDurationHours": 24, "UpfrontFee": "1920.00", "CurrencyCode": "USD"}]},
            {"CapacityReservationId": "cr-0123456789abcdef0", "CapacityBlockExtensionDurationHours": 24})
        (extension,) = extension_offerings(client, "cr-0123456789abcdef0", 24)
    assert (extension.as_dict()["startsAt"], extension.as_dict()["endsAt"]) == (
        "2026-12-03T11:30:00Z", "2026-12-04T11:30:00Z")
    assert extension.per_instance_hour == 40.0


@pytest.mark.parametrize(("call", "said"), [
    (lambda c: offerings(c, "m5.large", 2, 24), "--instance-type m5.large: the catalog has no Capacity Blocks"),
    (lambda c: offerings(c, "p5.48xlarge", 65, 24), "--count 65: a Capacity Block holds 1 to 64 instances"),
    (lambda c: offerings(c, "p5.48xlarge", 2, 0), "--hours 0: a block lasts at least an hour"),
    (lambda c: extension_offerings(c, "cb-1", 24), "--reservation-id cb-1: not a Capacity Block id")])
def test_what_ec2_would_refuse_is_refused_first_with_the_option_the_value_and_the_fix(client, call, said):
    with Stubber(client), pytest.raises(CapacityQueryError) as caught:
        call(client)
    assert said in str(caught.value) and "Fix:" in str(caught.value)


def test_the_command_lists_them_as_text_and_as_json(client, monkeypatch, listing):
    monkeypatch.setattr("trainstack.cli.capacity.ec2_client", lambda region: client)
    with Stubber(client) as stub:
        text, document = listing(
            stub, "describe_capacity_block_offerings",
            {"CapacityBlockOfferings": [offer("cbr-0aaaaaaaaaaaaaaaa", "3840.00")]},
            {"InstanceType": "p5.48xlarge", "InstanceCount": 2, "CapacityDurationHours": 48, "StartDateRange": START},
            ["capacity", "offerings", "--instance-type", "p5.48xlarge", "--count", "2", "--hours", "48",
             "--earliest", "2026-12-01T11:30:00Z", "--region", "us-east-1"])
    assert ("cbr-0aaaaaaaaaaaaaaaa  us-east-1a  2 x p5.48xlarge  2026-12-01T11:30:00Z to 2026-12-03T11:30:00Z"
            in text)
    assert "3,840.00 USD (40.00 per instance-hour)" in text and "never refunded" in text
    assert document["offerings"][0]["upfrontFee"] == 3840.0


def test_a_bad_argument_exits_2_with_one_line(capsys):
    assert cli.main(["capacity", "offerings", "--instance-type", "p5.48xlarge", "--count", "0", "--hours", "24",
                     "--region", "us-east-1"]) == 2
    assert capsys.readouterr().err.startswith("error: --count 0: a Capacity Block holds 1 to 64 instances.")


def test_preflight_fails_a_purchase_whose_offering_is_gone_or_repriced_and_passes_one_still_on_sale(client):
    from trainstack.preflight.capacity_blocks import offering_still_on_sale
    request = {"InstanceType": "p5.48xlarge", "InstanceCount": 2, "CapacityDurationHours": 48,
               "StartDateRange": START}
    listed = {"CapacityBlockOfferings": [offer("cbr-0aaaaaaaaaaaaaaaa", "3840.00")]}
    with Stubber(client) as stub:
        for _ in range(3):
            stub.add_response("describe_capacity_block_offerings", listed, request)
        ask = lambda offering, fee: offering_still_on_sale(client, "p5.48xlarge", 2, START, END, offering, fee)  # noqa: E731
        assert ask("cbr-0aaaaaaaaaaaaaaaa", 3840.0) == ("pass", "cbr-0aaaaaaaaaaaaaaaa on sale: 3,840.00 USD up "
                                                        "front, 2026-12-01T11:30:00Z to 2026-12-03T11:30:00Z")
        status, reason = ask("cbr-0bbbbbbbbbbbbbbbb", 3840.0)
        assert status == "fail" and "is no longer on sale" in reason
        status, reason = ask("cbr-0aaaaaaaaaaaaaaaa", 3000.0)
        assert status == "fail" and "now costs 3840.0 USD; the stack declares 3000.0" in reason


def test_an_ultraserver_search_asks_ec2_for_whole_units_and_lists_them(client):
    """Issue 44: `--ultraserver-type` sends UltraserverType and UltraserverCount (botocore's model has both; the
    Stubber checks the request against it) and no InstanceCount; each offering keeps its units."""
    request = {"InstanceType": "p6e-gb200.36xlarge", "CapacityDurationHours": 48,
               "UltraserverType": "u-p6e-gb200x72", "UltraserverCount": 1}
    unit = {**offer("cbr-0ddddddddddddddd1", "90000.00"), "InstanceType": "p6e-gb200.36xlarge", "InstanceCount": 18,
            "UltraserverType": "u-p6e-gb200x72", "UltraserverCount": 1}
    with Stubber(client) as stub:
        stub.add_response("describe_capacity_block_offerings", {"CapacityBlockOfferings": [unit]}, request)
        (found,) = offerings(client, "p6e-gb200.36xlarge", 1, 48, ultraserver_type="u-p6e-gb200x72")
    assert (found.ultraserver_type, found.ultraserver_count, found.instance_count) == ("u-p6e-gb200x72", 1, 18)
    assert found.as_dict()["ultraserverType"] == "u-p6e-gb200x72"
    assert "(1 x u-p6e-gb200x72)" in found.line()


@pytest.mark.parametrize(("name", "unit", "count", "said"), [
    ("p6e-gb200.36xlarge", "u-p6e-gb200x99", 1, "--ultraserver-type u-p6e-gb200x99: not an UltraServer type"),
    ("p5.48xlarge", "u-p6e-gb200x36", 1, "--ultraserver-type u-p6e-gb200x36 is made of p6e-gb200.36xlarge"),
    ("trn2u.48xlarge", "u-trn2x64", 0, "--count 0: with --ultraserver-type the count is whole UltraServers"),
])
def test_an_ultraserver_search_ec2_could_not_answer_is_refused_before_asking(client, name, unit, count, said):
    with Stubber(client), pytest.raises(CapacityQueryError, match=said):
        offerings(client, name, count, 24, ultraserver_type=unit)
