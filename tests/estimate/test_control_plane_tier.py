"""The control plane sized for the stack: eks.controlPlaneTier rendered on the cluster, a tier recommended from the
stack's node and pod counts (a warning when the configured one is below it), and the tier's cost line."""

from pathlib import Path
from typing import Any, Optional

import pulumi
import pytest
import yaml
from trainstack.analysis.planning import plan_stack
from trainstack.cluster.control_plane_tier import scaling_tier_transform
from trainstack.config import ConfigError, validate_stack_config
from trainstack.estimate.control_plane import TIER_UNPRICED
from trainstack.names import EKS_CLUSTER, GPU_EKS_CLUSTER_COMPONENT, NODE_GROUP
from trainstack.plan import Plan, find_project

from tests.support.scratch import REPO, write_stack


def shipped(stack: str) -> dict[str, Any]:
    document = yaml.safe_load((REPO / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    return {key.split(":", 1)[1]: value for key, value in document.items() if key.startswith("trainstack:")}


def planned(directory: Path, config: dict[str, Any]) -> Plan:
    directory.mkdir(parents=True, exist_ok=True)
    return plan_stack("variant", find_project(write_stack(directory, "variant", config)))


def fsdp_p5(max_sizes: list[int], tier: Optional[str] = None) -> dict[str, Any]:
    """fsdp-p5 with its p5 group as ``len(max_sizes)`` groups of those maxSizes, and ``tier`` if given."""
    config = shipped("fsdp-p5")
    group = config["nodeGroups"][0]
    config["nodeGroups"] = [{**group, "name": f"p5-{index}", "desiredSize": 0, "maxSize": size}
                            for index, size in enumerate(max_sizes)]
    if sum(max_sizes) > 64:
        # The zone's private subnet must hold every node's addresses at max size (config/ip_budget.py): an existing
        # VPC whose us-east-1a subnet is a /16.
        config["network"] = {"existingVpc": {"vpcId": "vpc-0a1b2c3d4e5f60718", "privateSubnets": [
            {"id": "subnet-0a1b2c3d4e5f60719", "zone": "us-east-1a", "cidr": "10.20.0.0/16"},
            {"id": "subnet-0a1b2c3d4e5f6071a", "zone": "us-east-1b", "cidr": "10.21.0.0/16"}]}}
    if tier is not None:
        config["eks"] = {**config["eks"], "controlPlaneTier": tier}
    return config


def section(plan: Plan) -> Optional[dict[str, Any]]:
    return plan.sections.as_dict().get("controlPlane")


def test_dev_needs_no_provisioned_tier_and_its_record_has_no_control_plane_section(tmp_path):
    assert section(planned(tmp_path / "plain", shipped("dev"))) is None
    config = shipped("dev")
    config["eks"] = {**config.get("eks", {}), "controlPlaneTier": "standard"}
    sizing = section(planned(tmp_path / "set", config))
    assert sizing is not None
    assert sizing["recommended"] == "standard" and sizing["configured"] == "standard" and sizing["warnings"] == []


def test_a_64_node_p5_stack_is_recommended_standard(tmp_path):
    sizing = section(planned(tmp_path, fsdp_p5([64], tier="standard")))
    assert sizing is not None
    # 64 p5 nodes x (1 launcher + 4 per-node EKS add-ons + the NVIDIA and EFA plugins) + 4 system nodes x 4.
    assert (sizing["nodes"], sizing["burstPods"]) == (68, 64 * 7 + 4 * 4)
    assert sizing["recommended"] == "standard" and sizing["warnings"] == []


def test_a_2048_node_p5_stack_is_recommended_tier_2xl_and_warned_when_left_on_standard(tmp_path):
    plan = planned(tmp_path, fsdp_p5([410] * 5))
    # The managed node groups the plan registers: the five p5 groups and the system nodes (4).
    assert sum(r.inputs["scalingConfig"]["maxSize"] for r in plan.resources if r.type == NODE_GROUP) == 2050 + 4
    sizing = section(plan)
    assert sizing is not None
    assert (sizing["nodes"], sizing["burstPods"]) == (2054, 2050 * 7 + 4 * 4)
    # 14,366 pods in 60 s is 239 pods/s: above standard's 50 and tier-xl's 167, within tier-2xl's 283.
    assert sizing["podsPerSecondNeeded"] == pytest.approx(239.4, abs=0.1)
    assert sizing["recommended"] == "tier-2xl" and sizing["configured"] is None
    assert sizing["warnings"] == [
        "eks.controlPlaneTier is unset (standard), below the recommended tier-2xl: 14,366 pods arrive together on "
        "2,054 nodes, 239 pods/s to bind them within 60 s. Set eks.controlPlaneTier: tier-2xl, or accept slower "
        "starts at full size."]
    assert "warning: eks.controlPlaneTier is unset (standard), below the recommended tier-2xl" in (
        plan.sections.as_dict()["controlPlane"]["text"])


def test_the_configured_tier_is_recorded_on_the_cluster_component_and_priced_as_unpriced(tmp_path):
    plan = planned(tmp_path, fsdp_p5([16], tier="tier-4xl"))
    cluster = next(r for r in plan.resources if r.type == GPU_EKS_CLUSTER_COMPONENT)
    assert cluster.inputs["controlPlaneTier"] == "tier-4xl"
    cost = plan.sections.as_dict()["cost"]
    line = next(line for line in cost["lines"] if line["item"] == "EKS Provisioned Control Plane (tier-4xl)")
    assert line["usdPerHour"] is None and line["source"] == TIER_UNPRICED and line["monthlyUsd"] is None
    assert "EKS Provisioned Control Plane (tier-4xl)" in cost["unpriced"] and not cost["complete"]
    sizing = section(plan)
    assert sizing is not None and sizing["configured"] == "tier-4xl" and sizing["warnings"] == []


def test_without_a_tier_the_cluster_component_records_no_tier_and_the_cost_has_no_tier_line(tmp_path):
    plan = planned(tmp_path, fsdp_p5([16]))
    cluster = next(r for r in plan.resources if r.type == GPU_EKS_CLUSTER_COMPONENT)
    assert "controlPlaneTier" not in cluster.inputs
    assert not [line for line in plan.sections.as_dict()["cost"]["lines"] if "Provisioned" in line["item"]]


def test_the_transform_sets_the_tier_on_the_eks_cluster_child_and_nothing_else():
    transform = scaling_tier_transform("tier-2xl")
    opts = pulumi.ResourceOptions()
    result = transform(pulumi.ResourceTransformArgs(True, EKS_CLUSTER, "c-eksCluster", {"name": "c"}, opts))
    assert isinstance(result, pulumi.ResourceTransformResult)
    assert result.props == {"name": "c", "controlPlaneScalingConfig": {"tier": "tier-2xl"}}
    assert transform(pulumi.ResourceTransformArgs(True, "aws:iam/role:Role", "r", {"name": "r"}, opts)) is None


def test_a_tier_eks_does_not_offer_is_refused_with_the_tiers_it_does():
    config = shipped("dev")
    config["eks"] = {**config.get("eks", {}), "controlPlaneTier": "tier-16xl"}
    with pytest.raises(ConfigError) as refused:
        validate_stack_config(config)
    text = str(refused.value)
    assert "eks.controlPlaneTier = 'tier-16xl'" in text
    assert "'tier-16xl' is not an EKS Provisioned Control Plane tier." in text
    assert "Fix: use one of standard, tier-xl, tier-2xl, tier-4xl, tier-8xl" in text
