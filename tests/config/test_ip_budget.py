"""The IP budget follows how the VPC CNI holds addresses: the steady state must fit each
zone's private subnet at max size (else a refusal with the numbers), the worst case
(every node at maxPods) beyond it is a warning naming the settings to change, and
`trainstack plan` prints the budget per zone."""

import copy
import dataclasses
import json

import pytest
from trainstack import catalog, cli
from trainstack.catalog.efa_layout import plain_layout
from trainstack.config import ConfigError, VpcCniConfig, validate_stack_config
from trainstack.config.ip_budget import addresses_held, ip_budget

FOUR_ZONES = ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"]

# The FSDP-on-EKS walkthrough's layout: four zones, one p4de group of 64 in one zone.
WALKTHROUGH = {
    "profile": "dev",
    "region": "us-east-1",
    "network": {"zones": FOUR_ZONES},
    "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
    "nodeGroups": [{"name": "p4de", "instanceType": "p4de.24xlarge", "minSize": 0, "desiredSize": 0,
                    "maxSize": 64, "zone": "us-east-1b", "efa": True}],
}

# p3dn.24xlarge as docs/eni-and-ip-target.md of amazon-vpc-cni-k8s uses it: 15 ENIs of 50 IPv4 addresses.
P3DN = dataclasses.replace(catalog.get("m5.24xlarge"), name="p3dn.24xlarge",
                           network=catalog.Network(cards=1, enis_on_card0=15, ipv4_per_eni=50, max_pods=737))


def walkthrough(**network):
    config = copy.deepcopy(WALKTHROUGH)
    config["network"].update(network)
    return config


@pytest.mark.parametrize("pods,enis,pod_ips", [(0, 1, 49), (3, 2, 98), (95, 3, 147)])
def test_a_warm_eni_holds_what_the_vpc_cni_docs_table_shows(pods, enis, pod_ips):
    held = addresses_held(P3DN, plain_layout(), pods, VpcCniConfig(warm_eni_target=1))
    assert (held.extra_enis + 1, held.pod_ips) == (enis, pod_ips)


@pytest.mark.parametrize("pods,enis,pod_ips", [(0, 1, 10), (7, 1, 12), (15, 1, 20), (45, 2, 50)])
def test_ip_targets_hold_what_the_vpc_cni_docs_table_shows(pods, enis, pod_ips):
    held = addresses_held(P3DN, plain_layout(), pods, VpcCniConfig(warm_ip_target=5, minimum_ip_target=10))
    assert (held.extra_enis + 1, held.pod_ips) == (enis, pod_ips)


def test_a_node_never_holds_more_than_the_enis_left_on_card_0():
    p5 = catalog.get("p5.48xlarge")
    from trainstack.catalog.efa_layout import efa_layout
    held = addresses_held(p5, efa_layout(p5), 500, VpcCniConfig())
    assert (held.interfaces, held.extra_enis, held.pod_ips) == (1, 0, 49)  # one pod ENI beside the efa-only one


def test_64_p4de_nodes_fit_a_four_zone_vpc_with_default_subnets_at_steady_state():
    config = validate_stack_config(walkthrough())
    assert config.network.private_prefix == 19
    zone = next(z for z in ip_budget(config).zones if z.zone == "us-east-1b")
    p4de = zone.groups[1]
    # 6 DaemonSet pods + 8 workers, plus WARM_IP_TARGET 8: 22 pod IPs on the primary ENI.
    assert (p4de.max_pods.value, p4de.expected_pods) == (250, 14)
    assert (p4de.steady.interfaces, p4de.steady.extra_enis, p4de.steady.pod_ips) == (1, 0, 22)
    assert (zone.usable, zone.steady) == (8187, 64 * 23 + 240)
    # At 250 pods a node holds 258 pod IPs on 6 ENIs: past the subnet, hence a warning.
    assert (p4de.worst.extra_enis, p4de.worst.pod_ips, zone.worst) == (5, 258, 64 * 264 + 240)


