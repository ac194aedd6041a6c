"""A capacity block ends: the config must say when, and the plan and the outputs say it
back, with what trainstack, EKS and EC2 do to the nodes before then (tests/addons/test_block_end.py)."""

import copy

from support.scratch import plan_config, write_stack
from trainstack import cli

BLOCK = {"type": "capacityBlock", "reservationId": "cr-0123456789abcdef0", "zone": "us-east-1a",
         "instanceCount": 2, "endsAt": "2026-12-01T11:30:00Z"}
STACK = {
    "profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
    "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
    "nodeGroups": [{"name": "block", "instanceType": "p5.48xlarge", "maxSize": 2, "zone": "us-east-1a",
                    "capacity": BLOCK},
                   {"name": "ondemand", "instanceType": "p5.48xlarge", "maxSize": 1, "zone": "us-east-1a"}],
}


def test_the_outputs_and_the_plan_say_when_the_block_ends(tmp_path):
    plan = plan_config(tmp_path, "cb", STACK)
    groups = plan.outputs["trainstack"]["acceleratedGroups"]
    assert (groups["block"]["capacityType"], groups["block"]["capacityEndsAt"]) == (
        "capacityBlock", "2026-12-01T11:30:00Z")
    assert (groups["ondemand"]["capacityType"], groups["ondemand"]["capacityEndsAt"]) == ("none", None)
    (warning,) = [d["message"] for d in plan.diagnostics if "capacity block" in d["message"]]
    assert "cr-0123456789abcdef0 of group block ends 2026-12-01T11:30:00Z" in warning
    assert "2026-12-01T10:50:00Z EKS: EKS scales the managed node group to zero" in warning
    assert "2026-12-01T11:00:00Z AWS: EC2 terminates the instances left" in warning


def test_an_end_in_another_time_zone_is_reported_in_utc(tmp_path):
    config = copy.deepcopy(STACK)
    config["nodeGroups"][0]["capacity"]["endsAt"] = "2026-12-01T06:30:00-05:00"
    groups = plan_config(tmp_path, "cb", config).outputs["trainstack"]["acceleratedGroups"]
    assert groups["block"]["capacityEndsAt"] == "2026-12-01T11:30:00Z"


def refused(tmp_path, capsys, capacity):
    config = copy.deepcopy(STACK)
    config["nodeGroups"][0]["capacity"] = capacity
    assert cli.main(["plan", "--stack", "cb", "--cwd", str(write_stack(tmp_path, "cb", config))]) == 2
    return capsys.readouterr().err


def test_a_block_without_its_end_is_refused_with_the_key_and_the_fix(tmp_path, capsys):
    err = refused(tmp_path, capsys, {k: v for k, v in BLOCK.items() if k != "endsAt"})
    assert "trainstack:nodeGroups[0].capacity.endsAt" in err and "Fix: set endsAt" in err


def test_an_end_without_a_time_zone_is_refused(tmp_path, capsys):
    err = refused(tmp_path, capsys, {**BLOCK, "endsAt": "2026-12-01T11:30:00"})
    assert "trainstack:nodeGroups[0].capacity.endsAt" in err and "has no time zone" in err and "UTC" in err
