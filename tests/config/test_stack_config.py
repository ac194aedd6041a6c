"""What a valid config resolves to: profile defaults, EFA defaults, both network shapes."""

import pytest
from trainstack import ConfigError, validate_stack_config
from trainstack.config import NodeGroupConfig, validate


def test_dev_profile_defaults_to_one_nat_and_a_public_allowlisted_endpoint(valid_config):
    config = validate_stack_config(valid_config)
    assert config.network.nat_gateways == "single"
    assert config.eks.endpoint_access == "publicAndPrivate"
    assert config.eks.public_access_cidrs == ["203.0.113.0/24"]


def test_production_profile_defaults_to_nat_per_zone_and_a_private_endpoint(valid_config):
    valid_config.update(profile="production", eks={})
    config = validate_stack_config(valid_config)
    assert config.network.nat_gateways == "perZone"
    assert config.eks.endpoint_access == "private"


def test_an_explicit_choice_beats_the_profile_default(valid_config):
    valid_config["network"]["natGateways"] = "perZone"
    assert validate_stack_config(valid_config).network.nat_gateways == "perZone"


def test_efa_defaults_on_for_efa_types_and_off_for_others(valid_config):
    valid_config["nodeGroups"].append(
        {"name": "small", "instanceType": "g5.2xlarge", "maxSize": 1, "zone": "us-east-1a"})
    efa_group, plain_group = validate_stack_config(valid_config).node_groups
    assert efa_group.efa_enabled is True
    assert plain_group.efa_enabled is False


def test_a_p6e_gb200_group_on_dra_gets_efa_and_100_pods_per_node(valid_config):
    # Its network facts are AWS's (catalog/p6e_gb200.py); card 0's 2 ENIs cap pods at 100, below EKS's 250.
    valid_config["nodeGroups"][0].update(instanceType="p6e-gb200.36xlarge", deviceAllocation="dra",
                                         minSize=1, desiredSize=1)
    group = validate(NodeGroupConfig, valid_config["nodeGroups"][0], prefix="group")
    assert group.efa_enabled is True
    assert (group.pods_per_node.value, group.pods_per_node.ceiling) == (100, 100)


def test_a_reservation_in_the_groups_zone_that_covers_max_size_is_accepted(valid_config):
    valid_config["nodeGroups"][0]["capacity"] = {
        "type": "reservation", "reservationId": "cr-0123456789abcdef0", "zone": "us-east-1a", "instanceCount": 2}
    capacity = validate_stack_config(valid_config).node_groups[0].capacity
    assert (capacity.type, capacity.reservation_id) == ("reservation", "cr-0123456789abcdef0")


def test_an_existing_vpc_supplies_the_zones_from_its_subnets(valid_config):
    valid_config["network"] = {"existingVpc": {"vpcId": "vpc-0123456789abcdef0", "privateSubnets": [
        {"id": "subnet-0123456789abcdef0", "zone": "us-east-1a", "cidr": "10.0.0.0/18"},
        {"id": "subnet-0123456789abcdef1", "zone": "us-east-1b", "cidr": "10.0.64.0/18"}]}}
    config = validate_stack_config(valid_config)
    assert config.zones == ["us-east-1a", "us-east-1b"]
    assert config.network.nat_gateways is None


def test_gib_keys_are_spelled_as_aws_spells_them(valid_config):
    valid_config["nodeGroups"][0]["rootVolume"] = {"sizeGiB": 800, "throughputMiBps": 500}
    volume = validate_stack_config(valid_config).node_groups[0].root_volume
    assert (volume.size_gib, volume.throughput_mibps) == (800, 500)


def test_library_callers_get_the_same_errors_with_their_own_path():
    with pytest.raises(ConfigError) as raised:
        validate(NodeGroupConfig, {"name": "gpu", "instance_type": "g5.2xlarge", "max_size": 1,
                                   "zone": "us-east-1a", "efa": True}, prefix="GpuNodeGroup(gpu)")
    assert raised.value.issues[0].path == "GpuNodeGroup(gpu):efa"
    assert "set efa: false" in raised.value.issues[0].fix


def test_python_callers_may_use_snake_case_names():
    group = NodeGroupConfig(name="gpu", instance_type="p4de.24xlarge", max_size=2, zone="us-east-1a")
    assert group.efa_enabled is True and group.instance.efa.max_interfaces == 4