def test_the_walkthrough_plans_with_the_budget_and_the_worst_case_warning_shown(scratch_project, capsys):
    project = scratch_project("fsdp", walkthrough(privateSubnetPrefixLength=19))

    assert cli.main(["plan", "--stack", "fsdp", "--cwd", project]) == 0

    out = capsys.readouterr().out
    assert "Pods per node and subnet addresses (VPC CNI: MINIMUM_IP_TARGET=16, WARM_IP_TARGET=8)" in out
    assert "p4de (p4de.24xlarge): maxPods 250 (smaller of layout ceiling 688 and EKS recommendation 250)" in out
    assert ("us-east-1b: 8187 usable; steady state 1712, worst case (maxPods everywhere) 17136  "
            "WARNING: worst case exceeds the subnet") in out
    assert "steady  p4de: 64 x (1 interface + 0 ENI + 22 pod IPs) = 1472" in out
    assert "us-east-1a: 8187 usable; steady state 240, worst case (maxPods everywhere) 240\n" in out
    warning = next(line for line in out.splitlines() if line.startswith("  warning: if every node ran maxPods"))
    assert "the nodes in us-east-1b would hold 17136 addresses but its private subnet holds 8187" in warning
    for setting in ("nodeGroups[].maxPods", "eks.vpcCni.warmIpTarget", "network.privateSubnetPrefixLength"):
        assert setting in warning


def test_the_plan_json_records_the_budget_per_zone(scratch_project, capsys):
    project = scratch_project("fsdp", walkthrough())
    assert cli.main(["plan", "--stack", "fsdp", "--cwd", project, "--json"]) == 0
    budget = json.loads(capsys.readouterr().out)["ipBudget"]
    assert budget["vpcCni"] == {"MINIMUM_IP_TARGET": "16", "WARM_IP_TARGET": "8"}
    zone = next(z for z in budget["zones"] if z["zone"] == "us-east-1b")
    assert (zone["usable"], zone["steady"], zone["worst"]) == (8187, 1712, 17136)
    p4de = zone["groups"][1]
    assert (p4de["maxPods"], p4de["maxPodsSource"], p4de["layoutCeiling"], p4de["eksRecommendation"]) == (
        250, "default", 688, 250)
    assert p4de["steadyPerNode"] == {"interfaces": 1, "extraEnis": 0, "podIps": 22, "total": 23}
    assert len(budget["warnings"]) == 1


def test_64_p5_nodes_in_a_zone_with_a_slash_24_are_refused_with_the_numbers(scratch_project, capsys):
    config = walkthrough(privateSubnetPrefixLength=24)
    config["nodeGroups"][0].update(name="p5", instanceType="p5.48xlarge")
    project = scratch_project("small", config)

    assert cli.main(["plan", "--stack", "small", "--cwd", project]) == 2

    stderr = capsys.readouterr().err
    assert "trainstack:nodeGroups[0].maxSize = 64" in stderr
    assert "the nodes in us-east-1b hold 1712 addresses at steady state" in stderr
    assert "but its private subnet holds 251" in stderr
    assert "p5: 64 x (1 interface + 0 ENI + 22 pod IPs) = 1472" in stderr
    assert "system nodes: 4 x (1 interface + 3 ENI + 56 pod IPs) = 240" in stderr


def test_a_spare_eni_per_node_as_the_cni_defaults_to_holds_more_and_can_be_refused():
    config = walkthrough()
    config["eks"]["vpcCni"] = {"warmEniTarget": 1}
    zone = next(z for z in ip_budget(validate_stack_config(config)).zones if z.zone == "us-east-1b")
    assert zone.groups[1].steady.total == 1 + 1 + 98  # two ENIs of 49 pod IPs each
    config["eks"]["vpcCni"] = {"warmEniTarget": 2}
    with pytest.raises(ConfigError) as raised:
        validate_stack_config(config)
    assert "p4de: 64 x (1 interface + 2 ENI + 147 pod IPs) = 9600" in raised.value.issues[0].message


def test_lower_ip_targets_lower_the_steady_state():
    config = walkthrough()
    config["eks"]["vpcCni"] = {"minimumIpTarget": 8, "warmIpTarget": 2}
    zone = next(z for z in ip_budget(validate_stack_config(config)).zones if z.zone == "us-east-1b")
    assert zone.groups[1].steady.pod_ips == 14 + 2


def test_a_lower_max_pods_removes_the_worst_case_warning():
    config = walkthrough()
    config["nodeGroups"][0]["maxPods"] = 100
    budget = ip_budget(validate_stack_config(config))
    assert next(z for z in budget.zones if z.zone == "us-east-1b").worst == 64 * (1 + 2 + 108) + 240
    assert budget.warnings() == []
