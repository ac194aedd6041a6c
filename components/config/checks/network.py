"""The checks of the network (``network``, config/network.py): a new VPC that holds its subnets, or an existing
VPC whose subnets do not overlap."""

from __future__ import annotations

from ...cidrs import first_overlap
from ..base import ConfigValueError
from ..network import ExistingVpc, NetworkConfig, parse_ipv4_network


def check_subnets_apart(vpc: ExistingVpc) -> None:
    """The subnets of one VPC never share an address (EC2 CreateSubnet: "A subnet CIDR block must not overlap the
    CIDR block of an existing subnet in the VPC", https://docs.aws.amazon.com/AWSEC2/latest/APIReference/
    API_CreateSubnet.html): two that do are a typo, and the IP budget would count the same addresses twice."""
    keyed = [("privateSubnets", index, subnet) for index, subnet in enumerate(vpc.private_subnets)]
    keyed += [("publicSubnets", index, subnet) for index, subnet in enumerate(vpc.public_subnets)]
    clash = first_overlap([subnet.cidr for _, _, subnet in keyed])
    if clash is not None:
        (key, index, subnet), (other_key, other_index, other) = keyed[clash[1]], keyed[clash[0]]
        raise ConfigValueError(
            f"{subnet.id} ({subnet.cidr}) shares addresses with {other_key}[{other_index}] {other.id} "
            f"({other.cidr}); the subnets of one VPC never overlap.",
            fix="copy each subnet's id and IPv4 CIDR as `aws ec2 describe-subnets --filters "
            "Name=vpc-id,Values=<vpcId>` lists them, each subnet once.",
            path=(key, index, "cidr"), value=subnet.cidr)


def check_new_or_existing(network: NetworkConfig) -> None:
    """An existing VPC, or a new one in two or more zones whose subnets fit its CIDR."""
    if network.existing_vpc is not None:
        if network.vpc_cidr is not None or network.zones:
            raise ConfigValueError(
                "existingVpc is set together with vpcCidr/zones; it is one or the other.",
                fix="remove vpcCidr and zones (the zones come from the existing subnets), "
                "or remove existingVpc to create a new VPC.",
                path=("existingVpc",),
                value={"vpcCidr": network.vpc_cidr, "zones": network.zones},
            )
        return
    if len(network.zones) < 2:
        raise ConfigValueError(
            "a new VPC needs at least two zones (EKS requires subnets in two availability zones).",
            fix="list two or more zones, for example [us-east-1a, us-east-1b].",
            path=("zones",),
            value=network.zones,
        )
    cidr = network.new_vpc_cidr
    try:
        vpc = parse_ipv4_network(cidr)
    except ConfigValueError as error:
        raise ConfigValueError(error.message, fix=error.fix, path=("vpcCidr",), value=cidr) from None
    if not 16 <= vpc.prefixlen <= 24:
        raise ConfigValueError(f"VPC CIDRs must be /16 to /24, got /{vpc.prefixlen}.",
                               fix="use a /16 to /24 block.", path=("vpcCidr",), value=cidr)
    private = network.private_prefix
    needed = len(network.zones) * (2 ** (32 - private) + 2 ** (32 - network.public_subnet_prefix_length))
    if needed > vpc.num_addresses:
        raise ConfigValueError(
            f"{len(network.zones)} zones x (a /{private} private + "
            f"/{network.public_subnet_prefix_length} public subnet) need {needed} addresses; "
            f"{cidr} has {vpc.num_addresses}.",
            fix="use a larger vpcCidr, fewer zones or smaller subnets (a larger "
            "privateSubnetPrefixLength, or leave it out to size it from the zones).",
            path=("privateSubnetPrefixLength",) if network.private_subnet_prefix_length else ("vpcCidr",),
            value=network.private_subnet_prefix_length or cidr,
        )
