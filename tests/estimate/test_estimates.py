"""Cost and deploy-time estimates of the shipped stacks, from the plan record."""

from pathlib import Path

import pytest
from trainstack import catalog
from trainstack.estimate import critical_path, estimate_cost
from trainstack.estimate.durations import minutes
from trainstack.plan import find_project, run_plan

PROJECT = find_project(Path(__file__).resolve().parents[2])


@pytest.fixture(scope="module")
def plans():
    return {stack: run_plan(PROJECT, stack) for stack in PROJECT.stacks()}


def test_nemo_costs_two_p4de_at_the_published_price_plus_the_cluster(plans):
    estimate = estimate_cost(plans["nemo-p4de"])
    p4de = catalog.get("p4de.24xlarge").price("us-east-1").usd_per_hour
    c5 = catalog.get("c5.2xlarge").price("us-east-1").usd_per_hour
    gp3_hour = 0.08 / 730
    expected_desired = 2 * p4de + 2 * c5 + (2 * 500 + 2 * 100) * gp3_hour + 0.10 + 2 * 0.045 + 2 * 0.005
    assert estimate.hourly("desired") == pytest.approx(expected_desired)
    assert estimate.hourly("max") == pytest.approx(expected_desired + 2 * c5 + 200 * gp3_hour)
    # One month everywhere: 730 hours, the month AWS's Pricing Calculator assumes (there is no 30-day figure).
    assert estimate.as_dict()["monthlyUsd"]["desired"] == pytest.approx(expected_desired * 730, abs=0.01)
    assert "thirtyDayUsd" not in estimate.as_dict()


def test_a_tier_without_a_published_price_is_named_never_counted_as_zero(plans):
    estimate = estimate_cost(plans["nemo-p4de"])
    (unpriced,) = estimate.unpriced
    assert unpriced.item.startswith("FSx nemo-p4de-fsx") and "PERSISTENT_2 250" in unpriced.source
    assert estimate.as_dict()["complete"] is False
    assert estimate.as_dict()["unpriced"] == [unpriced.item]
    assert (f"at desired size: at least ${estimate.hourly('desired'):,.2f}/h, at least "
            f"${estimate.monthly('desired'):,.2f} per month (730 h); not priced, so not counted: {unpriced.item}"
            in estimate.render())


def test_fsdp_scales_the_p5_line_from_desired_to_max(plans):
    line = next(c for c in estimate_cost(plans["fsdp-p5"]).lines if c.item == "fsdp-p5-eks-p5 (p5.48xlarge)")
    assert (line.quantity_desired, line.quantity_max, line.unit_usd_per_hour) == (2, 16, 55.04)
    assert "2026-07-20" in line.source


def test_hyperpod_instances_are_priced_only_where_a_rate_was_found(plans):
    lines = {c.item: c for c in estimate_cost(plans["hyperpod"]).lines}
    assert lines["HyperPod worker-group-1 (ml.g5.8xlarge)"].unit_usd_per_hour is None  # us-west-2: none found
    assert ("no published price for ml.g5.8xlarge in us-west-2"
            in lines["HyperPod worker-group-1 (ml.g5.8xlarge)"].source)


def reference_chain_minutes(plan):
    """Network -> control plane -> slowest accelerated node group -> its device plugin release."""
    network = minutes(plan.by_type("aws:ec2/vpc:Vpc")[0]) + minutes(plan.by_type("aws:ec2/subnet:Subnet")[0])
    if plan.by_type("aws-native:sagemaker:Cluster"):
        return network + minutes(plan.by_type("aws-native:sagemaker:Cluster")[0])
    groups = [g for g in plan.by_type("aws:eks/nodeGroup:NodeGroup") if "system" not in g.name]
    plugin = max(minutes(r) for r in plan.by_type("kubernetes:helm.sh/v3:Release") if "plugin" in r.name
                 or r.name.endswith("-neuron"))
    return network + minutes(plan.by_type("eks:index:Cluster")[0]) + max(minutes(g) for g in groups) + plugin


@pytest.mark.parametrize("stack", ["dev", "nemo-p4de", "fsdp-p5", "trn1"])
def test_eks_stacks_deploy_within_a_tenth_of_their_reference_chain(plans, stack):
    path = critical_path(plans[stack])
    assert path.minutes <= 1.1 * reference_chain_minutes(plans[stack])
    assert path.serial_minutes > path.minutes + 15, "independent work must run side by side"


def test_nemo_critical_path_is_the_control_plane_then_the_gpu_group_then_its_plugin(plans):
    chain = critical_path(plans["nemo-p4de"]).chain
    assert [r.type for r in chain] == ["aws:kms/key:Key", "eks:index:Cluster", "aws:eks/addon:Addon",
                                       "aws:eks/nodeGroup:NodeGroup", "kubernetes:helm.sh/v3:Release"]
    assert chain[3].name == "nemo-p4de-eks-p4de"
    assert chain[4].inputs["chart"] in ("nvidia-device-plugin", "aws-efa-k8s-device-plugin")
    # FSx, IAM, ECR and the checkpoint bucket all run beside the cluster, off the chain.
    assert not {"aws:fsx/lustreFileSystem:LustreFileSystem", "aws:ecr/repository:Repository",
                "aws:s3/bucket:Bucket"} & {r.type for r in chain}


def test_hyperpod_waits_for_fsx_because_its_nodes_mount_it_through_the_api(plans):
    path = critical_path(plans["hyperpod"])
    types = [r.type for r in path.chain]
    assert types[0] == "aws:ec2/vpc:Vpc" and types[-2:] == ["aws:fsx/lustreFileSystem:LustreFileSystem",
                                                             "aws-native:sagemaker:Cluster"]
    assert path.minutes == pytest.approx(0.27 + 0.05 + 8 + 15 + 45, abs=0.1)
