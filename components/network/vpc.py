"""Network: the VPC the cluster lives in, new or existing.

New VPC, per zone: a private subnet (nodes, pods, FSx, HyperPod) and a public
subnet (NAT gateways, internet-facing load balancers); one NAT gateway for the
VPC or one per zone; an S3 gateway endpoint so dataset and checkpoint traffic
skips NAT charges; optionally interface endpoints for closed networks.
Existing VPC: nothing is created; the subnets from the config are used.
"""

from __future__ import annotations

from typing import Optional, TypedDict

import pulumi
import pulumi_aws as aws

from ..config import ExistingVpc, NetworkConfig, validate
from ..config.component_args import check_args
from ..config.offerings import check_component, network_zones
from ..config.subnet_placement import FIRST
from ..names import NETWORK_COMPONENT
from .subnets import plan_subnets

# Interface endpoints a node in a VPC without internet egress needs: image pulls
# (ECR + S3), credentials (STS, Pod Identity), EC2 and autoscaling APIs for the
# VPC CNI and the Cluster Autoscaler, logs, SSM for node access, and the EKS API.
INTERFACE_ENDPOINT_SERVICES = (
    "ecr.api", "ecr.dkr", "sts", "eks", "eks-auth", "ec2", "autoscaling", "logs", "ssm", "ssmmessages",
    "ec2messages", "elasticloadbalancing",
)


class NetworkArgs(TypedDict):
    """The ``network`` config block and the stack's region."""

    settings: NetworkConfig | dict
    """The ``network`` config block."""
    region: str
    """The stack's region: its zones are checked against ``settings``, and a new VPC's endpoints are of it."""


