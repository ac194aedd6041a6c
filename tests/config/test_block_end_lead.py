"""capacity.endLeadMinutes: a capacity block's wind-down comes before EC2's warning and inside the block; any other
value is refused with the key, the value and the fix."""

from __future__ import annotations

from typing import Any

import pytest
from trainstack.config import ConfigError, NodeGroupConfig, validate

BLOCK = {"type": "capacityBlock", "reservationId": "cr-0123456789abcdef0", "zone": "us-east-1a",
         "instanceCount": 2, "endsAt": "2026-12-01T11:30:00Z"}


def group(**capacity: Any) -> dict[str, Any]:
    return {"name": "block", "instanceType": "p5.48xlarge", "maxSize": 2, "zone": "us-east-1a",
            "capacity": {**BLOCK, **capacity}}


def valid(settings: dict[str, Any]) -> NodeGroupConfig:
    return validate(NodeGroupConfig, settings, prefix="trainstack:nodeGroups[0]")


def refusal(**capacity: Any) -> str:
    with pytest.raises(ConfigError) as caught:
        validate(NodeGroupConfig, group(**capacity), prefix="trainstack:nodeGroups[0]")
    return str(caught.value)


def test_a_block_winds_down_an_hour_before_its_end_by_default_ec2s_warning_plus_20_minutes() -> None:
    assert valid(group()).capacity.block_end_lead_minutes == 60
    assert valid(group(endLeadMinutes=41)).capacity.block_end_lead_minutes == 41


def test_other_capacity_has_no_wind_down() -> None:
    assert valid({**group(), "capacity": {"type": "none"}}).capacity.block_end_lead_minutes is None


@pytest.mark.parametrize("lead", [40, 30, 0, 1441])
def test_a_lead_not_before_ec2s_warning_or_over_a_day_is_refused(lead: int) -> None:
    said = refusal(endLeadMinutes=lead)
    assert "capacity.endLeadMinutes" in said and f"endLeadMinutes {lead} is outside 41..1440" in said
    assert "Fix: set endLeadMinutes between 41 and 1440" in said


def test_a_lead_reaching_back_before_the_start_is_refused() -> None:
    said = refusal(startsAt="2026-12-01T10:30:00Z", endLeadMinutes=60)
    assert "capacity.endLeadMinutes" in said and "reaches back before startsAt" in said
    assert "Fix: set endLeadMinutes below 60" in said


@pytest.mark.parametrize("kind", ["none", "reservation"])
def test_a_lead_on_capacity_without_a_fixed_end_is_refused(kind: str) -> None:
    capacity = {"type": kind, "endLeadMinutes": 90}
    if kind == "reservation":
        capacity |= {"reservationId": "cr-0123456789abcdef0", "zone": "us-east-1a", "instanceCount": 2}
    with pytest.raises(ConfigError) as caught:
        valid({**group(), "capacity": capacity})
    assert "capacity.endLeadMinutes" in str(caught.value) and "90" in str(caught.value)
