"""Which private subnet each node group, and each part of a pool, is given: the one rule that the IP budget
(config/ip_budget.py) and the rendering (network/vpc.py, nodegroups/accelerated.py) both read, so the budget
counts exactly the subnets the nodes use.

A zone may have several private subnets (``network.existingVpc.privateSubnets``, in the order listed; a new VPC
makes one per zone). Rules:

* Part ``i`` of a managed node group (config/node_pool.py; a group made whole is part 0) gets the zone's subnet
  ``i mod n``. The rule reads only the part's own index and the zone's subnets, never the other groups, so
  adding, removing or reordering a group moves no other group's nodes. A managed node group's subnets cannot
  change in place: EKS's UpdateNodegroupConfig takes none, so terraform-provider-aws replaces the group when
  ``subnet_ids`` change (``internal/service/eks/node_group.go``, ``resourceNodeGroupUpdate``).
* Everything else takes the zone's first subnet: the system nodes (one per zone), Karpenter pools, HyperPod's
  instance groups, FSx and the control plane's interfaces.

A node's pods take their addresses from its own subnet: by default the VPC CNI creates a node's secondary network
interfaces "in the same subnet as the node's primary network interface" (EKS user guide, custom networking:
https://docs.aws.amazon.com/eks/latest/userguide/cni-custom-network.html), and trainstack does not turn custom
networking on. So addresses are budgeted per subnet.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from .network import NetworkConfig

AWS_RESERVED_PER_SUBNET = 5
"""Addresses AWS keeps in every subnet (VPC user guide, subnet-sizing.html)."""

FIRST = 0
"""The subnet everything but a managed group's later parts takes: the zone's first."""


@dataclass(frozen=True)
class PrivateSubnet:
    """One private subnet nodes may be given."""

    zone: str
    index: int
    """Its position among its zone's private subnets, in the order configured."""
    subnet_id: Optional[str]
    """Its id; None for a subnet this stack makes (a new VPC's, one per zone)."""
    usable: int
    """Addresses nodes may take: its size less AWS's five."""

    @property
    def label(self) -> str:
        """How the budget names it: the zone alone where the zone has one subnet made here."""
        return self.zone if self.subnet_id is None else f"{self.zone} {self.subnet_id}"


def private_subnets(network: NetworkConfig) -> dict[str, tuple[PrivateSubnet, ...]]:
    """Each zone's private subnets, in the order configured."""
    if network.existing_vpc is None:
        per_subnet = 2 ** (32 - network.private_prefix) - AWS_RESERVED_PER_SUBNET
        return {zone: (PrivateSubnet(zone, FIRST, None, per_subnet),) for zone in network.zones}
    found: dict[str, list[PrivateSubnet]] = {}
    for subnet in network.existing_vpc.private_subnets:
        same_zone = found.setdefault(subnet.zone, [])
        size = ipaddress.IPv4Network(subnet.cidr).num_addresses - AWS_RESERVED_PER_SUBNET
        same_zone.append(PrivateSubnet(subnet.zone, len(same_zone), subnet.id, size))
    return {zone: tuple(subnets) for zone, subnets in found.items()}


def part_subnet_index(part_index: int, subnets_in_zone: int) -> int:
    """The position, among its zone's private subnets, of the subnet part ``part_index`` of a managed node group
    is given (module docstring)."""
    if subnets_in_zone < 1:
        raise ValueError(f"a zone with {subnets_in_zone} private subnets gives a node group none")
    return part_index % subnets_in_zone
