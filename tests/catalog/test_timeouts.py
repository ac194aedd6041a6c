"""`pulumi up` waits as long as the plan says an operation takes (issue 64, class 1).

The provider gives up on a resource at its timeout while AWS carries on: a managed node group's update waits 60
minutes by default (terraform-provider-aws internal/service/eks/node_group.go, Timeouts;
waitNodegroupUpdateSuccessful waits d.Timeout(schema.TimeoutUpdate)), and 16 p5 nodes rolled one at a time take
about 128. So every resource whose duration the plan estimates records a custom timeout of at least that estimate
with the stated margin (``catalog/timeouts.py``), read here from each shipped stack's plan record: what the engine
is handed, not what a component meant to set.
"""

from __future__ import annotations

from typing import Any

import pytest
from support import rendered_jobs
from support.rendered_jobs import SHIPPED_STACKS
from trainstack.catalog import resource_types
from trainstack.catalog.timeouts import FACTOR, SLACK_MINUTES, minutes, with_margin
from trainstack.estimate.durations import minutes as planned_minutes
from trainstack.names import EKS_COMPONENT_CLUSTER, NODE_GROUP
from trainstack.plan import ResourceRecord

TIMED_MINUTES = 5.0
"""Creation estimates below this are an API call, a Kubernetes object or a chart (whose release carries its own
timeout): no provider default is that short. Node groups, file systems, HyperPod and the control plane are above."""

NOT_YET_TIMED = {
    EKS_COMPONENT_CLUSTER: "pulumi-eks 4.4.0's Cluster makes the aws:eks/cluster:Cluster itself; a timeout would go "
                           "through a transform, which the offline plan does not run (cluster/control_plane_tier.py), "
                           "so it could not be read here; the provider's own default applies (issue 64, left "
                           "open).",
}


def _record(item: dict[str, Any]) -> ResourceRecord:
    return ResourceRecord(urn=item["urn"], type=item["type"], name=item["name"], parent=item.get("parent"),
                          custom=item["custom"], remote=item.get("remote", False), inputs=item.get("inputs") or {})


def _timeouts(item: dict[str, Any]) -> dict[str, str]:
    return (item.get("options") or {}).get("customTimeouts") or {}


def _fits(timeout: str | None, estimate: float) -> bool:
    return timeout is not None and minutes(timeout) >= FACTOR * estimate + SLACK_MINUTES


@pytest.mark.parametrize("stack", SHIPPED_STACKS)
def test_every_estimated_creation_fits_its_recorded_create_timeout(stack):
    short = []
    for item in rendered_jobs.planned_record(stack)["resources"]:
        estimate = planned_minutes(_record(item))
        if estimate < TIMED_MINUTES or item["type"] in NOT_YET_TIMED:
            continue
        if not _fits(_timeouts(item).get("create"), estimate):
            short.append(f"{item['name']} ({item['type']}): estimated {estimate:g} min, create timeout "
                         f"{_timeouts(item).get('create')}")
    assert short == []


@pytest.mark.parametrize("stack", SHIPPED_STACKS)
def test_every_node_group_roll_fits_its_recorded_update_timeout_at_max_size(stack):
    """A roll replaces every node the group has on the day; the autoscaler may have it at ``maxSize``."""
    short = []
    for item in rendered_jobs.planned_record(stack)["resources"]:
        if item["type"] != NODE_GROUP:
            continue
        scaling = item["inputs"]["scalingConfig"]
        for nodes in (int(scaling.get("desiredSize") or 0), int(scaling["maxSize"])):
            estimate = resource_types.node_group_roll_minutes(item["inputs"], nodes)
            if not _fits(_timeouts(item).get("update"), estimate):
                short.append(f"{item['name']}: {nodes} nodes roll in about {estimate:g} min, update timeout "
                             f"{_timeouts(item).get('update')}")
    assert short == []


def test_the_pools_of_frontier_p5_roll_in_quarters_well_within_their_update_timeout():
    """The issue's case: each 256-node part of frontier-p5 rolled one node at a time for about 34 hours. On its
    Capacity Block a part now rolls 64 nodes at a time: 4 batches, about 32 minutes."""
    parts = [r for r in rendered_jobs.planned_record("frontier-p5")["resources"]
             if r["type"] == NODE_GROUP and r["name"].startswith("frontier-p5-eks-p5-")]
    assert len(parts) == 8
    for part in parts:
        assert resource_types.update_batch(part["inputs"]["updateConfig"], 256) == 64
        assert resource_types.node_group_roll_minutes(part["inputs"], 256) == 4 * 8.0
        assert _timeouts(part) == {"create": "60m", "update": "94m", "delete": "60m"}


def test_a_timeout_is_never_shorter_than_the_providers_default_for_a_node_group():
    """A CPU group's estimate with its margin (2 x 2 + 30 min) is below the provider's 60 minutes: the 60 stay."""
    system = next(r for r in rendered_jobs.planned_record("kueue-p5")["resources"]
                  if r["type"] == NODE_GROUP and r["name"] == "kueue-p5-eks-system")
    assert with_margin(resource_types.CPU_NODE_GROUP) == 34
    assert _timeouts(system)["create"] == "60m"


def test_a_batch_is_capped_at_the_100_nodes_eks_replaces_at_once():
    assert resource_types.update_batch({"maxUnavailablePercentage": 50}, 450) == 100
    assert resource_types.update_batch({"maxUnavailablePercentage": 25}, 3) == 1
    assert resource_types.update_batch({"maxUnavailable": 7}, 450) == 7
