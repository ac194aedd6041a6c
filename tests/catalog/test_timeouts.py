"""`pulumi up` waits as long as the plan says an operation takes (issue 64, class 1).

The provider gives up on a resource at its timeout while AWS carries on: a managed node group's update waits 60
minutes by default (terraform-provider-aws internal/service/eks/node_group.go, Timeouts;
waitNodegroupUpdateSuccessful waits d.Timeout(schema.TimeoutUpdate)), and 16 p5 nodes rolled one at a time take
about 128. So every resource whose duration the plan estimates records a custom timeout of at least that estimate
with the stated margin (``catalog/timeouts.py``), read here from each shipped stack's plan record: what the engine
is handed, not what a component meant to set.

The control plane is the exception the offline plan cannot record directly: pulumi-eks's Cluster makes the
``aws:eks/cluster:Cluster`` inside its own provider, so the plan records the component alone, and its timeouts ride
on the transforms registered with it (cluster/control_plane_timeouts.py). The transforms each shipped stack registers
are the ones Pulumi's mock monitor hands the mocks (``MockResourceArgs.transforms``); applied here to the child
pulumi-eks makes, they give the timeouts the engine would set on it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from unittest import mock

import pulumi
import pytest
from support import plan_records, rendered_jobs
from support.record_timeouts import estimate as planned_estimate
from support.record_timeouts import fits, short_creations, short_rolls
from support.record_timeouts import timeouts as recorded_timeouts
from support.rendered_jobs import SHIPPED_STACKS
from trainstack.catalog import resource_types
from trainstack.catalog.timeouts import CONTROL_PLANE_DEFAULTS, minutes, with_margin
from trainstack.cluster.control_plane_timeouts import timeouts_transform
from trainstack.names import EKS_CLUSTER, EKS_COMPONENT_CLUSTER, NODE_GROUP
from trainstack.plan import engine, find_project


@pytest.mark.parametrize("stack", SHIPPED_STACKS)
def test_every_estimated_creation_fits_its_recorded_create_timeout(stack):
    assert short_creations(rendered_jobs.planned_record(stack)) == []


@pytest.mark.parametrize("stack", SHIPPED_STACKS)
def test_every_node_group_roll_fits_its_recorded_update_timeout_at_max_size(stack):
    """A roll replaces every node the group has on the day; the autoscaler may have it at ``maxSize``."""
    assert short_rolls(rendered_jobs.planned_record(stack), ("desiredSize", "maxSize")) == []


def test_the_pools_of_frontier_p5_roll_in_quarters_well_within_their_update_timeout():
    """The issue's case: each 256-node part of frontier-p5 rolled one node at a time for about 34 hours. On its
    Capacity Block a part now rolls 64 nodes at a time: 4 batches, about 32 minutes."""
    parts = [r for r in rendered_jobs.planned_record("frontier-p5")["resources"]
             if r["type"] == NODE_GROUP and r["name"].startswith("frontier-p5-eks-p5-")]
    assert len(parts) == 8
    for part in parts:
        assert resource_types.update_batch(part["inputs"]["updateConfig"], 256) == 64
        assert resource_types.node_group_roll_minutes(part["inputs"], 256) == 4 * 8.0
        assert recorded_timeouts(part) == {"create": "60m", "update": "94m", "delete": "60m"}


def test_a_timeout_is_never_shorter_than_the_providers_default_for_a_node_group():
    """A CPU group's estimate with its margin (2 x 2 + 30 min) is below the provider's 60 minutes: the 60 stay."""
    system = next(r for r in rendered_jobs.planned_record("kueue-p5")["resources"]
                  if r["type"] == NODE_GROUP and r["name"] == "kueue-p5-eks-system")
    assert with_margin(resource_types.CPU_NODE_GROUP) == 34
    assert recorded_timeouts(system)["create"] == "60m"


def test_a_batch_is_capped_at_the_100_nodes_eks_replaces_at_once():
    assert resource_types.update_batch({"maxUnavailablePercentage": 50}, 450) == 100
    assert resource_types.update_batch({"maxUnavailablePercentage": 25}, 3) == 1
    assert resource_types.update_batch({"maxUnavailable": 7}, 450) == 7


def registered_transforms(stack: str) -> list[list[pulumi.ResourceTransform]]:
    """The transforms the stack's program registers with each pulumi-eks Cluster, as Pulumi's mock monitor resolves
    them from the registration (the callbacks the engine would call for the component's children)."""
    seen: list[list[pulumi.ResourceTransform]] = []
    real = engine._PlanMocks.new_resource

    def recording(self, args):
        if args.typ == EKS_COMPONENT_CLUSTER:
            seen.append(list(args.transforms))
        return real(self, args)

    with mock.patch.object(engine._PlanMocks, "new_resource", recording), tempfile.TemporaryDirectory() as directory:
        project = plan_records.write_project(Path(directory), stack, plan_records.stack_config(stack))
        engine.run_plan(find_project(project), stack)
    return seen


def eks_cluster_child(transforms: list[pulumi.ResourceTransform]) -> pulumi.ResourceTransformArgs:
    """The inputs and options pulumi-eks's aws:eks/cluster:Cluster is registered with once the engine has run
    ``transforms`` on it, in order."""
    args = pulumi.ResourceTransformArgs(True, EKS_CLUSTER, "c-eksCluster", {"name": "c"}, pulumi.ResourceOptions())
    for transform in transforms:
        result = transform(args)
        if result is not None:
            args = pulumi.ResourceTransformArgs(True, EKS_CLUSTER, args.name, result.props, result.opts)
    return args


CONTROL_PLANE_STACKS = [stack for stack in SHIPPED_STACKS
                        if "trainstack:eks" in plan_records.stack_config(stack)]
"""The shipped stacks whose program makes an EKS control plane (pulumi-eks's Cluster)."""


@pytest.mark.parametrize("stack", CONTROL_PLANE_STACKS)
def test_the_control_plane_waits_as_long_as_its_estimate_with_the_margin_on_every_shipped_stack(stack):
    """Creating it, and updating its version (an upgrade's control plane step), are estimated alike: the row's
    creation time (catalog/timeouts.py control_plane_timeouts says why); neither is shorter than the provider's."""
    [component] = [r for r in rendered_jobs.planned_record(stack)["resources"] if r["type"] == EKS_COMPONENT_CLUSTER]
    estimate = planned_estimate(component)
    [transforms] = registered_transforms(stack)
    timeouts = eks_cluster_child(transforms).opts.custom_timeouts
    assert timeouts is not None, f"{stack}: no custom timeouts on its {EKS_CLUSTER}"
    assert fits(timeouts.create, estimate) and minutes(timeouts.create) >= CONTROL_PLANE_DEFAULTS.create
    assert fits(timeouts.update, estimate) and minutes(timeouts.update) >= CONTROL_PLANE_DEFAULTS.update
    assert (estimate, timeouts.create, timeouts.update) == (10.0, "50m", "60m")


def test_the_control_plane_timeouts_reach_the_eks_cluster_alone_and_keep_its_other_options():
    kept = pulumi.ResourceOptions(protect=True, ignore_changes=["tags"])
    transform = timeouts_transform({"create": "50m", "update": "60m"})
    result = transform(pulumi.ResourceTransformArgs(True, EKS_CLUSTER, "c-eksCluster", {"name": "c"}, kept))
    assert result is not None and result.props == {"name": "c"}
    assert (result.opts.protect, result.opts.ignore_changes) == (True, ["tags"])
    assert (result.opts.custom_timeouts.create, result.opts.custom_timeouts.update) == ("50m", "60m")
    assert transform(pulumi.ResourceTransformArgs(True, "aws:iam/role:Role", "r", {}, kept)) is None


def test_the_tier_and_the_timeouts_both_reach_frontier_p5s_eks_cluster():
    """frontier-p5 sets controlPlaneTier: tier-2xl; each transform leaves what the other set."""
    [transforms] = registered_transforms("frontier-p5")
    args = eks_cluster_child(transforms)
    assert args.props["controlPlaneScalingConfig"] == {"tier": "tier-2xl"}
    assert args.opts.custom_timeouts.create == "50m"
