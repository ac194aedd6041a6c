"""A capacity block is wound down before AWS ends it: at endsAt minus endLeadMinutes one Job holds the Kueue
ClusterQueues that can use the block and taints its nodes NoExecute; the plan says who acts when."""

from __future__ import annotations

import copy
from typing import Any

from support import rendered_jobs
from support.scratch import plan_config
from trainstack.addons import block_end
from trainstack.names import BLOCK_ENDING_TAINT, YAML_CONFIG_GROUP

BLOCK = {"type": "capacityBlock", "reservationId": "cr-0123456789abcdef0", "zone": "us-east-1a",
         "instanceCount": 2, "endsAt": "2026-12-01T11:30:00Z"}
STACK: dict[str, Any] = {
    "profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
    "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
    "nodeGroups": [{"name": "block", "instanceType": "p5.48xlarge", "maxSize": 2, "zone": "us-east-1a",
                    "capacity": BLOCK},
                   {"name": "ondemand", "instanceType": "p5.48xlarge", "maxSize": 1, "zone": "us-east-1a"}],
}


def wind_downs(resources: list[Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """Each block-end ConfigGroup's objects by kind (a wind-down is the ConfigGroup with a CronJob; the teams'
    and the FSx directories' ConfigGroups are not)."""
    groups = {r["name"] if isinstance(r, dict) else r.name: {
        o["kind"]: o for o in (r["inputs"] if isinstance(r, dict) else r.inputs)["objs"]}
        for r in resources if (r["type"] if isinstance(r, dict) else r.type) == YAML_CONFIG_GROUP}
    return {name: objects for name, objects in groups.items() if "CronJob" in objects}


def pod_of(cron: dict[str, Any]) -> dict[str, Any]:
    return cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]


def test_the_kueue_block_holds_its_cohorts_queues_and_taints_its_nodes_an_hour_before_the_end() -> None:
    record = rendered_jobs.variant_record("p5-kueue-capacity-block")
    (objects,) = wind_downs(record["resources"]).values()
    cron = objects["CronJob"]
    assert (cron["spec"]["schedule"], cron["spec"]["timeZone"]) == ("30 10 1 12 *", "Etc/UTC")
    pod = pod_of(cron)
    assert [c["command"][3] for c in pod["initContainers"]] == ["llm", "vision"]
    assert all(c["command"][-1] == '{"spec":{"stopPolicy":"Hold"}}' for c in pod["initContainers"])
    (taint,) = pod["containers"]
    assert taint["command"][-3:] == ["trainstack.io/node-group=p5",
                                     f"{BLOCK_ENDING_TAINT}=20261201T113000Z:NoExecute", "--overwrite"]
    rules = objects["ClusterRole"]["rules"]
    assert {"apiGroups": ["kueue.x-k8s.io"], "resources": ["clusterqueues"], "resourceNames": ["llm", "vision"],
            "verbs": ["get", "patch"]} in rules
    assert objects["ClusterRoleBinding"]["subjects"][0]["name"] == pod["serviceAccountName"]


def test_the_lead_time_moves_the_schedule(tmp_path) -> None:
    config = copy.deepcopy(STACK)
    config["nodeGroups"][0]["capacity"]["endLeadMinutes"] = 135
    (objects,) = wind_downs(plan_config(tmp_path, "cb", config).resources).values()
    assert objects["CronJob"]["spec"]["schedule"] == "15 9 1 12 *"
    # No Kueue: nothing to hold, only the nodes' taint.
    assert "initContainers" not in pod_of(objects["CronJob"])
    assert [r["resources"] for r in objects["ClusterRole"]["rules"]] == [["nodes"]]


def test_the_plan_says_who_acts_when(tmp_path) -> None:
    plan = plan_config(tmp_path, "cb", STACK)
    (said,) = [d["message"] for d in plan.diagnostics if "capacity block" in d["message"]]
    assert said.startswith("capacity block cr-0123456789abcdef0 of group block ends 2026-12-01T11:30:00Z: ")
    steps = said.split(": ", 1)[1].rstrip(".").split("; ")
    assert [s.split(" ")[:2] for s in steps] == [
        ["2026-12-01T10:30:00Z", "trainstack:"], ["2026-12-01T10:50:00Z", "AWS:"], ["2026-12-01T10:50:00Z", "EKS:"],
        ["2026-12-01T11:00:00Z", "AWS:"], ["2026-12-01T11:30:00Z", "AWS:"]]
    assert "Capacity Block Reservation Expiration Warning" in steps[1]


def test_a_karpenter_block_says_karpenter_drains_it(tmp_path) -> None:
    config = copy.deepcopy(STACK)
    config["nodeGroups"][0].update(autoscaler="karpenter", efa=True)
    said = [d["message"] for d in plan_config(tmp_path, "cb", config).diagnostics if "capacity block" in d["message"]]
    assert "2026-12-01T10:50:00Z Karpenter: Karpenter deletes the block's NodeClaims" in said[0]


def test_stacks_without_a_block_render_no_wind_down() -> None:
    for stack in rendered_jobs.SHIPPED_STACKS:
        assert not wind_downs(rendered_jobs.planned_record(stack)["resources"]), stack


def test_the_timeline_is_in_time_order_for_any_allowed_lead() -> None:
    from datetime import UTC, datetime
    for lead in (41, 60, 1440):
        end = block_end.BlockEnd("g", "cr-0123456789abcdef0", datetime(2026, 12, 1, 11, 30, tzinfo=UTC), lead, (), True)
        times = [when for when, _, _ in block_end.timeline(end)]
        assert times == sorted(times) and times[0] == end.at, lead
