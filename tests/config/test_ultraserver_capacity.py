"""Issue 44: Capacity Blocks of UltraServer types count whole units (9 or 18 p6e-gb200.36xlarge, 4 trn2u.48xlarge);
a block or group of part of a unit is refused with the key, the value and the fix; and the plan warns that EKS wants
a P6e-GB200 managed node group at desired size 0 before an upgrade. p6e-gb200 and trn2u node groups are refused by
the catalog until it has their facts, so the rule is tested as a function, and its wiring with a stand-in unit."""

from __future__ import annotations

from typing import Any

import pytest
from trainstack.catalog.ultraservers import UltraServer
from trainstack.config import ConfigError, NodeGroupConfig, ultraserver_capacity, validate
from trainstack.config.base import ConfigValueError
from trainstack.config.ultraserver_capacity import check_block_units, upgrade_warning

GB200, TRN2U = "p6e-gb200.36xlarge", "trn2u.48xlarge"


@pytest.mark.parametrize(("instance_type", "count", "size"), [
    (GB200, 9, 9), (GB200, 18, 18), (GB200, 36, 27), (GB200, 18, 0), (TRN2U, 4, 4), (TRN2U, 16, 8)])
def test_blocks_and_groups_of_whole_units_pass(instance_type: str, count: int, size: int) -> None:
    check_block_units(instance_type, instance_count=count, desired_size=size, max_size=max(size, 1) if size else count)


@pytest.mark.parametrize(("instance_type", "count", "desired", "maximum", "key", "said"), [
    (GB200, 10, 9, 9, "instanceCount", "a block holds a multiple of 9, not 10"),
    (TRN2U, 6, 4, 4, "instanceCount", "a block holds a multiple of 4, not 6"),
    (GB200, 18, 9, 12, "maxSize", "maxSize 12 is part of an UltraServer"),
    (TRN2U, 8, 2, 8, "desiredSize", "desiredSize 2 is part of an UltraServer"),
])
def test_part_of_a_unit_is_refused_naming_key_value_and_fix(instance_type: str, count: int, desired: int,
                                                             maximum: int, key: str, said: str) -> None:
    with pytest.raises(ConfigValueError) as caught:
        check_block_units(instance_type, instance_count=count, desired_size=desired, max_size=maximum)
    assert said in str(caught.value) and caught.value.path[-1] == key
    assert "multiple of" in caught.value.fix


def test_types_sold_alone_have_no_unit_rule() -> None:
    check_block_units("p5.48xlarge", instance_count=3, desired_size=1, max_size=3)


def block_group(max_size: int) -> dict[str, Any]:
    return {"name": "block", "instanceType": "p5.48xlarge", "maxSize": max_size, "zone": "us-east-1a",
            "capacity": {"type": "capacityBlock", "reservationId": "cr-0123456789abcdef0", "zone": "us-east-1a",
                         "instanceCount": 8, "endsAt": "2026-12-01T11:30:00Z"}}


def test_a_node_group_on_an_ultraserver_block_is_checked_in_whole_units(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wiring, with p5.48xlarge standing in for an UltraServer type of 4-instance units."""
    unit = UltraServer("u-stand-in", "p5.48xlarge", 4, 32, "neuronlink", "test")
    monkeypatch.setattr(ultraserver_capacity, "smallest_unit", lambda t: unit if t == "p5.48xlarge" else None)
    validate(NodeGroupConfig, block_group(8), prefix="trainstack:nodeGroups[0]")
    refused = r"(?s)nodeGroups\[0\]:maxSize = 6.*part of an UltraServer.*Fix: set maxSize to a multiple of 4"
    with pytest.raises(ConfigError, match=refused):
        validate(NodeGroupConfig, block_group(6), prefix="trainstack:nodeGroups[0]")


def test_the_plan_warns_to_scale_a_gb200_managed_group_to_zero_before_an_upgrade() -> None:
    warning = upgrade_warning("gb200", GB200, "cluster-autoscaler")
    assert warning is not None and "nodeGroups.gb200" in warning and "desired size 0" in warning
    assert upgrade_warning("gb200", GB200, "karpenter") is None
    assert upgrade_warning("trn2u", TRN2U, "cluster-autoscaler") is None
    assert upgrade_warning("p5", "p5.48xlarge", "cluster-autoscaler") is None


def test_the_stack_prints_the_upgrade_warning_in_the_plan(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The wiring, on b200-dra with p6-b200 standing in for p6e-gb200; shipped stacks print none."""
    from support import plan_records, rendered_jobs
    from trainstack import training_stack

    assert not [d for d in rendered_jobs.planned_record("b200-dra")["diagnostics"] if "desired size 0" in d["message"]]
    monkeypatch.setattr(training_stack, "upgrade_warning",
                        lambda name, t, autoscaler: upgrade_warning(name, GB200 if t == "p6-b200.48xlarge" else t,
                                                                    autoscaler))
    record = plan_records.record(tmp_path, "b200-dra")
    [warning] = [d for d in record["diagnostics"] if "desired size 0" in d["message"]]
    assert warning["severity"] == "warning" and "nodeGroups.b200" in warning["message"]
