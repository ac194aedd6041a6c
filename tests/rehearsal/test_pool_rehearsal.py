"""A pool rehearsed: kueue-p5 with its p5 group a pool of three reservations of four nodes, made as three EKS
managed node groups (config/node_pool.py). The real Kueue admits one 12-node TrainJob onto the pool's one flavor, and
the real scheduler binds its pods across all three groups' nodes. Made one flavor per managed node group again (each
part's nodes under a label of its own), no flavor holds 12 nodes and the same job is never admitted."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from support import plan_records
from support.scratch import plan_config
from trainstack.plan import Plan
from trainstack.rehearsal import engines, rehearse
from trainstack.rehearsal.report import render_text

pytestmark = pytest.mark.engines(*engines.REHEARSAL)

RESERVATIONS = ["cr-0123456789abcdef0", "cr-0123456789abcdef1", "cr-0123456789abcdef2"]
TRAINJOB = frozenset({"render_trainjob"})


def pooled_kueue_p5() -> dict[str, Any]:
    config = {key.removeprefix("trainstack:"): value for key, value in plan_records.stack_config("kueue-p5").items()}
    p5 = config["nodeGroups"][0]
    p5.update(minSize=12, desiredSize=12, maxSize=12)
    p5["capacity"] = {"type": "reservation", "zone": "us-east-1a", "reservations": [
        {"reservationId": reservation, "instanceCount": 4} for reservation in RESERVATIONS]}
    return config


@pytest.fixture(scope="module")
def pool_plan(tmp_path_factory) -> Plan:
    return plan_config(Path(tmp_path_factory.mktemp("pool")), "kueue-p5", pooled_kueue_p5())


def test_one_trainjob_spans_the_three_managed_node_groups_of_a_pool(pool_plan: Plan) -> None:
    result = rehearse(pool_plan, launchers=TRAINJOB)
    assert result.ok, render_text(result)
    (job,) = [j for j in result.jobs if j.group == "p5" and j.nodes == 12]
    assert job.seen.admitted and job.seen.flavors == ["p5"] and job.seen.running == 12
    per_part = {part: sum(1 for node in job.seen.nodes if node.rsplit("-", 1)[0] == part)
                for part in ("p5", "p5-part1", "p5-part2")}
    assert per_part == {"p5": 4, "p5-part1": 4, "p5-part2": 4}, job.seen.nodes
    # Each part is its own network block under the pool's one top layer (rehearsal/nodes.py), and the record
    # says where the job landed.
    assert sorted(job.seen.blocks.values()) == [4, 4, 4], job.seen.blocks
    assert "nodes per network block: " in render_text(result)


def test_made_one_flavor_per_managed_node_group_again_the_spanning_job_is_never_admitted(pool_plan: Plan) -> None:
    plan = Plan.from_dict(copy.deepcopy(pool_plan.to_dict()))
    parts = [r for r in plan.resources if r.type == "aws:eks/nodeGroup:NodeGroup"
             and r.inputs["labels"].get("trainstack.io/node-group") == "p5"]
    assert len(parts) == 3
    for index, part in enumerate(parts[1:], 1):  # the second and third parts' nodes leave the p5 flavor
        part.inputs["labels"]["trainstack.io/node-group"] = f"p5-part{index}"
    result = rehearse(plan, timeout=30, launchers=TRAINJOB, groups=frozenset({"p5"}))
    assert not result.ok
    (job,) = [j for j in result.jobs if j.group == "p5" and j.nodes == 12]
    assert not job.seen.admitted and job.problem is not None and job.id in render_text(result)
