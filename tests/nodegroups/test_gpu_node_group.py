"""GPU node groups as launched: the launch template's EFA interfaces per type,
capacity, placement, IMDS, root volume, pods per node, labels, taints, scale-from-zero tags."""

import base64
import re

import pytest
from trainstack import ConfigError
from trainstack.nodegroups import ClusterAttachment, GpuNodeGroup
from trainstack.plan import run_program

LT = "aws:ec2/launchTemplate:LaunchTemplate"
NG = "aws:eks/nodeGroup:NodeGroup"
ATTACHMENT = dict(cluster_name="train", kubernetes_version="1.35", cluster_security_group_id="sg-cluster",
                  efa_security_group_id="sg-efa",
                  node_role_arn="arn:aws:iam::123456789012:role/nodes", subnet_ids={"us-east-1a": "subnet-a"})


def plan_group(**settings):
    settings = {"name": "gpu", "zone": "us-east-1a", "maxSize": 2, **settings}
    return run_program(lambda: GpuNodeGroup("gpu", {"settings": settings, "cluster": ClusterAttachment(**ATTACHMENT)}),
                       project="demo", stack="test")


# The cards that carry EFA, written out from the EC2 and EKS documentation per type.
EFA_CARDS = {
    "p4d.24xlarge": range(4), "p4de.24xlarge": range(4), "p5.48xlarge": range(32), "p5e.48xlarge": range(32),
    "p5en.48xlarge": range(16), "p6-b200.48xlarge": range(8), "p6-b300.48xlarge": range(1, 17),
    "g6e.48xlarge": range(4), "g5.48xlarge": range(1),
}


@pytest.mark.parametrize("instance_type", sorted(EFA_CARDS))
def test_launch_template_lists_every_efa_interface_of_the_type(instance_type):
    interfaces = plan_group(instanceType=instance_type).get(LT, "gpu").inputs["networkInterfaces"]

    rendered = [(i["networkCardIndex"], i["deviceIndex"], i["interfaceType"]) for i in interfaces]
    expected = [(0, 0, "interface")] + [(card, 1 if card == 0 else 0, "efa-only") for card in EFA_CARDS[instance_type]]
    assert rendered == expected
    assert all(i["securityGroups"] == ["sg-cluster", "sg-efa"] for i in interfaces)
    assert not any("subnetId" in i for i in interfaces), "EKS rejects a subnet in the template"


def test_p5_48xlarge_gets_32_efa_interfaces_card_0_at_device_1_and_51_pods():
    plan = plan_group(instanceType="p5.48xlarge")
    interfaces = plan.get(LT, "gpu").inputs["networkInterfaces"]
    assert sum(i["interfaceType"] == "efa-only" for i in interfaces) == 32
    assert interfaces[1] == {**interfaces[1], "networkCardIndex": 0, "deviceIndex": 1}
    user_data = base64.b64decode(plan.get(LT, "gpu").inputs["userData"]).decode()
    assert "kind: NodeConfig" in user_data and "maxPods: 51\n" in user_data


def test_p6_b300_card_0_carries_only_the_plain_interface():
    interfaces = plan_group(instanceType="p6-b300.48xlarge").get(LT, "gpu").inputs["networkInterfaces"]
    assert [i["interfaceType"] for i in interfaces if i["networkCardIndex"] == 0] == ["interface"]


def test_imdsv2_is_required_with_an_explicit_hop_limit_and_the_root_volume_is_encrypted_gp3():
    template = plan_group(instanceType="p4de.24xlarge", rootVolume={"sizeGiB": 800}).get(LT, "gpu").inputs
    assert template["metadataOptions"] == {"httpEndpoint": "enabled", "httpTokens": "required",
                                           "httpPutResponseHopLimit": 1}
    (device,) = template["blockDeviceMappings"]
    assert device["ebs"]["volumeType"] == "gp3" and device["ebs"]["encrypted"] == "true"
    assert device["ebs"]["volumeSize"] == 800


