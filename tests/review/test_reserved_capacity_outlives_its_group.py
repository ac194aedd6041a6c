"""Reserved capacity outlives the group that holds it: for generated changes to a reserved group of a shipped stack,
the diff never counts as saved what still bills, and a type change under the same reservation, block or training
plan closes the gate with the reason.

The oracle is independent of the review: it reads the base's stack file for the capacity (its id, type and
instances) and the catalog for its On-Demand rate, which an On-Demand Capacity Reservation bills for every reserved
instance until it is cancelled or ends (docs.aws.amazon.com/AWSEC2/latest/UserGuide/
capacity-reservation-pricing-billing.html). Only an instance of the reservation's type launches into it
(docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-reservations-launch.html).
"""

import copy
import functools
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given, note, settings
from hypothesis import strategies as st
from support.plan_records import compare, record, stack_config
from trainstack import catalog
from trainstack.review import assess, blocking
from trainstack.review.render import as_dict

HOURS_PER_MONTH = 730
OTHER_TYPE = {"p4de.24xlarge": "p5.48xlarge", "p5.48xlarge": "p4d.24xlarge", "ml.p5.48xlarge": "ml.p4d.24xlarge"}
PLAN_ARN = "arn:aws:sagemaker:us-east-1:123456789012:training-plan/p5-plan"
EDITS = ("deleted", "retyped", "moved to another reservation", "capacity dropped", "resized", "unchanged")


def with_training_plan(config: dict[str, Any]) -> dict[str, Any]:
    """hyperpod-eks with its gpu workers in a training plan."""
    config = copy.deepcopy(config)
    config["trainstack:hyperpod"]["workers"][0]["trainingPlanArn"] = PLAN_ARN
    return config


BASES = {"nemo-p4de": stack_config("nemo-p4de"), "kueue-p5": stack_config("kueue-p5"),
         "hyperpod-eks": with_training_plan(stack_config("hyperpod-eks"))}


@functools.cache
def base_record(stack: str) -> dict[str, Any]:
    """The base's record, planned once per stack (not a fixture: Hypothesis would print it with each example)."""
    return record(Path(tempfile.mkdtemp(prefix=f"{stack}-base-")), stack, config=BASES[stack])


def held(config: dict[str, Any]) -> dict[str, Any]:
    """The reserved group's capacity as the stack file names it: id, instance type, instances, group."""
    if "trainstack:hyperpod" in config:
        worker = config["trainstack:hyperpod"]["workers"][0]
        return {"id": worker["trainingPlanArn"], "type": worker["instanceType"], "instances": worker["count"],
                "group": worker["name"], "rate": None}  # a training plan is paid up front: no hourly rate kept
    group = config["trainstack:nodeGroups"][0]
    rate = catalog.get(group["instanceType"]).price(config["trainstack:region"]).usd_per_hour
    return {"id": group["capacity"]["reservationId"], "type": group["instanceType"],
            "instances": group["capacity"]["instanceCount"], "group": group["name"], "rate": rate}


def edited(config: dict[str, Any], edit: str) -> dict[str, Any]:
    """The head: ``config`` with its reserved group changed by ``edit``."""
    config = copy.deepcopy(config)
    if "trainstack:hyperpod" in config:
        workers = config["trainstack:hyperpod"]["workers"]
        {"deleted": lambda: workers.__setitem__(0, {  # a rename: a new group, without the plan
            "name": "gpu2", "instanceType": workers[0]["instanceType"], "count": workers[0]["count"]}),
         "retyped": lambda: workers[0].update(instanceType=OTHER_TYPE[workers[0]["instanceType"]]),
         "moved to another reservation": lambda: workers[0].update(
             trainingPlanArn=PLAN_ARN.replace("p5-plan", "other-plan")),
         "capacity dropped": lambda: workers[0].pop("trainingPlanArn"),
         "resized": lambda: workers[0].update(count=workers[0]["count"] + 1),
         "unchanged": lambda: None}[edit]()
        return config
    groups = config["trainstack:nodeGroups"]
    group = groups[0]
    {"deleted": lambda: groups.pop(0),
     "retyped": lambda: group.update(instanceType=OTHER_TYPE[group["instanceType"]]),
     "moved to another reservation": lambda: group["capacity"].update(reservationId="cr-0fedcba9876543210"),
     "capacity dropped": lambda: group.pop("capacity"),
     "resized": lambda: group.update(minSize=group["minSize"] - 1, desiredSize=group["desiredSize"] - 1),
     "unchanged": lambda: None}[edit]()
    if edit == "deleted" and config.get("trainstack:scheduling"):
        # Teams' quotas on the deleted group go with it (a quota on a group the stack lacks is refused).
        for team in config["trainstack:scheduling"]["teams"]:
            team["guaranteedNodes"] = {g: n for g, n in team["guaranteedNodes"].items() if g != group["name"]} or {
                groups[0]["name"]: 0}
    return config


CHANGES = [(stack, edit) for stack in sorted(BASES) for edit in EDITS]


@settings(max_examples=len(CHANGES))
@given(change=st.sampled_from(CHANGES))
def test_reserved_capacity_stays_billed_until_released_and_a_type_change_under_it_blocks(tmp_path_factory, change):
    stack, edit = change
    event(f"{stack}: {edit}")
    capacity = held(BASES[stack])
    head = record(tmp_path_factory.mktemp("head"), stack, config=edited(BASES[stack], edit))
    diff = compare(base_record(stack), head)
    findings = assess(diff)
    report = as_dict(diff, findings)
    note(json.dumps({"findings": [f.__dict__ for f in findings], "deltas": report["deltas"]}, default=str)[:6000])
    let_go = edit in ("deleted", "retyped", "moved to another reservation", "capacity dropped")
    rows = [row for row in report["deltas"]["costByItemUsdPerMonth"] if capacity["id"] in row["item"]]
    about = [f for f in findings if capacity["id"] in f.title + f.detail]
    if not let_go:
        assert not about or all(f.kind != "reserved-capacity" for f in about), about
        return
    # What the head keeps billing: every reserved instance, at the reservation's rate, all month.
    kept = [row for row in rows if row["head"] is not None or "head" in row["unpriced"]]
    assert kept, ("the head no longer counts the capacity it lets go of", rows)
    if capacity["rate"] is not None:
        monthly = capacity["instances"] * capacity["rate"] * HOURS_PER_MONTH
        assert sum(row["head"] or 0.0 for row in kept) == pytest.approx(monthly, abs=0.02), rows
        head_total = report["deltas"]["costUsdPerMonth"]["desired"]["head"]
        assert head_total >= monthly - 0.02, (head_total, monthly)
    else:
        assert any("head" in row["unpriced"] for row in kept), rows  # no rate: never a saving
    if edit == "retyped":
        stops = [f for f in blocking(findings) if capacity["id"] in f.title]
        assert stops and capacity["type"] in stops[0].title and OTHER_TYPE[capacity["type"]] in stops[0].title, \
            findings
        assert report["gate"]["passed"] is False
    else:
        assert any(f.severity == "warning" and "still bills" in f.title for f in about), findings
