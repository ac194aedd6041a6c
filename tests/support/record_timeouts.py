"""What a plan record hands the engine to wait with, against what the plan estimates (issue 64, class 1): each timed
resource's creation and each managed node group's roll, with catalog/timeouts.py's margin. Shared by the shipped
stacks' check (tests/catalog/test_timeouts.py) and the combinations' (tests/analysis/test_feature_combinations.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from trainstack.catalog import resource_types
from trainstack.catalog.timeouts import minutes, with_margin
from trainstack.estimate.durations import minutes as planned_minutes
from trainstack.names import EKS_COMPONENT_CLUSTER, NODE_GROUP
from trainstack.plan import ResourceRecord

TIMED_MINUTES = 5.0
"""Creation estimates below this are an API call, a Kubernetes object or a chart (whose release carries its own
timeout): no provider default is that short. Node groups, file systems, HyperPod and the control plane are above."""

TIMED_ON_ITS_CHILD = {
    EKS_COMPONENT_CLUSTER: "pulumi-eks 4.4.0's Cluster makes the aws:eks/cluster:Cluster itself; its timeouts go on "
                           "that child through a transform (cluster/control_plane_timeouts.py), which a record cannot "
                           "hold: tests/catalog/test_timeouts.py applies each stack's transform to the child.",
}


def estimate(item: dict[str, Any]) -> float:
    """The plan's creation estimate of a record's resource, in minutes."""
    return planned_minutes(ResourceRecord(urn=item["urn"], type=item["type"], name=item["name"],
                                          parent=item.get("parent"), custom=item["custom"],
                                          remote=item.get("remote", False), inputs=item.get("inputs") or {}))


def timeouts(item: dict[str, Any]) -> dict[str, str]:
    """The record's ``customTimeouts`` of a resource (none: ``{}``)."""
    return (item.get("options") or {}).get("customTimeouts") or {}


def fits(timeout: str | None, estimated: float) -> bool:
    return timeout is not None and minutes(timeout) >= with_margin(estimated)


def short_creations(document: dict[str, Any]) -> list[str]:
    """Each timed resource whose create timeout is shorter than its estimate with the margin."""
    return [f"{item['name']} ({item['type']}): created in about {estimate(item):g} min, create timeout "
            f"{timeouts(item).get('create')}" for item in document["resources"]
            if estimate(item) >= TIMED_MINUTES and item["type"] not in TIMED_ON_ITS_CHILD
            and not fits(timeouts(item).get("create"), estimate(item))]


def short_rolls(document: dict[str, Any], sizes: Iterable[str] = ("maxSize",)) -> list[str]:
    """Each managed node group whose update timeout is shorter than its roll, with the margin, at each of its
    ``sizes`` (``scalingConfig`` keys: a roll replaces every node the group has on the day, up to ``maxSize``)."""
    short = []
    for item in (r for r in document["resources"] if r["type"] == NODE_GROUP):
        for size in sizes:
            nodes = int(item["inputs"]["scalingConfig"].get(size) or 0)
            roll = resource_types.node_group_roll_minutes(item["inputs"], nodes)
            if not fits(timeouts(item).get("update"), roll):
                short.append(f"{item['name']}: {nodes} nodes ({size}) roll in about {roll:g} min, update timeout "
                             f"{timeouts(item).get('update')}")
    return short
