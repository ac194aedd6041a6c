"""Small variations of the shipped stacks for the cost properties (Hypothesis): another region the stack's types are
offered in, the first group's sizes, its capacity (as shipped, an On-Demand Capacity Reservation, or a Capacity Block
the stack buys for a few days or weeks), HyperPod's worker count, and a cost ceiling. Each plans in about a second."""

import copy
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Optional

from hypothesis import strategies as st
from trainstack import catalog
from trainstack.analysis import plan_stack, render_json
from trainstack.plan import Plan, find_project

from support.plan_records import stack_config, write_project

REGIONS = {"dev": ("us-east-1", "us-west-2", "us-east-2"), "nemo-p4de": ("us-east-1", "us-west-2"),
           "kueue-p5": ("us-east-1", "us-west-2", "us-east-2"), "fsdp-p5": ("us-east-1", "us-west-2", "us-east-2"),
           "trn1": ("us-east-1", "us-west-2"), "hyperpod-eks": ("us-east-1", "us-west-2", "us-east-2"),
           "hyperpod": ("us-west-2", "us-east-1"), "byo-p5": ("us-east-1", "us-west-2", "us-east-2")}
"""Each stack with the regions its types are offered in (the shipped region first)."""
BLOCK_DAYS = (1, 2, 7, 14, 28, 35)
"""Capacity Block durations EC2 sells (1-day steps to 14 days, 7-day steps beyond): shorter and longer than a month."""
BLOCK_START = datetime(2026, 12, 1, 11, 30, tzinfo=UTC)
RESERVATION = "cr-0fedcba9876543210"


@dataclass(frozen=True)
class Variant:
    stack: str
    config: dict[str, Any]
    """The stack file's ``config`` (``trainstack:`` keys)."""
    block_hours: Optional[float]
    """The hours of the Capacity Block the first group runs in, when it runs in one."""
    ceiling: Optional[float]
    """The stack's ``cost.maxHourlyUsd`` (drawn, or as shipped: dev has one)."""


def _in_region(config: dict[str, Any], region: str) -> dict[str, Any]:
    """``config`` moved to ``region``: every name of the shipped region (zones too) now names it."""
    shipped = config["trainstack:region"]
    return json.loads(json.dumps(config).replace(shipped, region))


@st.composite
def variants(draw: st.DrawFn, stacks: tuple[str, ...] = tuple(REGIONS), ceiling: bool = False) -> Variant:
    """A shipped stack varied; with ``ceiling``, always under a cost ceiling."""
    stack = draw(st.sampled_from(stacks))
    config = _in_region(copy.deepcopy(stack_config(stack)), draw(st.sampled_from(REGIONS[stack])))
    block_hours = None
    groups = config.get("trainstack:nodeGroups") or []
    if groups:
        group = groups[0]
        group["maxSize"] = group["maxSize"] + draw(st.integers(0, 3))
        group["desiredSize"] = draw(st.integers(group.get("minSize", 0), group["maxSize"]))
        capacity = group.get("capacity")
        if capacity and capacity.get("instanceCount", 0) < group["maxSize"]:
            capacity["instanceCount"] = group["maxSize"]
        if "trainstack:existingCluster" not in config:
            block_hours = _capacity(draw, group)
    if "trainstack:hyperpod" in config:
        config["trainstack:hyperpod"]["workers"][0]["count"] = draw(st.integers(2, 4))  # its checks need two
    ceilings = st.sampled_from([1.0, 10.0, 100.0, 1000.0, 100000.0])
    drawn = draw(ceilings if ceiling else st.one_of(st.none(), ceilings))
    if drawn is not None:
        config["trainstack:cost"] = {**(config.get("trainstack:cost") or {}), "maxHourlyUsd": drawn}
    return Variant(stack, config, block_hours, (config.get("trainstack:cost") or {}).get("maxHourlyUsd"))


def _capacity(draw: st.DrawFn, group: dict[str, Any]) -> Optional[float]:
    """The first group's capacity, as shipped or drawn; the block's hours when it is a Capacity Block."""
    kinds = ["as shipped", "reservation"] + (["block"] if catalog.get(group["instanceType"]).capacity_block else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "reservation":
        group["capacity"] = {"type": "reservation", "reservationId": RESERVATION, "zone": group["zone"],
                             "instanceCount": group["maxSize"] + draw(st.integers(0, 4))}
    if kind != "block":
        return None
    days = draw(st.sampled_from(BLOCK_DAYS))
    instances = group["maxSize"] + draw(st.integers(0, 2))
    group["capacity"] = {"type": "capacityBlock", "zone": group["zone"], "instanceCount": instances,
                         "startsAt": BLOCK_START.strftime("%Y-%m-%dT%H:%M:%SZ"),
                         "endsAt": (BLOCK_START + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                         "purchase": {"offeringId": "cb-0123456789abcdef0",
                                      "upfrontFeeUsd": float(draw(st.integers(1, 60))) * instances * days * 24}}
    return days * 24.0


def planned(directory: Path, variant: Variant) -> tuple[Plan, dict[str, Any]]:
    """The variant planned as `trainstack plan` plans it, and its JSON record."""
    plan = plan_stack(variant.stack, find_project(write_project(directory, variant.stack, variant.config)))
    return plan, json.loads(render_json(plan))
