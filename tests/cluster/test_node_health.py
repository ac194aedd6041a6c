"""Faults on EKS: the node monitoring agent notices them on every stack with accelerated
groups, node auto repair replaces the node, per group; both switch off, and are then
absent from the plan."""

import copy
import json
from pathlib import Path

import pytest
from support.scratch import plan_config
from trainstack.plan import find_project, run_plan

PROJECT = find_project(Path(__file__).resolve().parents[2])
ADDON, NG = "aws:eks/addon:Addon", "aws:eks/nodeGroup:NodeGroup"
EKS_STACKS = ["dev", "fsdp-p5", "nemo-p4de", "trn1"]
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}

DEV = {
    "profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
    "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
    "nodeGroups": [{"name": "gpu", "instanceType": "p5.48xlarge", "maxSize": 2, "zone": "us-east-1a"},
                   {"name": "spare", "instanceType": "p5.48xlarge", "maxSize": 1, "zone": "us-east-1a"}],
}


@pytest.fixture(scope="module", params=EKS_STACKS)
def shipped(request):
    return run_plan(PROJECT, request.param)


def agent(plan):
    return [a for a in plan.by_type(ADDON) if a.inputs["addonName"] == "eks-node-monitoring-agent"]


def test_every_shipped_eks_stack_runs_the_agent_after_the_system_nodes(shipped):
    (addon,) = agent(shipped)
    system = next(g for g in shipped.by_type(NG) if g.name.endswith("-system"))
    assert addon.dependencies == [system.urn]
    assert addon.inputs["resolveConflictsOnCreate"] == "OVERWRITE"


def test_every_group_of_every_shipped_eks_stack_is_auto_repaired(shipped):
    groups = shipped.by_type(NG)
    assert len(groups) >= 2  # the system group and at least one accelerated group
    for group in groups:
        assert group.inputs["nodeRepairConfig"] == {"enabled": True}, group.name
    for name, facts in shipped.outputs["trainstack"]["acceleratedGroups"].items():
        assert facts["autoRepair"] is True, name
    assert shipped.outputs["trainstack"]["cluster"]["nodeMonitoringAgent"] is True


def test_on_gpu_nodes_the_agents_dcgm_host_engine_tolerates_the_gpu_taint():
    gpu, neuron = run_plan(PROJECT, "fsdp-p5"), run_plan(PROJECT, "trn1")
    (addon,) = agent(gpu)
    assert json.loads(addon.inputs["configurationValues"]) == {"dcgmAgent": {"tolerations": [GPU_TOLERATION]}}
    taint = gpu.get(NG, "fsdp-p5-eks-p5").inputs["taints"][0]
    assert taint["key"] == GPU_TOLERATION["key"] and taint["effect"] == "NO_SCHEDULE"
    (addon,) = agent(neuron)
    assert "configurationValues" not in addon.inputs


def test_the_agent_and_repair_switch_off_per_cluster_and_per_group(tmp_path):
    config = copy.deepcopy(DEV)
    config["eks"].update(nodeMonitoringAgent=False, systemNodes={"autoRepair": False})
    config["nodeGroups"][1]["autoRepair"] = False
    plan = plan_config(tmp_path, "off", config)

    assert agent(plan) == []
    repair = {g.name: g.inputs["nodeRepairConfig"] for g in plan.by_type(NG)}
    # Rendered as enabled: false: leaving it out would keep whatever the group had.
    assert repair == {"off-eks-system": {"enabled": False}, "off-eks-gpu": {"enabled": True},
                      "off-eks-spare": {"enabled": False}}
    contract = plan.outputs["trainstack"]
    assert contract["cluster"]["nodeMonitoringAgent"] is False
    assert {n: g["autoRepair"] for n, g in contract["acceleratedGroups"].items()} == {"gpu": True, "spare": False}


def test_a_pinned_agent_version_reaches_the_addon(tmp_path):
    config = copy.deepcopy(DEV)
    config["eks"]["addonVersions"] = {"eksNodeMonitoringAgent": "v1.7.0-eksbuild.1"}
    (addon,) = agent(plan_config(tmp_path, "pinned", config))
    assert addon.inputs["addonVersion"] == "v1.7.0-eksbuild.1"


def test_a_cluster_without_accelerated_groups_runs_no_agent(tmp_path):
    config = copy.deepcopy(DEV)
    config["nodeGroups"] = []
    plan = plan_config(tmp_path, "bare", config)
    assert agent(plan) == []
    assert plan.outputs["trainstack"]["cluster"]["nodeMonitoringAgent"] is False


def test_a_groups_node_repair_settings_reach_its_managed_node_group(tmp_path):
    config = copy.deepcopy(DEV)
    config["nodeGroups"][0]["nodeRepair"] = {"maxUnhealthyPercent": 20, "overrides": [
        {"condition": "AcceleratedHardwareReady", "reason": "NvidiaXID79Error", "waitMinutes": 10,
         "action": "Reboot"}]}
    plan = plan_config(tmp_path, "tuned", config)
    repair = {g.name: g.inputs["nodeRepairConfig"] for g in plan.by_type(NG)}
    assert repair["tuned-eks-gpu"] == {"enabled": True, "maxUnhealthyNodeThresholdPercentage": 20,
                                       "nodeRepairConfigOverrides": [
                                           {"nodeMonitoringCondition": "AcceleratedHardwareReady",
                                            "nodeUnhealthyReason": "NvidiaXID79Error", "minRepairWaitTimeMins": 10,
                                            "repairAction": "Reboot"}]}
    assert repair["tuned-eks-spare"] == {"enabled": True}
