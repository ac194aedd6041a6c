"""A Capacity Block bought with the stack (capacity.purchase, opt in): the plan buys the named offering through
aws.ec2.CapacityBlockReservation, protected and retained, its launch template targets what it bought, the plan
says the fee and the dates, and the review blocks the purchase until the pull request approves it by URN."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from support.scratch import plan_config
from trainstack import cli
from trainstack.analysis import review
from trainstack.names import CAPACITY_BLOCK_RESERVATION, LAUNCH_TEMPLATE
from trainstack.review.diff import ResourceChange
from trainstack.review.risk import assess_change

OFFERING = "cb-0123456789abcdef0"
BOUGHT = {"type": "capacityBlock", "zone": "us-east-1a", "instanceCount": 2, "startsAt": "2026-12-01T11:30:00Z",
          "endsAt": "2026-12-03T11:30:00Z", "purchase": {"offeringId": OFFERING, "upfrontFeeUsd": 3840.0}}
STACK: dict[str, Any] = {
    "profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
    "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
    "nodeGroups": [{"name": "block", "instanceType": "p5.48xlarge", "maxSize": 2, "zone": "us-east-1a",
                    "capacity": BOUGHT}],
}


def with_capacity(**capacity: Any) -> dict[str, Any]:
    config = copy.deepcopy(STACK)
    config["nodeGroups"][0]["capacity"] = capacity
    return config


@pytest.fixture(scope="module")
def bought(tmp_path_factory):
    return plan_config(tmp_path_factory.mktemp("bought"), "cb", STACK)


@pytest.fixture(scope="module")
def gate(tmp_path_factory, bought):
    """The review of buying the block, against a base that names a block bought elsewhere; and its directory."""
    directory = tmp_path_factory.mktemp("base")
    base = plan_config(directory, "cb", with_capacity(**{
        **{k: v for k, v in BOUGHT.items() if k != "purchase"}, "reservationId": "cr-0123456789abcdef0"}))
    return base, directory


def test_the_stack_buys_the_offering_protected_and_retained_and_its_nodes_launch_into_it(bought):
    (block,) = [r for r in bought.resources if r.type == CAPACITY_BLOCK_RESERVATION]
    assert block.inputs == {"capacityBlockOfferingId": OFFERING, "instancePlatform": "Linux/UNIX"}
    assert block.options.protect and block.options.retain_on_delete
    (template,) = [r for r in bought.resources
                   if r.type == LAUNCH_TEMPLATE and "capacityReservationSpecification" in r.inputs]
    target = template.inputs["capacityReservationSpecification"]["capacityReservationTarget"]
    assert target["capacityReservationId"] == block.id and block.id.startswith("cr-")
    assert template.inputs["instanceMarketOptions"] == {"marketType": "capacity-block"}


def test_the_plan_says_what_is_bought_for_how_much_and_when(bought):
    (said,) = [d["message"] for d in bought.diagnostics if "capacity block purchase" in d["message"]]
    assert (f"offering {OFFERING}, 2 x p5.48xlarge in us-east-1a, 2026-12-01T11:30:00Z to 2026-12-03T11:30:00Z, "
            "3,840.00 USD paid up front") in said and "never refunded" in said


def test_the_review_blocks_the_purchase_until_it_is_approved_by_urn(gate, bought):
    base, directory = gate
    (block,) = [r for r in bought.resources if r.type == CAPACITY_BLOCK_RESERVATION]
    judged = review(base, bought)
    (purchase,) = [f for f in judged.findings if f.kind == "purchase"]
    assert (purchase.severity, purchase.urn) == ("blocking", block.urn) and not judged.passed
    assert "buys a Capacity Block, paid up front and never refunded" in purchase.title
    sarif = json.loads(judged.render("sarif", directory))
    assert "trainstack-diff/purchase" in {r["ruleId"] for r in sarif["runs"][0]["results"]}
    approved = review(base, bought, [block.urn])
    assert [f.severity for f in approved.findings if f.kind == "purchase"] == ["warning"]


def test_a_change_of_a_type_the_table_does_not_know_blocks() -> None:
    change = ResourceChange("urn:pulumi:cb::trainstack::aws:ec2/instance:Instance::x", "aws:ec2/instance:Instance",
                            "x", "create", head={})
    (finding,) = assess_change(change)
    assert (finding.kind, finding.severity) == ("unclassified", "blocking")
    engine = ResourceChange("urn:pulumi:cb::trainstack::pulumi:providers:aws::p", "pulumi:providers:aws", "p",
                            "update", head={})
    assert assess_change(engine) == []


@pytest.mark.parametrize(("capacity", "said"), [
    ({**BOUGHT, "reservationId": "cr-0123456789abcdef0"}, "capacity.purchase"),
    ({k: v for k, v in BOUGHT.items() if k != "startsAt"}, "capacity.startsAt"),
    ({"type": "none", "purchase": BOUGHT["purchase"]}, "capacity.purchase"),
    ({**BOUGHT, "purchase": {"offeringId": "cb 1", "upfrontFeeUsd": 1.0}}, "capacity.purchase.offeringId"),
    ({**BOUGHT, "purchase": {"offeringId": OFFERING, "upfrontFeeUsd": 0}}, "capacity.purchase.upfrontFeeUsd")])
def test_a_purchase_that_cannot_be_what_was_meant_is_refused(tmp_path, capsys, capacity, said):
    from support.scratch import write_stack
    directory = write_stack(tmp_path, "cb", with_capacity(**capacity))
    assert cli.main(["plan", "--stack", "cb", "--cwd", str(directory)]) == 2
    err = capsys.readouterr().err
    assert f"trainstack:nodeGroups[0].{said}" in err and "Fix:" in err


def test_a_karpenter_pool_cannot_buy_its_block(tmp_path, capsys):
    from support.scratch import write_stack
    config = copy.deepcopy(STACK)
    config["nodeGroups"][0]["autoscaler"] = "karpenter"
    assert cli.main(["plan", "--stack", "cb", "--cwd", str(write_stack(tmp_path, "cb", config))]) == 2
    err = capsys.readouterr().err
    assert "trainstack:nodeGroups[0].capacity.purchase" in err and "buy it first and name its reservationId" in err


def test_the_cost_estimate_counts_the_offerings_fee_up_front(bought):
    from trainstack.estimate import estimate_cost
    (commitment,) = estimate_cost(bought).commitments
    assert commitment.reserved.label == f"capacity block to buy (offering {OFFERING})"
    assert round(commitment.upfront or 0, 2) == 3840.0 and commitment.reserved.hours == 48
    assert "the offering's up-front fee, 3,840.00 USD" in commitment.source
