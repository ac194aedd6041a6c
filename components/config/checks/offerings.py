"""The checks of where the stack can be (config/offerings.py): its zones are its region's, and HyperPod and every
instance type it asks for are offered there."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..offerings import check_hyperpod_region, check_placements, check_zone_names, network_zones, placements

if TYPE_CHECKING:
    from ..stack_view import StackView


def check_zones(stack: StackView) -> None:
    """Every zone the network names is in the stack's region and, where every account's zone names are
    known, one of them."""
    check_zone_names(stack.region, network_zones(stack.network, ("network",)))


def check_offerings(stack: StackView) -> None:
    """HyperPod is offered in the region, and every instance type in the region and, where the data knows
    them, in its zones."""
    if stack.hyperpod is not None:
        check_hyperpod_region(stack.region, ("hyperpod",))
    check_placements(stack.region, placements(stack))