def test_a_reservation_is_targeted_by_id_without_a_placement_group():
    plan = plan_group(instanceType="p4de.24xlarge", capacity={
        "type": "reservation", "reservationId": "cr-0123456789abcdef0", "zone": "us-east-1a", "instanceCount": 2})
    template = plan.get(LT, "gpu").inputs
    assert template["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef0"}}
    assert "instanceMarketOptions" not in template and "placement" not in template
    assert not plan.by_type("aws:ec2/placementGroup:PlacementGroup")
    assert plan.get(NG, "gpu").inputs["capacityType"] == "ON_DEMAND"


def test_a_reservation_group_is_targeted_by_its_arn():
    arn = "arn:aws:resource-groups:us-east-1:123456789012:group/p4de-pool"
    template = plan_group(instanceType="p4de.24xlarge", capacity={
        "type": "reservation", "resourceGroupArn": arn, "zone": "us-east-1a", "instanceCount": 4}).get(LT, "gpu")
    assert template.inputs["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationResourceGroupArn": arn}}


def test_a_capacity_block_uses_the_block_market_type_and_capacity_type():
    plan = plan_group(instanceType="p5.48xlarge", capacity={
        "type": "capacityBlock", "reservationId": "cr-0123456789abcdef0", "zone": "us-east-1a", "instanceCount": 2,
        "endsAt": "2026-12-01T11:30:00Z"})
    template = plan.get(LT, "gpu").inputs
    assert template["instanceMarketOptions"] == {"marketType": "capacity-block"}
    assert template["capacityReservationSpecification"]["capacityReservationTarget"] == {
        "capacityReservationId": "cr-0123456789abcdef0"}
    assert plan.get(NG, "gpu").inputs["capacityType"] == "CAPACITY_BLOCK"
    assert "placement" not in template


def test_plain_on_demand_efa_groups_get_a_cluster_placement_group():
    plan = plan_group(instanceType="p5.48xlarge")
    group = plan.get("aws:ec2/placementGroup:PlacementGroup", "gpu")
    assert group.inputs["strategy"] == "cluster"
    assert plan.get(LT, "gpu").inputs["placement"] == {"groupName": group.outputs["name"]}


def test_placement_group_can_be_turned_off():
    plan = plan_group(instanceType="p5.48xlarge", placementGroup=False)
    assert not plan.by_type("aws:ec2/placementGroup:PlacementGroup")


def test_a_group_without_efa_gets_the_cluster_security_group_and_no_interfaces():
    plan = plan_group(instanceType="g5.2xlarge")
    template = plan.get(LT, "gpu").inputs
    assert "networkInterfaces" not in template
    assert template["vpcSecurityGroupIds"] == ["sg-cluster"]
    assert "vpc.amazonaws.com/efa.present" not in plan.get(NG, "gpu").inputs["labels"]
    assert not plan.by_type("aws:ec2/placementGroup:PlacementGroup")


