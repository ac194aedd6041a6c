"""Default private subnets follow the number of zones, so 2 to 6 zones fit the default
10.0.0.0/16; explicit sizes still win and are still checked."""

import ipaddress

import pytest
from trainstack import cli
from trainstack.config import ConfigError, validate_stack_config
from trainstack.network import plan_subnets

ZONES = ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d", "us-east-1e", "us-east-1f"]


def network(**settings):
    return validate_stack_config({"profile": "dev", "region": "us-east-1", "network": settings}).network


@pytest.mark.parametrize("zones,prefix", [(2, 18), (3, 18), (4, 19), (5, 19), (6, 19)])
def test_default_private_subnets_are_the_largest_that_fit_every_zone(zones, prefix):
    settings = network(zones=ZONES[:zones])
    assert (settings.new_vpc_cidr, settings.private_prefix) == ("10.0.0.0/16", prefix)
    plans = plan_subnets(settings.new_vpc_cidr, settings.zones, settings.private_prefix,
                         settings.public_subnet_prefix_length)
    blocks = [ipaddress.IPv4Network(c) for p in plans for c in (p.private_cidr, p.public_cidr)]
    assert all(b.subnet_of(ipaddress.IPv4Network("10.0.0.0/16")) for b in blocks)
    assert not any(a.overlaps(b) for i, a in enumerate(blocks) for b in blocks[i + 1:])


def test_a_smaller_vpc_gets_smaller_default_subnets():
    assert network(zones=ZONES[:2], vpcCidr="10.1.0.0/20").private_prefix == 22


def test_explicit_sizes_win():
    assert network(zones=ZONES[:4], privateSubnetPrefixLength=20).private_prefix == 20


def test_explicit_sizes_that_do_not_fit_are_refused_on_their_key():
    with pytest.raises(ConfigError) as raised:
        network(zones=ZONES[:4], privateSubnetPrefixLength=18)
    issue = raised.value.issues[0]
    assert issue.path == "trainstack:network.privateSubnetPrefixLength" and issue.value == 18
    assert "4 zones x (a /18 private + /24 public subnet) need 66560 addresses" in issue.message


def test_a_four_zone_vpc_with_default_subnets_plans(scratch_project, valid_config, capsys):
    valid_config["network"]["zones"] = ZONES[:4]
    project = scratch_project("four", valid_config)
    assert cli.main(["plan", "--stack", "four", "--cwd", project]) == 0
    out = capsys.readouterr().out
    for block in ("10.0.0.0/19", "10.0.32.0/19", "10.0.64.0/19", "10.0.96.0/19"):
        assert f'cidrBlock="{block}"' in out
