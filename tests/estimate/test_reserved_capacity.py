"""Reserved capacity is priced as AWS bills it: an On-Demand Capacity Reservation costs its instances at
the On-Demand rate while it is active, whatever the group runs; a Capacity Block costs its published rate
for its whole duration, paid up front. Instances in either are not counted twice, and what the group does
not run is a line of its own ("idle reserved capacity") and a warning."""

import copy
from pathlib import Path

import pytest
import yaml
from support.scratch import plan_config
from trainstack import catalog
from trainstack.estimate import estimate_cost
from trainstack.estimate.prices import CAPACITY_BLOCK_UNPRICED
from trainstack.plan import find_project, run_plan
from trainstack.policy import evaluate, stack_from_plan

PROJECT = find_project(Path(__file__).resolve().parents[2])
P5 = catalog.get("p5.48xlarge").price("us-east-1").usd_per_hour


def _at_zero() -> dict:
    """kueue-p5 with its p5 group scaled to zero (as it shipped before the rehearsal showed Kueue's
    topology-aware scheduling needs the nodes up): 16 reserved, none running."""
    config = {key.split(":", 1)[1]: value for key, value in yaml.safe_load(
        (Path(__file__).resolve().parents[2] / "stacks" / "Pulumi.kueue-p5.yaml").read_text())["config"].items()}
    config["nodeGroups"][0].update(minSize=0, desiredSize=0)
    return config


@pytest.fixture(scope="module")
def kueue_p5(tmp_path_factory):
    return estimate_cost(plan_config(tmp_path_factory.mktemp("kueue-p5-at-zero"), "kueue-p5", _at_zero()))


def test_kueue_p5_at_desired_size_costs_its_whole_reservation(kueue_p5):
    # 16 x p5.48xlarge reserved, desired size 0: the reservation is billed in full from the moment it is made.
    (idle,) = [line for line in kueue_p5.lines if line.kind == "idle-reserved"]
    assert (idle.quantity_desired, idle.quantity_max, idle.unit_usd_per_hour) == (16, 0, P5)
    assert kueue_p5.hourly("desired") >= 16 * P5
    assert kueue_p5.as_dict()["hourlyUsd"]["desired"] > 880


def test_the_shipped_kueue_p5_runs_its_whole_reservation_and_has_nothing_idle():
    shipped = estimate_cost(run_plan(PROJECT, "kueue-p5"))
    in_use = next(line for line in shipped.lines if "in reservation cr-0123456789abcdef0" in line.item)
    assert in_use.hourly("desired") == pytest.approx(16 * P5)
    assert not [line for line in shipped.lines if line.kind == "idle-reserved" and line.hourly("desired")]
    assert not shipped.warnings


def test_nodes_running_in_the_reservation_are_not_counted_twice(kueue_p5):
    in_use = next(line for line in kueue_p5.lines if "in reservation cr-0123456789abcdef0" in line.item)
    idle = next(line for line in kueue_p5.lines if line.kind == "idle-reserved")
    for at in ("desired", "max"):
        assert in_use.hourly(at) + idle.hourly(at) == pytest.approx(16 * P5)


def test_idle_reserved_capacity_is_a_warning_in_the_section_and_the_record(kueue_p5):
    (warning,) = kueue_p5.warnings
    assert "16 reserved instances billed at $880.64/h with no node running in them" in warning
    assert kueue_p5.as_dict()["warnings"] == [warning]
    assert f"warning: {warning}" in kueue_p5.render()


def test_the_cost_ceiling_counts_the_idle_reservation(tmp_path):
    plan = plan_config(tmp_path, "kueue-p5", _at_zero())
    report = evaluate(stack_from_plan(plan), {"hourly-cost-ceiling": {"maxHourlyUsd": 500}})
    (result,) = [r for r in report.results if r.rule.id == "hourly-cost-ceiling"]
    assert any("idle reserved capacity" in v.message or "in reservation" in v.message for v in result.violations)


