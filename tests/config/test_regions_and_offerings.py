"""A stack is only where AWS is: its region is one AWS has, its zones are that region's, and every
instance type it asks for is offered there, by the catalog's dated regions table and offering data
(components/catalog/aws_regions.json, ec2_instance_types.json). A group whose type AWS began offering
after the data says why in offeringUnchecked."""

import copy

import pytest
from trainstack.catalog import regions
from trainstack.config import ConfigError, validate_stack_config


def issue_of(config: dict) -> dict:
    with pytest.raises(ConfigError) as raised:
        validate_stack_config(config)
    (issue,) = raised.value.issues
    return issue.as_dict()


def in_region(config: dict, region: str, zones: list[str], group_zone: str | None = None) -> dict:
    config = copy.deepcopy(config)
    config["region"] = region
    config["network"] = {"zones": zones}
    for group in config.get("nodeGroups", []):
        group["zone"] = group_zone or zones[0]
    return config


def hyperpod_stack(region: str, zones: list[str], worker_type: str = "ml.p5.48xlarge", **worker) -> dict:
    return {"profile": "dev", "region": region, "network": {"zones": zones},
            "hyperpod": {"clusterName": "ml",
                         "controller": {"name": "controller", "instanceType": "ml.c5.xlarge", "count": 1},
                         "workers": [{"name": "gpu", "instanceType": worker_type, "count": 2, **worker}]}}


def test_a_region_aws_does_not_have_is_refused_with_every_region_it_has(valid_config):
    valid_config["region"] = "us-east-9"  # the old check let through any xx-name-N
    issue = issue_of(valid_config)
    assert issue["path"] == "trainstack:region" and issue["value"] == "us-east-9"
    assert "not an AWS region" in issue["message"] and regions.AS_OF.isoformat() in issue["message"]
    assert issue["fix"] == f"use one of {', '.join(regions.names())}."
    assert "us-west-2" in issue["fix"] and "eu-north-1" in issue["fix"]


def test_the_regions_table_is_botocores_aws_partition_and_says_its_date():
    import botocore.session

    partition = botocore.session.get_session().get_partition_for_region("us-east-1")
    assert partition == "aws"
    assert set(regions.names()) == set(botocore.session.get_session().get_available_regions("ec2", "aws"))
    assert regions.get("us-east-1").description == "US East (N. Virginia)"
    assert "generated" in regions.SOURCE and regions.AS_OF.isoformat() in regions.SOURCE


def test_a_zone_the_region_does_not_have_is_refused_where_zone_names_are_the_same_in_every_account(
        valid_config):
    # us-east-2 maps zone names uniformly: every account has us-east-2a to 2c, none has 2d.
    issue = issue_of(in_region(valid_config, "us-east-2", ["us-east-2a", "us-east-2d"]))
    assert issue["path"] == "trainstack:network.zones[1]" and issue["value"] == "us-east-2d"
    assert issue["fix"] == "use one of us-east-2a, us-east-2b, us-east-2c."


def test_zone_letters_are_not_judged_where_aws_maps_zone_names_per_account(valid_config):
    # us-west-1 maps names per account (AWS: Regions with independently mapped Availability Zones): older
    # accounts have us-west-1c, the data's account has 1a and 1b. Only the account can say (preflight).
    assert regions.get("us-west-1").zones == ("us-west-1a", "us-west-1b")
    config = in_region(valid_config, "us-west-1", ["us-west-1a", "us-west-1c"])
    validate_stack_config(config)


def test_a_zone_of_another_region_is_still_refused(valid_config):
    valid_config["network"]["zones"] = ["us-east-1a", "us-west-2b"]
    assert issue_of(valid_config)["path"] == "trainstack:network.zones[1]"