def test_node_group_runs_in_the_zone_subnet_on_the_nvidia_ami_with_labels_and_taint():
    group = plan_group(instanceType="p5.48xlarge", labels={"team": "llm"},
                       taints=[{"key": "dedicated", "value": "llm"}]).get(NG, "gpu")
    assert group.inputs["subnetIds"] == ["subnet-a"]
    assert group.inputs["amiType"] == "AL2023_x86_64_NVIDIA"
    assert group.inputs["instanceTypes"] == ["p5.48xlarge"]
    assert group.inputs["labels"] == {
        "team": "llm", "trainstack.io/node-group": "gpu", "trainstack.io/accelerator": "nvidia-gpu",
        "trainstack.io/efa-interfaces": "32", "vpc.amazonaws.com/efa.present": "true",
        "nvidia.com/gpu.present": "true"}
    assert group.inputs["taints"] == [{"key": "dedicated", "value": "llm", "effect": "NO_SCHEDULE"},
                                      {"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}]


def test_desired_size_is_left_to_the_autoscaler_after_creation():
    group = plan_group(instanceType="p5.48xlarge", minSize=0, desiredSize=2, maxSize=16).get(NG, "gpu")
    assert group.inputs["scalingConfig"] == {"minSize": 0, "desiredSize": 2, "maxSize": 16}
    assert group.options.ignore_changes == ["scalingConfig.desiredSize"]


def test_scale_from_zero_tags_advertise_gpus_efa_and_its_huge_pages_on_the_autoscaling_group():
    plan = plan_group(instanceType="p5.48xlarge")
    asg = plan.get(NG, "gpu").outputs["resources"][0]["autoscalingGroups"][0]["name"]
    tags = {t.inputs["tag"]["key"]: t.inputs["tag"]["value"] for t in plan.by_type("aws:autoscaling/tag:Tag")}
    assert tags == {"k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu": "8",
                    "k8s.io/cluster-autoscaler/node-template/resources/vpc.amazonaws.com/efa": "32",
                    "k8s.io/cluster-autoscaler/node-template/resources/hugepages-2Mi": "5120Mi"}
    assert {t.inputs["autoscalingGroupName"] for t in plan.by_type("aws:autoscaling/tag:Tag")} == {asg}


def test_a_trainium_type_is_not_a_gpu_group():
    with pytest.raises(ConfigError, match=re.escape("trn1.32xlarge has no nvidia-gpu accelerator")):
        GpuNodeGroup("trn", {"settings": {"name": "trn", "instanceType": "trn1.32xlarge", "zone": "us-east-1a",
                                          "maxSize": 1}, "cluster": ClusterAttachment(**ATTACHMENT)})


def test_a_label_trainstack_sets_itself_is_refused():
    with pytest.raises(ConfigError, match=re.escape("nvidia.com/gpu.present")):
        plan_group(instanceType="p5.48xlarge", labels={"nvidia.com/gpu.present": "false"})


def test_nodes_follow_the_control_plane_version():
    assert plan_group(instanceType="p5.48xlarge").get(NG, "gpu").inputs["version"] == "1.35"


def test_p5_nodes_of_a_stack_with_efa_enabled_fsx_bring_lnet_up_on_every_fourth_efa_device():
    """EKS User Guide, fsx-csi-tuning-efa: kefalnd on the primary interface, 8 of a p5's 32 EFA devices
    (one per PCI bus) in LNet's efa network, discovery on, EFA preferred; TCP kept for the rest."""
    import yaml
    from support.policy_stacks import PROJECT
    from trainstack import catalog
    from trainstack.nodegroups.lustre_efa_client import lustre_efa_client_script
    from trainstack.plan import run_plan

    plan = run_plan(PROJECT, "fsdp-p5")
    user_data = base64.b64decode(plan.get(LT, "fsdp-p5-eks-p5").inputs["userData"]).decode()
    script = user_data.split('Content-Type: text/x-shellscript; charset="us-ascii"\n\n')[1]
    # The script's own behaviour (every fourth EFA device, picked by driver) is run in test_lustre_efa_client_script.
    assert script.startswith(lustre_efa_client_script(catalog.get("p5.48xlarge")))
    assert yaml.safe_load(user_data.split("Content-Type: application/node.eks.aws\n\n")[1].split("--TRAINSTACK")[0])[
        "spec"]["instance"] == {"localStorage": {"strategy": "RAID0"}}


def test_without_efa_enabled_fsx_no_lustre_boot_script_is_added():
    from support.policy_stacks import PROJECT
    from trainstack.plan import run_plan

    plan = run_plan(PROJECT, "nemo-p4de")
    user_data = base64.b64decode(plan.get(LT, "nemo-p4de-eks-p4de").inputs["userData"]).decode()
    assert "text/x-shellscript" not in user_data and "kefalnd" not in user_data
