"""Types the generated catalog added plan as a user would write them: g6e.12xlarge
(4 x L40S, EFA on its one card) gets a plain primary and one efa-only interface;
g6e.24xlarge puts EFA on both its cards; m7i system nodes and HyperPod ml.g6e
workers are accepted."""

import json

import pytest
from trainstack import catalog, cli, validate_stack_config


def _plan(scratch_project, capsys, config: dict) -> dict:
    project = scratch_project("generated", config)
    exit_code = cli.main(["plan", "--stack", "generated", "--cwd", project, "--json"])
    captured = capsys.readouterr()
    assert exit_code == 0, captured.err
    return json.loads(captured.out)


def _of_type(plan: dict, type_: str) -> list[dict]:
    return [r for r in plan["resources"] if r["type"] == type_]


def _interfaces(plan: dict) -> list[tuple[int, int, str]]:
    (template,) = [r for r in _of_type(plan, "aws:ec2/launchTemplate:LaunchTemplate")
                   if r["inputs"].get("networkInterfaces")]
    return [(i["networkCardIndex"], i["deviceIndex"], i["interfaceType"])
            for i in template["inputs"]["networkInterfaces"]]


@pytest.mark.parametrize("name", ["g6e.12xlarge", "g6e.24xlarge", "g7e.48xlarge", "g6.12xlarge", "g4dn.12xlarge",
                                  "p3dn.24xlarge", "g6e.2xlarge", "g5g.2xlarge", "inf2.24xlarge", "inf1.6xlarge"])
def test_newly_covered_types_validate_with_efa_on_exactly_when_ec2_says_they_support_it(valid_config, name):
    valid_config["nodeGroups"][0]["instanceType"] = name
    (group,) = validate_stack_config(valid_config).node_groups
    assert group.efa_enabled is catalog.get(name).efa.supported


@pytest.mark.parametrize("name, interfaces", [
    ("g6e.12xlarge", [(0, 0, "interface"), (0, 1, "efa-only")]),
    ("g6e.24xlarge", [(0, 0, "interface"), (0, 1, "efa-only"), (1, 0, "efa-only")]),
])
def test_g6e_plans_with_one_efa_only_interface_per_efa_card(valid_config, scratch_project, capsys, name, interfaces):
    valid_config["nodeGroups"][0]["instanceType"] = name
    valid_config["eks"]["systemNodes"] = {"instanceType": "m7i.2xlarge"}
    plan = _plan(scratch_project, capsys, valid_config)

    assert _interfaces(plan) == interfaces
    node_groups = {r["inputs"]["instanceTypes"][0]: r["inputs"]["amiType"]
                   for r in _of_type(plan, "aws:eks/nodeGroup:NodeGroup")}
    assert node_groups == {name: "AL2023_x86_64_NVIDIA", "m7i.2xlarge": "AL2023_x86_64_STANDARD"}
    assert [r["id"] for r in plan["policies"]["rules"] if not r["passed"]] == []
    (line,) = [line for line in plan["cost"]["lines"] if line["item"].endswith(f"({name})")]
    assert line["usdPerHour"] == catalog.get(name).price("us-east-1").usd_per_hour


def test_g5g_arm_gpus_get_the_arm_nvidia_ami(valid_config, scratch_project, capsys):
    valid_config["nodeGroups"][0]["instanceType"] = "g5g.2xlarge"
    plan = _plan(scratch_project, capsys, valid_config)
    ami_types = {r["inputs"]["instanceTypes"][0]: r["inputs"]["amiType"]
                 for r in _of_type(plan, "aws:eks/nodeGroup:NodeGroup")}
    assert ami_types["g5g.2xlarge"] == "AL2023_ARM_64_NVIDIA"


def test_hyperpod_accepts_ml_g6e_12xlarge_workers(scratch_project, capsys):
    config = {
        "profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
        "hyperpod": {"orchestrator": "slurm", "clusterName": "dev",
                     "controller": {"name": "controller", "instanceType": "ml.m7i.xlarge", "count": 1},
                     "workers": [{"name": "l40s", "instanceType": "ml.g6e.12xlarge", "count": 2, "partition": "dev"}]},
    }
    plan = _plan(scratch_project, capsys, config)
    (cluster,) = _of_type(plan, "aws-native:sagemaker:Cluster")
    groups = {g["instanceGroupName"]: g["instanceType"] for g in cluster["inputs"]["instanceGroups"]}
    assert groups == {"controller": "ml.m7i.xlarge", "l40s": "ml.g6e.12xlarge"}
