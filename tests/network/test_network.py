"""The network as planned: subnets per zone, NAT per profile, S3 endpoint, closed-network endpoints."""

import ipaddress

import pytest
from trainstack.network import Network, plan_subnets
from trainstack.plan import run_program

SUBNET, NAT, ROUTES = "aws:ec2/subnet:Subnet", "aws:ec2/natGateway:NatGateway", "aws:ec2/routeTable:RouteTable"


def plan_network(**settings):
    settings = {"zones": ["us-east-1a", "us-east-1b", "us-east-1c"], "natGateways": "single", **settings}
    return run_program(lambda: Network("net", {"settings": settings, "region": "us-east-1"}),
                       project="demo", stack="test")


def test_subnets_are_packed_without_overlap_inside_the_vpc():
    plans = plan_subnets("10.0.0.0/16", ["a", "b", "c"], 18, 24)
    blocks = [ipaddress.IPv4Network(c) for p in plans for c in (p.private_cidr, p.public_cidr)]
    assert [p.private_cidr for p in plans] == ["10.0.0.0/18", "10.0.64.0/18", "10.0.128.0/18"]
    assert [p.public_cidr for p in plans] == ["10.0.192.0/24", "10.0.193.0/24", "10.0.194.0/24"]
    assert all(b.subnet_of(ipaddress.IPv4Network("10.0.0.0/16")) for b in blocks)
    assert not any(a.overlaps(b) for i, a in enumerate(blocks) for b in blocks[i + 1:])


def test_each_zone_gets_a_private_and_a_public_subnet_tagged_for_load_balancers():
    plan = plan_network()
    subnets = {s.name: s.inputs for s in plan.by_type(SUBNET)}
    assert subnets["net-private-us-east-1b"]["availabilityZone"] == "us-east-1b"
    assert subnets["net-private-us-east-1b"]["tags"]["kubernetes.io/role/internal-elb"] == "1"
    assert subnets["net-public-us-east-1b"]["tags"]["kubernetes.io/role/elb"] == "1"
    assert len(subnets) == 6


def test_the_vpc_resolves_dns_as_a_private_endpoint_needs():
    vpc = plan_network().by_type("aws:ec2/vpc:Vpc")[0].inputs
    assert vpc["enableDnsHostnames"] is True and vpc["enableDnsSupport"] is True


@pytest.mark.parametrize("mode, count", [("single", 1), ("perZone", 3)])
def test_nat_gateways_follow_the_setting_and_every_private_zone_routes_through_one(mode, count):
    plan = plan_network(natGateways=mode)
    nats = plan.by_type(NAT)
    assert len(nats) == count
    private_routes = [r for r in plan.by_type(ROUTES) if "private" in r.name]
    assert len(private_routes) == 3
    assert {r.inputs["routes"][0]["natGatewayId"] for r in private_routes} == {n.id for n in nats}


def test_an_s3_gateway_endpoint_serves_every_private_route_table():
    plan = plan_network()
    (endpoint,) = plan.by_type("aws:ec2/vpcEndpoint:VpcEndpoint")
    assert endpoint.inputs["serviceName"] == "com.amazonaws.us-east-1.s3"
    assert endpoint.inputs["vpcEndpointType"] == "Gateway"
    assert sorted(endpoint.inputs["routeTableIds"]) == sorted(
        r.id for r in plan.by_type(ROUTES) if "private" in r.name)


def test_closed_networks_get_interface_endpoints_reachable_only_from_the_vpc():
    plan = plan_network(interfaceEndpoints=True)
    interface = [e for e in plan.by_type("aws:ec2/vpcEndpoint:VpcEndpoint")
                 if e.inputs["vpcEndpointType"] == "Interface"]
    services = {e.inputs["serviceName"].removeprefix("com.amazonaws.us-east-1.") for e in interface}
    assert {"ecr.api", "ecr.dkr", "sts", "eks-auth", "ec2", "autoscaling", "ssm"} <= services
    (rule,) = plan.by_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
    assert (rule.inputs["fromPort"], rule.inputs["toPort"], rule.inputs["cidrIpv4"]) == (443, 443, "10.0.0.0/16")


def test_an_existing_vpc_creates_nothing_and_uses_the_configured_subnets():
    settings = {"existingVpc": {"vpcId": "vpc-0123456789abcdef0", "privateSubnets": [
        {"id": "subnet-0123456789abcdef0", "zone": "us-east-1a", "cidr": "10.1.0.0/18"},
        {"id": "subnet-0123456789abcdef1", "zone": "us-east-1b", "cidr": "10.1.64.0/18"}]}}
    plan = run_program(lambda: Network("net", {"settings": settings, "region": "us-east-1"}),
                       project="demo", stack="test")
    assert [r.type for r in plan.resources] == ["pulumi:pulumi:Stack", "trainstack:index:Network"]
    assert plan.get("trainstack:index:Network", "net").outputs["privateSubnetIds"] == {
        "us-east-1a": "subnet-0123456789abcdef0", "us-east-1b": "subnet-0123456789abcdef1"}