class Network(pulumi.ComponentResource):
    """A new VPC with private and public subnets per zone sized for nodes and pods, or an existing one."""

    vpc_id: pulumi.Output[str]
    private_subnet_ids: dict[str, pulumi.Output[str]]
    """Private subnet id per availability zone: the zone's first (config/subnet_placement.py)."""
    public_subnet_ids: dict[str, pulumi.Output[str]]

    def __init__(self, name: str, args: NetworkArgs, opts: Optional[pulumi.ResourceOptions] = None):
        check_args(f"Network({name})", NetworkArgs, args)
        settings = validate(NetworkConfig, args["settings"], prefix=f"Network({name})", at=("settings",))
        check_component(f"Network({name})", args["region"], zones=network_zones(settings, ("settings",)))
        super().__init__(NETWORK_COMPONENT, name, {}, opts)
        self.vpc: Optional[aws.ec2.Vpc] = None
        """The VPC made here (``aws.ec2.Vpc``); None where ``settings.existingVpc`` names one made elsewhere."""
        self.private_subnets_by_zone: dict[str, list[pulumi.Output[str]]] = {}
        """Every private subnet id per availability zone, in the order configured: a node group pool's parts spread
        over them (config/subnet_placement.py). Not a class annotation: the component package serves those as the
        component's outputs, and its schema has no list of outputs inside a map."""
        if settings.existing_vpc is not None:
            self._use_existing(settings.existing_vpc)
        else:
            self._create(name, settings, args["region"])
        self.register_outputs({"vpcId": self.vpc_id, "privateSubnetIds": self.private_subnet_ids,
                               "publicSubnetIds": self.public_subnet_ids})

    def _use_existing(self, existing: ExistingVpc) -> None:
        self.vpc_id = pulumi.Output.from_input(existing.vpc_id)
        # Every private subnet per zone, in the order listed: a pool's parts spread over them; everything else takes
        # the zone's first (config/subnet_placement.py, which the IP budget reads too).
        self.private_subnets_by_zone = {}
        for subnet in existing.private_subnets:
            self.private_subnets_by_zone.setdefault(subnet.zone, []).append(pulumi.Output.from_input(subnet.id))
        self.private_subnet_ids = {zone: ids[FIRST] for zone, ids in self.private_subnets_by_zone.items()}
        self.public_subnet_ids = {s.zone: pulumi.Output.from_input(s.id) for s in existing.public_subnets}

    def _create(self, name: str, settings: NetworkConfig, region: str) -> None:
        child = pulumi.ResourceOptions(parent=self)
        # DNS hostnames and support are required for a private EKS endpoint and for
        # interface endpoints' private DNS.
        vpc = aws.ec2.Vpc(name, cidr_block=settings.new_vpc_cidr, enable_dns_hostnames=True,
                          enable_dns_support=True, tags={"Name": name}, opts=child)
        self.vpc, self.vpc_id = vpc, vpc.id
        gateway = aws.ec2.InternetGateway(name, vpc_id=vpc.id, tags={"Name": name}, opts=child)
        public_routes = aws.ec2.RouteTable(
            f"{name}-public", vpc_id=vpc.id, routes=[{"cidr_block": "0.0.0.0/0", "gateway_id": gateway.id}],
            tags={"Name": f"{name}-public"}, opts=child)

        self.private_subnet_ids, self.public_subnet_ids, self.private_subnets_by_zone = {}, {}, {}
        private_routes: list[aws.ec2.RouteTable] = []
        nat: Optional[aws.ec2.NatGateway] = None
        plans = plan_subnets(settings.new_vpc_cidr, settings.zones, settings.private_prefix,
                             settings.public_subnet_prefix_length)
        for plan in plans:
            zone = plan.zone
            public = aws.ec2.Subnet(
                f"{name}-public-{zone}", vpc_id=vpc.id, cidr_block=plan.public_cidr, availability_zone=zone,
                tags={"Name": f"{name}-public-{zone}", "kubernetes.io/role/elb": "1"}, opts=child)
            private = aws.ec2.Subnet(
                f"{name}-private-{zone}", vpc_id=vpc.id, cidr_block=plan.private_cidr, availability_zone=zone,
                tags={"Name": f"{name}-private-{zone}", "kubernetes.io/role/internal-elb": "1"}, opts=child)
            self.public_subnet_ids[zone], self.private_subnet_ids[zone] = public.id, private.id
            self.private_subnets_by_zone[zone] = [private.id]
            aws.ec2.RouteTableAssociation(f"{name}-public-{zone}", subnet_id=public.id,
                                          route_table_id=public_routes.id, opts=child)
            if nat is None or settings.nat_gateways == "perZone":
                address = aws.ec2.Eip(f"{name}-nat-{zone}", domain="vpc", tags={"Name": f"{name}-nat-{zone}"},
                                      opts=child)
                nat = aws.ec2.NatGateway(
                    f"{name}-{zone}", subnet_id=public.id, allocation_id=address.id,
                    tags={"Name": f"{name}-{zone}"}, opts=pulumi.ResourceOptions(parent=self, depends_on=[gateway]))
            routes = aws.ec2.RouteTable(
                f"{name}-private-{zone}", vpc_id=vpc.id, routes=[{"cidr_block": "0.0.0.0/0", "nat_gateway_id": nat.id}],
                tags={"Name": f"{name}-private-{zone}"}, opts=child)
            private_routes.append(routes)
            aws.ec2.RouteTableAssociation(f"{name}-private-{zone}", subnet_id=private.id,
                                          route_table_id=routes.id, opts=child)

        aws.ec2.VpcEndpoint(
            f"{name}-s3", vpc_id=vpc.id, service_name=f"com.amazonaws.{region}.s3", vpc_endpoint_type="Gateway",
            route_table_ids=[r.id for r in private_routes], tags={"Name": f"{name}-s3"}, opts=child)
        if settings.interface_endpoints:
            self._interface_endpoints(name, vpc, region, list(self.private_subnet_ids.values()))

    def _interface_endpoints(self, name: str, vpc: aws.ec2.Vpc, region: str,
                             subnet_ids: list[pulumi.Output[str]]) -> None:
        child = pulumi.ResourceOptions(parent=self)
        group = aws.ec2.SecurityGroup(f"{name}-endpoints", vpc_id=vpc.id,
                                      description="HTTPS from the VPC to AWS interface endpoints", opts=child)
        aws.vpc.SecurityGroupIngressRule(f"{name}-endpoints-https", security_group_id=group.id,
                                         cidr_ipv4=vpc.cidr_block, ip_protocol="tcp", from_port=443, to_port=443,
                                         description="HTTPS from inside the VPC", opts=child)
        for service in INTERFACE_ENDPOINT_SERVICES:
            aws.ec2.VpcEndpoint(
                f"{name}-{service.replace('.', '-')}", vpc_id=vpc.id, service_name=f"com.amazonaws.{region}.{service}",
                vpc_endpoint_type="Interface", private_dns_enabled=True, subnet_ids=subnet_ids,
                security_group_ids=[group.id], tags={"Name": f"{name}-{service}"}, opts=child)
