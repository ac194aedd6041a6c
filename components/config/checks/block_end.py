"""The checks of a Capacity Block's end (``capacity.endLeadMinutes``) and of a block the stack buys
(``capacity.purchase``): the lead time against its bounds (config/block_end.py) and the block's dates."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Optional

from ...catalog.karpenter_capacity import EC2_BLOCK_WARNING_MINUTES
from ..base import ConfigValueError
from ..block_end import DEFAULT_END_LEAD_MINUTES, MAX_END_LEAD_MINUTES

if TYPE_CHECKING:
    from ..group_view import PurchaseView


def check_end_lead(kind: str, lead: Optional[int], starts_at: Optional[datetime],
                   ends_at: Optional[datetime]) -> None:
    """Refuse a lead time that is not a capacity block's, comes after EC2's warning, or does not fit the block."""
    if lead is None:
        return
    if kind != "capacityBlock":
        raise ConfigValueError(f"endLeadMinutes {lead} is set but capacity type is '{kind}': only a capacity block "
                               "has a fixed end.", fix="remove endLeadMinutes, or set type: capacityBlock.",
                               path=("endLeadMinutes",), value=lead)
    first = EC2_BLOCK_WARNING_MINUTES + 1
    if not first <= lead <= MAX_END_LEAD_MINUTES:
        raise ConfigValueError(
            f"endLeadMinutes {lead} is outside {first}..{MAX_END_LEAD_MINUTES}: EC2 warns {EC2_BLOCK_WARNING_MINUTES} "
            "minutes before a block's end and Karpenter or EKS drain its nodes from then, so trainstack's signal "
            "must come earlier, and a lead over a day gives away paid capacity.",
            fix=f"set endLeadMinutes between {first} and {MAX_END_LEAD_MINUTES}, or remove it for the default "
                f"{DEFAULT_END_LEAD_MINUTES}.", path=("endLeadMinutes",), value=lead)
    if starts_at is not None and ends_at is not None and ends_at - timedelta(minutes=lead) <= starts_at:
        hours = (ends_at - starts_at).total_seconds() / 3600
        raise ConfigValueError(
            f"endLeadMinutes {lead} reaches back before startsAt: the block lasts {hours:g} h.",
            fix=f"set endLeadMinutes below {int((ends_at - starts_at).total_seconds() // 60)}.",
            path=("endLeadMinutes",), value=lead)


def check_purchase(purchase: Optional[PurchaseView], reservation_id: Optional[str], starts_at: Optional[datetime],
                   ends_at: Optional[datetime]) -> None:
    """A block is either bought elsewhere (its reservationId) or bought by the stack (purchase), with the dates the
    offering lists, so the plan can show what is bought for when."""
    if purchase is None:
        return
    if reservation_id is not None:
        raise ConfigValueError(f"purchase buys a new block, but reservationId {reservation_id} names one already "
                               "bought.", fix="remove purchase to use the block you have, or remove reservationId "
                               "to buy the offering.", path=("purchase",), value=purchase.offering_id)
    if starts_at is None:
        raise ConfigValueError(f"purchase of {purchase.offering_id} needs startsAt, so the plan shows what is bought "
                               "for when.", fix="set startsAt and endsAt as `trainstack capacity offerings` lists "
                               "the offering.", path=("startsAt",), value=None)
