"""How long `pulumi up` waits for a resource whose duration the plan estimates: the estimate with a margin.

The provider gives up on a resource after its timeout while AWS carries on: a node group roll cut off at the
provider's 60 minutes keeps rolling in EKS, `pulumi up` fails, and the next run calls ``UpdateNodegroupVersion``
again in the middle of the update. So every resource the plan times gets ``customTimeouts`` from the same
estimate the plan, the critical path and the review show (``resource_types``), never shorter than the
provider's own default (``tests/catalog/test_timeouts.py`` holds each estimate of every shipped stack against the
timeout its plan records).

The margin: twice the estimate, plus 30 minutes. The estimates are typical times (an accelerated node's 8
minutes is taken from 5-10 minutes seen), and EKS itself fails a node that has not joined within 15 minutes
(EKS User Guide, troubleshooting: NodeCreationFailure) and an upgrade whose pods do not drain within 15 minutes
(managed-node-update-behavior, upgrade phase: PodEvictionFailure), about twice the typical batch: within twice
the estimate EKS has either finished or failed the operation itself, and the provider reports EKS's own
outcome instead of a timeout. The 30 minutes cover the provider's polling and a slow API.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import names
from .resource_types import Inputs, find, node_group_minutes, node_group_roll_minutes

FACTOR = 2.0
"""The estimate is multiplied by this (see the module's docstring for why)."""
SLACK_MINUTES = 30
"""Minutes added to every timeout: the provider's polling, a slow API."""


@dataclass(frozen=True)
class ProviderDefaults:
    """A resource's default timeouts, in minutes, where its provider was read."""

    create: int
    update: int
    delete: int
    source: str


NODE_GROUP_DEFAULTS = ProviderDefaults(
    60, 60, 60,
    "terraform-provider-aws internal/service/eks/node_group.go, Timeouts: Create, Update and Delete "
    "schema.DefaultTimeout(60 * time.Minute), read at b11fc0fd and at 012e0a32, an older and a newer revision, "
    "alike (the upstream tag pulumi-aws 7.51.1, the pinned provider, bridges was not found in the sources read); "
    "the update's waitNodegroupUpdateSuccessful waits d.Timeout(schema.TimeoutUpdate)")


CONTROL_PLANE_DEFAULTS = ProviderDefaults(
    30, 60, 15,
    "terraform-provider-aws internal/service/eks/cluster.go, Timeouts: Create schema.DefaultTimeout(30 * "
    "time.Minute), Update 60 and Delete 15, read at 00555dc5 (the upstream tag pulumi-aws 7.51.1 bridges was not "
    "found in the sources read); a version update's waitClusterUpdateSuccessful waits d.Timeout(schema.TimeoutUpdate)")


def with_margin(estimate: float) -> int:
    """Whole minutes a resource may take whose estimate is ``estimate`` minutes."""
    return math.ceil(FACTOR * estimate + SLACK_MINUTES)


def minutes(timeout: str) -> float:
    """A Pulumi custom timeout (``"90m"``, ``"2h"``, ``"45s"``) in minutes."""
    units = {"s": 1 / 60, "m": 1.0, "h": 60.0}
    return float(timeout[:-1]) * units[timeout[-1]]


def node_group_timeouts(inputs: Inputs) -> dict[str, str]:
    """A managed node group's timeouts, from its engine-named inputs (``amiType``, ``scalingConfig``,
    ``updateConfig``): creating or deleting it launches or terminates all its nodes at once (about one batch);
    an update rolls every node it may have, ``maxSize`` (the autoscaler moves the desired size, so the desired
    size at planning time says nothing about the count on the day of the roll)."""
    scaling = inputs.get("scalingConfig") or {}
    once = with_margin(node_group_minutes(inputs))
    roll = with_margin(node_group_roll_minutes(inputs, int(scaling.get("maxSize") or 0)))
    return {"create": f"{max(NODE_GROUP_DEFAULTS.create, once)}m",
            "update": f"{max(NODE_GROUP_DEFAULTS.update, roll)}m",
            "delete": f"{max(NODE_GROUP_DEFAULTS.delete, once)}m"}


def timeouts_of(token: str, inputs: Inputs, floor: int, operations: tuple[str, ...]) -> dict[str, str]:
    """The timeouts of a resource of type ``token`` (its row's creation estimate, with the margin) for
    ``operations``, at least ``floor`` minutes: the timeout the component set before it was derived, kept
    where the estimate with its margin is shorter (it was chosen for the same operation)."""
    row = find(token)
    estimate = row.created_in(inputs) if row is not None else 0.0
    return {operation: f"{max(floor, with_margin(estimate))}m" for operation in operations}


def control_plane_timeouts() -> dict[str, str]:
    """The EKS control plane's (``aws:eks/cluster:Cluster``'s) create and update timeouts. The plan's estimate for it
    is its row's (``resource_types``, ``eks:index:Cluster``): 10 minutes, from public ``terraform apply`` logs
    (10m44s, and 8.4 to 11.4 minutes in 12 others) against AWS's "about 15 minutes". An upgrade updates it in place,
    EKS replacing the API server nodes with new ones of the next minor ("The update takes several minutes to
    complete", EKS User Guide, update-cluster.html); no timing of it is published, so it is estimated as a creation.
    With the margin that is 50 minutes: longer than the provider's 30 to create, shorter than its 60 to update,
    which stay. The deletion is not estimated: the provider's 15 minutes stay."""
    return {**timeouts_of(names.EKS_COMPONENT_CLUSTER, {}, CONTROL_PLANE_DEFAULTS.create, ("create",)),
            **timeouts_of(names.EKS_COMPONENT_CLUSTER, {}, CONTROL_PLANE_DEFAULTS.update, ("update",))}


LUSTRE_FLOOR = 45
"""FSx for Lustre's create and update: 45 minutes, what ``storage/lustre.py`` waited before (the provider's own
default was not read)."""
HYPERPOD_FLOOR = 180
"""HyperPod's create and update: 180 minutes, what ``hyperpod/cluster.py`` waited before (pulumi-aws-native's own
default was not read)."""


def lustre_timeouts() -> dict[str, str]:
    """An FSx for Lustre file system's create and update timeouts (its estimate does not depend on its inputs)."""
    return timeouts_of(names.LUSTRE_FILE_SYSTEM, {}, LUSTRE_FLOOR, ("create", "update"))


def hyperpod_timeouts(deep_health_checks: bool) -> dict[str, str]:
    """A HyperPod cluster's create and update timeouts: longer where an instance group runs deep health checks
    on start (``resource_types.DEEP_HEALTH_CHECKS``)."""
    inputs = {"instanceGroups": [{"onStartDeepHealthChecks": ["InstanceStress"]}]} if deep_health_checks else {}
    return timeouts_of(names.HYPERPOD_CLUSTER, inputs, HYPERPOD_FLOOR, ("create", "update"))
