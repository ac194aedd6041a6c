"""The check of the stack's addresses (config/ip_budget.py): every private subnet holds its nodes' addresses at
steady state, with every group at its maxSize."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..base import ConfigValueError
from ..ip_budget import ip_budget

if TYPE_CHECKING:
    from ..stack_view import StackView


def check_ip_budget(config: StackView) -> None:
    """Refuse a config whose nodes cannot hold their steady-state addresses at max size."""
    budget = ip_budget(config)
    if budget is None:
        return
    for zone in budget.zones:
        if zone.steady <= zone.usable:
            continue
        # The zone's own groups (not the system nodes, which may run anywhere) are what to lower first.
        groups = [g for g in zone.groups if g.zone is not None] or list(zone.groups)
        largest = max(groups, key=lambda g: g.nodes * g.steady.total)
        path: tuple[str | int, ...] = largest.size_key
        # A pool's row holds its parts in this subnet; the key names the whole group's size.
        value: Any = config.node_groups[largest.index].max_size if largest.index is not None else largest.nodes
        raise ConfigValueError(
            f"at max size the nodes in {zone.label} hold {zone.steady} addresses at steady state "
            f"(VPC CNI {budget.cni.describe()}) but its private subnet holds {zone.usable} "
            f"({'; '.join(zone.lines('steady'))}).",
            fix="lower the size named here (a group's maxSize or count), give the zone a larger private subnet "
            "(network.privateSubnetPrefixLength, or a bigger existing subnet), list another private subnet in the "
            "zone under network.existingVpc.privateSubnets (a pool's parts spread over the zone's subnets: part i "
            "takes subnet i mod n), spread groups over zones, or lower eks.vpcCni.minimumIpTarget and warmIpTarget.",
            path=path, value=value)
