"""Carving a new VPC's CIDR into per-zone private and public subnets."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass


@dataclass(frozen=True)
class SubnetPlan:
    zone: str
    private_cidr: str
    public_cidr: str


def plan_subnets(vpc_cidr: str, zones: list[str], private_prefix: int, public_prefix: int) -> list[SubnetPlan]:
    """Private subnets first (largest blocks, where nodes and pods live), then public.

    Blocks are packed largest first so every block is aligned to its size; the
    config already checked that they fit.
    """
    vpc = ipaddress.IPv4Network(vpc_cidr)
    requests = sorted(
        [(private_prefix, zone, "private") for zone in zones] + [(public_prefix, zone, "public") for zone in zones],
        key=lambda request: request[0])
    cursor = int(vpc.network_address)
    allocated: dict[tuple[str, str], str] = {}
    for prefix, zone, kind in requests:
        block = ipaddress.IPv4Network((cursor, prefix))
        allocated[(zone, kind)] = str(block)
        cursor += block.num_addresses
    return [SubnetPlan(zone, allocated[(zone, "private")], allocated[(zone, "public")]) for zone in zones]