def test_existing_subnets_in_a_zone_the_region_does_not_have_are_refused(valid_config):
    valid_config = in_region(valid_config, "eu-west-3", ["eu-west-3a", "eu-west-3b"])
    valid_config["nodeGroups"][0]["instanceType"] = "g5.48xlarge"
    valid_config["network"] = {"existingVpc": {"vpcId": "vpc-0123456789abcdef0", "privateSubnets": [
        {"id": "subnet-0123456789abcdef0", "zone": "eu-west-3a", "cidr": "10.0.0.0/18"},
        {"id": "subnet-0123456789abcdef1", "zone": "eu-west-3d", "cidr": "10.0.64.0/18"}]}}
    issue = issue_of(valid_config)
    assert issue["path"] == "trainstack:network.existingVpc.privateSubnets[1].zone"
    assert issue["fix"] == "use one of eu-west-3a, eu-west-3b, eu-west-3c."


def test_a_type_the_region_does_not_offer_is_refused_with_the_regions_that_do(valid_config):
    issue = issue_of(in_region(valid_config, "eu-west-3", ["eu-west-3a", "eu-west-3b"]))
    assert issue["path"] == "trainstack:nodeGroups[0].instanceType" and issue["value"] == "p5.48xlarge"
    assert "p5.48xlarge is not offered in eu-west-3" in issue["message"]
    assert regions.AS_OF.isoformat() in issue["message"]
    assert "the regions that offer it: ap-northeast-1," in issue["message"] and "us-west-2." in issue["message"]
    assert "offeringUnchecked" in issue["fix"]


def test_a_type_the_groups_zone_does_not_offer_is_refused_with_the_zones_that_do(valid_config):
    # ap-northeast-2 maps names uniformly; EC2's offerings put p5.48xlarge in 2a only.
    issue = issue_of(in_region(valid_config, "ap-northeast-2", ["ap-northeast-2a", "ap-northeast-2b"],
                               group_zone="ap-northeast-2b"))
    assert issue["path"] == "trainstack:nodeGroups[0].instanceType"
    assert "not offered in ap-northeast-2b" in issue["message"]
    assert "the zones of ap-northeast-2 that offer it: ap-northeast-2a." in issue["message"]


def test_offering_unchecked_with_a_reason_lets_a_type_newer_than_the_data_through(valid_config):
    config = in_region(valid_config, "eu-west-3", ["eu-west-3a", "eu-west-3b"])
    config["nodeGroups"][0]["offeringUnchecked"] = "p5 offered in Paris since 2026-12 (AWS What's New)"
    assert validate_stack_config(config).node_groups[0].offering_unchecked.startswith("p5 offered")


def test_offering_unchecked_needs_a_reason(valid_config):
    valid_config["nodeGroups"][0]["offeringUnchecked"] = ""
    assert issue_of(valid_config)["path"] == "trainstack:nodeGroups[0].offeringUnchecked"


def test_system_nodes_must_be_offered_in_every_private_zone(valid_config):
    # me-central-1: c5.2xlarge (the default system type) is offered; m7a.large is not offered there at all.
    config = in_region(valid_config, "me-central-1", ["me-central-1a", "me-central-1b"])
    config["nodeGroups"] = []
    config["eks"]["systemNodes"] = {"instanceType": "m7a.large"}
    issue = issue_of(config)
    assert issue["path"] == "trainstack:eks.systemNodes.instanceType" and issue["value"] == "m7a.large"
    config["eks"]["systemNodes"]["offeringUnchecked"] = "offered since the data"
    validate_stack_config(config)


def test_hyperpod_types_are_judged_by_sagemakers_list_for_the_region_not_by_ec2s():
    # SageMaker offers ml.p5.48xlarge in eu-west-1, where EC2 offers accounts no p5.48xlarge: HyperPod runs in
    # SageMaker's capacity. ml.p5.48xlarge is not offered in ap-south-2 (cfn-lint's list, AWS pricing API).
    from trainstack import catalog

    assert not catalog.get("p5.48xlarge").offered_in("eu-west-1")
    validate_stack_config(hyperpod_stack("eu-west-1", ["eu-west-1a", "eu-west-1b"]))
    issue = issue_of(hyperpod_stack("ap-south-2", ["ap-south-2a", "ap-south-2b"]))
    assert issue["path"] == "trainstack:hyperpod.workers[0].instanceType" and issue["value"] == "ml.p5.48xlarge"
    assert "SageMaker HyperPod does not offer ml.p5.48xlarge in ap-south-2" in issue["message"]
    assert "the regions that offer it: ap-northeast-1," in issue["message"]
    validate_stack_config(hyperpod_stack("ap-south-2", ["ap-south-2a", "ap-south-2b"],
                                         offeringUnchecked="HyperPod p5 capacity in Hyderabad, confirmed by AWS"))


