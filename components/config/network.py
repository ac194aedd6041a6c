"""Where the cluster lives: a new VPC, or an existing VPC's subnets."""

from __future__ import annotations

import ipaddress
import re
from typing import Literal, Optional

from pydantic import Field, field_validator

from .base import ConfigModel, ConfigValueError

DEFAULT_VPC_CIDR = "10.0.0.0/16"
ZONE_PATTERN = r"^[a-z]{2}(-[a-z]+)+-\d+[a-z]?(-[a-z]+-\d+[a-z])?$"


def parse_ipv4_network(value: str) -> ipaddress.IPv4Network:
    try:
        return ipaddress.IPv4Network(value, strict=True)
    except ValueError as error:
        raise ConfigValueError(
            f"'{value}' is not an IPv4 CIDR block ({error}).",
            fix="write it as address/prefix with the host bits zero, for example 10.0.0.0/16.",
        ) from None


def _largest_private_prefix(vpc: ipaddress.IPv4Network, zones: int, public_prefix: int) -> int:
    """The largest private subnet (smallest prefix length) each zone can have beside its public one.

    Subnets are packed largest first, each aligned to its size (network/subnets.py),
    so blocks whose sizes add up to no more than the VPC always fit. When none does,
    the largest allowed prefix is returned and the caller's size check reports it.
    """
    for prefix in range(max(16, vpc.prefixlen), 27):
        if zones * (2 ** (32 - prefix) + 2 ** (32 - public_prefix)) <= vpc.num_addresses:
            return prefix
    return 26


class ExistingSubnet(ConfigModel):
    """A subnet of an existing VPC."""

    id: str = Field(pattern=r"^subnet-[0-9a-f]{8,17}$")
    """Subnet id, ``subnet-…``."""
    zone: str = Field(pattern=ZONE_PATTERN)
    """The subnet's availability zone; node groups, reservations and FSx are checked against it."""
    cidr: str
    """The subnet's IPv4 CIDR, used to check that node groups at max size fit its IPs."""

    @field_validator("cidr")
    @classmethod
    def _cidr(cls, value: str) -> str:
        parse_ipv4_network(value)
        return value


class ExistingVpc(ConfigModel):
    """An existing VPC to build in, with its subnets."""

    vpc_id: str = Field(pattern=r"^vpc-[0-9a-f]{8,17}$")
    """VPC id, ``vpc-…``."""
    private_subnets: list[ExistingSubnet] = Field(min_length=1)
    """Private subnets for nodes, FSx and HyperPod; at least one per zone used. A pool's part i takes its zone's
    subnet i mod n, in the order listed; everything else takes the zone's first (config/subnet_placement.py)."""
    public_subnets: list[ExistingSubnet] = []
    """Public subnets (load balancers only); optional."""

class NetworkConfig(ConfigModel):
    """A new VPC (``vpcCidr`` + ``zones``) or an existing one (``existingVpc``)."""

    vpc_cidr: Optional[str] = None
    """New VPC only: its IPv4 CIDR. Default 10.0.0.0/16."""
    zones: list[str] = []
    """New VPC only: availability zones for subnets (EKS needs two or more)."""
    private_subnet_prefix_length: Optional[int] = Field(default=None, ge=16, le=26)
    """New VPC only: size of each zone's private subnet, where nodes and pods take IPs.
    Default: the largest block that fits every zone beside its public subnet (/18 for two or
    three zones of a /16, /19 for four to six)."""
    public_subnet_prefix_length: int = Field(default=24, ge=16, le=28)
    """New VPC only: size of each zone's public subnet (NAT gateways, load balancers)."""
    nat_gateways: Optional[Literal["single", "perZone"]] = None
    """New VPC only: one NAT gateway for the VPC, or one per zone. Profile default:
    ``single`` for dev (cost), ``perZone`` for production (a zone outage keeps egress)."""
    interface_endpoints: bool = False
    """Add interface endpoints (ECR, STS, EC2, CloudWatch Logs, SSM) for closed networks."""
    existing_vpc: Optional[ExistingVpc] = None
    """Use this VPC and its subnets instead of creating one."""

    @field_validator("zones")
    @classmethod
    def _zones(cls, zones: list[str]) -> list[str]:
        for index, zone in enumerate(zones):
            if not re.match(ZONE_PATTERN, zone):
                raise ConfigValueError(f"'{zone}' is not an availability zone name.",
                                       fix="use a zone name such as us-east-1a.", path=(index,), value=zone)
        if len(set(zones)) != len(zones):
            raise ConfigValueError("a zone is listed twice.", fix="list each zone once.", value=zones)
        return zones

    @property
    def new_vpc_cidr(self) -> str:
        """New VPC only: its CIDR, given or the default."""
        return self.vpc_cidr or DEFAULT_VPC_CIDR

    @property
    def private_prefix(self) -> int:
        """New VPC only: the private subnets' prefix length, given or sized from the zones
        (valid once the model is validated: the CIDR parses)."""
        if self.existing_vpc is not None:
            raise ValueError("private_prefix is for a new VPC only")
        if self.private_subnet_prefix_length is not None:
            return self.private_subnet_prefix_length
        return _largest_private_prefix(parse_ipv4_network(self.new_vpc_cidr), len(self.zones),
                                       self.public_subnet_prefix_length)

    @property
    def private_zones(self) -> list[str]:
        """Zones that have a private subnet (where nodes, FSx and HyperPod can go)."""
        if self.existing_vpc is not None:
            return sorted({subnet.zone for subnet in self.existing_vpc.private_subnets})
        return list(self.zones)