BLOCK = {"type": "capacityBlock", "reservationId": "cr-0123456789abcdef0", "zone": "us-east-1a",
         "instanceCount": 4, "startsAt": "2026-12-01T11:30:00Z", "endsAt": "2026-12-08T11:30:00Z"}
STACK = {
    "profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
    "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
    "nodeGroups": [{"name": "block", "instanceType": "p5.48xlarge", "maxSize": 2, "zone": "us-east-1a",
                    "capacity": BLOCK}],
}


def bought(config: dict, fee: float) -> dict:
    """``config`` with its block bought by the stack at the offering's ``fee`` instead of named by id."""
    bought = copy.deepcopy(config)
    capacity = bought["nodeGroups"][0]["capacity"]
    del capacity["reservationId"]
    capacity["purchase"] = {"offeringId": "cb-0123456789abcdef0", "upfrontFeeUsd": fee}
    return bought


def test_a_bought_capacity_block_says_its_up_front_total_once_with_its_dates(tmp_path):
    fee = 4 * 168 * 31.5  # what the offering lists: 4 instances for 168 hours
    estimate = estimate_cost(plan_config(tmp_path, "cb", bought(STACK, fee)))
    (block,) = estimate.as_dict()["capacityBlocks"]
    assert block["hours"] == 168 and block["instances"] == 4
    assert block["upfrontUsd"] == pytest.approx(fee, abs=0.01)
    assert block["usdPerHour"] == pytest.approx(4 * 31.5)
    assert (block["startsAt"], block["endsAt"]) == ("2026-12-01T11:30:00Z", "2026-12-08T11:30:00Z")
    (said,) = [row for row in estimate.render().splitlines() if row.startswith("  capacity block to buy")]
    assert f"${fee:,.2f} up front for 168 h" in said
    # The offering's rate for the nodes in it and the idle part (4 reserved, at most 2 run), never On-Demand.
    lines = [line for line in estimate.lines if "capacity block" in line.item]
    assert {line.unit_usd_per_hour for line in lines} == {31.5}
    assert sum(line.hourly("max") for line in lines) == pytest.approx(4 * 31.5)


def test_a_block_named_by_id_has_no_rate_and_says_where_its_price_is(tmp_path):
    # No primary, dated Capacity Block rate table exists: the price is the offering's fee at purchase.
    estimate = estimate_cost(plan_config(tmp_path, "cb", STACK))
    lines = [line for line in estimate.lines if "capacity block" in line.item]
    assert lines and all(line.unit_usd_per_hour is None and CAPACITY_BLOCK_UNPRICED in line.source for line in lines)
    assert estimate.as_dict()["complete"] is False
    (block,) = estimate.as_dict()["capacityBlocks"]
    assert block["usdPerHour"] is None and block["upfrontUsd"] is None


def test_a_block_without_its_start_says_what_the_total_needs(tmp_path):
    config = copy.deepcopy(STACK)
    del config["nodeGroups"][0]["capacity"]["startsAt"]
    estimate = estimate_cost(plan_config(tmp_path, "cb", config))
    (block,) = estimate.as_dict()["capacityBlocks"]
    assert block["upfrontUsd"] is None
    assert "up front total unknown: set capacity.startsAt" in estimate.render()


def test_a_48_hour_block_costs_48_hours_in_its_month_not_730(tmp_path):
    config = bought(STACK, 4 * 48 * 31.5)
    config["nodeGroups"][0]["capacity"]["endsAt"] = "2026-12-03T11:30:00Z"
    estimate = estimate_cost(plan_config(tmp_path, "cb", config))
    blocks = [line for line in estimate.lines if "capacity block" in line.item]
    assert {line.hours_in_month for line in blocks} == {48}
    assert sum(line.monthly("desired") for line in blocks) == pytest.approx(4 * 48 * 31.5)