def test_hyperpod_in_a_region_without_it_is_refused():
    # SageMaker's per-region list of HyperPod types (cfn-lint, from the AWS pricing API) has none for eu-west-3.
    assert not regions.get("eu-west-3").hyperpod and regions.get("us-west-2").hyperpod
    issue = issue_of(hyperpod_stack("eu-west-3", ["eu-west-3a", "eu-west-3b"], "ml.g5.8xlarge"))
    assert issue["path"] == "trainstack:hyperpod" and "us-west-2" in issue["fix"]


def test_a_region_the_offering_data_does_not_cover_refuses_no_type(valid_config):
    # mx-central-1 is in botocore's regions but not in the EC2 offering snapshot: nothing is known, nothing refused.
    assert regions.get("mx-central-1").zones is None
    validate_stack_config(in_region(valid_config, "mx-central-1", ["mx-central-1a", "mx-central-1b"]))


def test_components_used_on_their_own_check_their_region_zones_and_types_the_same_way():
    # Nothing is registered: the arguments are refused first, with the component's name in the path.
    from trainstack import GpuEksCluster, HyperPodCluster, Network

    with pytest.raises(ConfigError) as raised:
        Network("net", {"settings": {"zones": ["us-east-2a", "us-east-2d"]}, "region": "us-east-2"})
    assert [i.path for i in raised.value.issues] == ["Network(net):settings.zones[1]"]
    with pytest.raises(ConfigError) as raised:
        Network("net", {"settings": {"zones": ["us-east-9a", "us-east-9b"]}, "region": "us-east-9"})
    assert [i.path for i in raised.value.issues] == ["Network(net):region"]
    with pytest.raises(ConfigError) as raised:
        GpuEksCluster("eks", {"settings": {}, "region": "eu-west-3", "cluster_name": "c", "vpc_id": "vpc-1",
                              "private_subnet_ids": {"eu-west-3a": "subnet-1", "eu-west-3b": "subnet-2"},
                              "node_groups": [{"name": "gpu", "instanceType": "p5.48xlarge", "maxSize": 1,
                                               "zone": "eu-west-3a"}]})
    assert [i.path for i in raised.value.issues] == ["GpuEksCluster(eks):nodeGroups[0].instanceType"]
    settings = hyperpod_stack("eu-west-3", ["eu-west-3a"], "ml.g5.8xlarge")["hyperpod"]
    with pytest.raises(ConfigError) as raised:
        HyperPodCluster("hp", {"settings": settings, "region": "eu-west-3", "subnet_id": "subnet-1",
                                "security_group_ids": ["sg-1"]})
    assert [i.path for i in raised.value.issues] == ["HyperPodCluster(hp):region"]


def test_a_hyperpod_group_with_a_training_plan_is_judged_by_its_plan_not_by_a_regions_list():
    # ml.p5e.48xlarge has no on-demand HyperPod price in any region; a training plan sells it.
    plan = "arn:aws:sagemaker:us-east-2:123456789012:training-plan/p5e-weekly-plan"
    assert issue_of(hyperpod_stack("us-east-2", ["us-east-2a", "us-east-2b"], "ml.p5e.48xlarge"))["path"] == \
        "trainstack:hyperpod.workers[0].instanceType"
    validate_stack_config(hyperpod_stack("us-east-2", ["us-east-2a", "us-east-2b"], "ml.p5e.48xlarge",
                                         trainingPlanArn=plan))
