"""Pods per node: what the EFA layout leaves on card 0, capped by the EKS recommendation
(110, or 250 above 30 vCPUs, as the EKS max-pods calculator caps it), unless a group sets
its own maxPods, which may never exceed the layout's ceiling."""

import base64

import pytest
from trainstack import ConfigError
from trainstack.config import NodeGroupConfig, SystemNodesConfig, validate
from trainstack.nodegroups import ClusterAttachment, GpuNodeGroup
from trainstack.plan import run_program

LT = "aws:ec2/launchTemplate:LaunchTemplate"
ATTACHMENT = dict(cluster_name="train", kubernetes_version="1.35", cluster_security_group_id="sg-cluster",
                  efa_security_group_id="sg-efa", node_role_arn="arn:aws:iam::123456789012:role/nodes",
                  subnet_ids={"us-east-1a": "subnet-a"})

# (instance type, EFA, layout ceiling, EKS recommendation, maxPods), worked out by hand:
# ceiling = (ENIs on card 0 - EFA interfaces there) x (IPv4 per ENI - 1) + 2.
EXPECTED = [
    ("p4d.24xlarge", True, 14 * 49 + 2, 250, 250),
    ("p4de.24xlarge", True, 14 * 49 + 2, 250, 250),
    ("p5.48xlarge", True, 1 * 49 + 2, 250, 51),
    ("p5e.48xlarge", True, 1 * 49 + 2, 250, 51),
    ("p5en.48xlarge", True, 3 * 49 + 2, 250, 149),
    ("p6-b200.48xlarge", True, 3 * 49 + 2, 250, 149),
    ("p6-b300.48xlarge", True, 4 * 49 + 2, 250, 198),  # no EFA on card 0
    ("g5.xlarge", False, 4 * 14 + 2, 110, 58),
    ("g5.2xlarge", False, 4 * 14 + 2, 110, 58),
    ("g5.4xlarge", False, 8 * 29 + 2, 110, 110),
    ("g5.8xlarge", True, 7 * 29 + 2, 250, 205),  # 32 vCPUs: above 30
    ("g5.8xlarge", False, 8 * 29 + 2, 250, 234),
    ("g5.12xlarge", True, 14 * 49 + 2, 250, 250),
    ("g5.16xlarge", True, 7 * 29 + 2, 250, 205),
    ("g5.24xlarge", True, 14 * 49 + 2, 250, 250),
    ("g5.48xlarge", True, 6 * 49 + 2, 250, 250),
]


def group(instance_type, efa, **extra):
    return {"name": "gpu", "instanceType": instance_type, "maxSize": 2, "zone": "us-east-1a", "efa": efa, **extra}


def user_data_max_pods(settings) -> int:
    plan = run_program(lambda: GpuNodeGroup("gpu", {"settings": settings, "cluster": ClusterAttachment(**ATTACHMENT)}),
                       project="demo", stack="test")
    user_data = base64.b64decode(plan.get(LT, "gpu").inputs["userData"]).decode()
    return int(user_data.split("maxPods: ")[1].split("\n")[0])


@pytest.mark.parametrize("instance_type,efa,ceiling,recommended,max_pods", EXPECTED)
def test_max_pods_is_the_layout_ceiling_capped_by_the_eks_recommendation(instance_type, efa, ceiling, recommended,
                                                                        max_pods):
    pods = validate(NodeGroupConfig, group(instance_type, efa), prefix="group").pods_per_node
    assert (pods.ceiling, pods.recommended, pods.value, pods.source) == (ceiling, recommended, max_pods, "default")


@pytest.mark.parametrize("instance_type,max_pods", [("p4de.24xlarge", 250), ("p5en.48xlarge", 149),
                                                    ("g5.4xlarge", 110)])
def test_the_nodes_kubelet_gets_that_max_pods(instance_type, max_pods):
    assert user_data_max_pods(group(instance_type, None)) == max_pods


def test_a_groups_own_max_pods_may_exceed_the_recommendation_up_to_the_ceiling():
    settings = group("p4de.24xlarge", True, maxPods=688)
    pods = validate(NodeGroupConfig, settings, prefix="group").pods_per_node
    assert (pods.value, pods.source) == (688, "group setting")
    assert user_data_max_pods(settings) == 688


def test_a_groups_own_max_pods_above_the_ceiling_is_refused_with_the_ceiling():
    with pytest.raises(ConfigError) as raised:
        validate(NodeGroupConfig, group("p4de.24xlarge", True, maxPods=689), prefix="group")
    issue = raised.value.issues[0]
    assert issue.path == "group:maxPods" and issue.value == 689
    assert "at most 688 pods" in issue.message and "set maxPods to at most 688" in issue.fix


def test_the_ceiling_follows_the_layout_so_efa_on_card_0_lowers_it():
    validate(NodeGroupConfig, group("g5.8xlarge", False, maxPods=234), prefix="group")
    with pytest.raises(ConfigError, match="at most 205"):
        validate(NodeGroupConfig, group("g5.8xlarge", True, maxPods=234), prefix="group")


def test_system_nodes_follow_the_same_rule():
    assert validate(SystemNodesConfig, {}, prefix="system").pods_per_node.value == 58  # c5.2xlarge: 8 vCPUs, 4 ENIs
    assert validate(SystemNodesConfig, {"instanceType": "m5.8xlarge"}, prefix="system").pods_per_node.value == 234
    assert validate(SystemNodesConfig, {"instanceType": "c5.9xlarge"}, prefix="system").pods_per_node.value == 234
    assert validate(SystemNodesConfig, {"instanceType": "c5.24xlarge"}, prefix="system").pods_per_node.value == 250
    with pytest.raises(ConfigError, match="system:maxPods"):
        validate(SystemNodesConfig, {"maxPods": 59}, prefix="system")
