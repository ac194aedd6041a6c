"""Do the node groups fit their subnets' IPs at max size?

Each node takes one IP per IP-carrying interface (``efa-only`` takes none) and one
per pod it can run (pods per node after the EFA layout). System nodes may all
land in any one zone, so every zone's budget includes them at max size.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Optional

from .. import catalog
from ..catalog.efa_layout import layout_for, max_pods
from .base import ConfigValueError

if TYPE_CHECKING:
    from .stack import StackConfig

AWS_RESERVED_PER_SUBNET = 5


def usable_ips_by_zone(config: StackConfig) -> dict[str, int]:
    network = config.network
    if network.existing_vpc is None:
        per_subnet = 2 ** (32 - network.private_subnet_prefix_length) - AWS_RESERVED_PER_SUBNET
        return {zone: per_subnet for zone in network.zones}
    usable: dict[str, int] = {}
    for subnet in network.existing_vpc.private_subnets:
        size = ipaddress.IPv4Network(subnet.cidr).num_addresses - AWS_RESERVED_PER_SUBNET
        usable[subnet.zone] = usable.get(subnet.zone, 0) + size
    return usable


def _per_node(instance_type: str, efa: bool, path: tuple) -> tuple[int, int]:
    """(interface IPs, pod IPs) one node takes."""
    instance = catalog.get(instance_type)
    try:
        layout = layout_for(instance, efa)
        return sum(1 for slot in layout if slot.takes_ip), max_pods(instance, layout)
    except catalog.UnknownFactError as error:
        raise ConfigValueError(f"{error} Its subnet IPs and pods per node cannot be sized.",
                               fix="use an instance type whose network facts are in the catalog.",
                               path=path, value=instance_type) from None


def ip_needs_by_zone(config: StackConfig) -> dict[str, tuple[int, list[str], Optional[int]]]:
    """Per zone: (IPs the nodes need at max size, how that adds up, index of the largest group)."""
    if config.eks is None:
        return {}
    system = config.eks.system_nodes
    system_interface, system_pods = _per_node(system.instance_type, False, ("eks", "systemNodes", "instanceType"))
    system_need = system.max_size * (system_interface + system_pods)
    needs = {}
    for zone in config.network.private_zones:
        lines = [f"system nodes: {system.max_size} x ({system_interface} + {system_pods}) = {system_need}"]
        need, largest = system_need, None
        for index, group in enumerate(config.node_groups):
            if group.zone != zone:
                continue
            interface_ips, pod_ips = _per_node(group.instance_type, bool(group.efa),
                                               ("nodeGroups", index, "instanceType"))
            group_need = group.max_size * (interface_ips + pod_ips)
            lines.append(f"{group.name}: {group.max_size} x ({interface_ips} interface + {pod_ips} pod IPs) "
                         f"= {group_need}")
            need += group_need
            if largest is None or group_need > largest[1]:
                largest = (index, group_need)
        needs[zone] = (need, lines, largest[0] if largest else None)
    return needs


def check_ip_budget(config: StackConfig) -> None:
    usable_by_zone = usable_ips_by_zone(config)
    for zone, (need, lines, largest) in ip_needs_by_zone(config).items():
        usable = usable_by_zone[zone]
        if need > usable and largest is not None:
            index = largest
            raise ConfigValueError(
                f"at max size the nodes in {zone} need {need} IPs but its private subnets hold {usable} "
                f"({'; '.join(lines)}).",
                fix="lower maxSize, give the zone a larger private subnet (network.privateSubnetPrefixLength, "
                "or a bigger existing subnet), or spread groups over zones.",
                path=("nodeGroups", index, "maxSize"), value=config.node_groups[index].max_size)
