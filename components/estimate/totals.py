"""A cost total in words, the one way every reader says it: the plan's cost section, the HTML report (its summary
and its cost section), the diff (text and markdown) and the cost ceiling's message.

It reads a cost section as the record holds it (``CostEstimate.as_dict``), so a saved record and a planned one read
the same. A total with items that have no price is a lower bound, and says so with the items beside it: a figure
shown alone while HyperPod's ml.* instances or an FSx tier are unpriced would read as the cost. Items the stack
does not count (the nodes of an existing cluster) are named beside the total too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from .prices import HOURS_PER_MONTH

MONTH = f"per month ({HOURS_PER_MONTH} h)"
"""How a monthly figure is labelled everywhere (``prices.HOURS_PER_MONTH`` says why 730 h)."""


def lower_bound(section: Mapping[str, Any]) -> bool:
    """Whether the section's totals leave out items that have no price (records before issue 53 say ``complete``)."""
    return not section.get("complete", True)


def money(usd: Optional[float], unit: str = "/h", digits: int = 2, at_least: bool = False) -> str:
    """``$1,234.56/h``, ``at least $1,234.56/h``, or ``n/a`` for a figure a side does not have."""
    if usd is None:
        return "n/a"
    return f"{'at least ' if at_least else ''}${usd:,.{digits}f}{unit}"


def total_said(section: Mapping[str, Any], at: str) -> str:
    """The total at ``at`` size (``desired`` or ``max``): per hour and per month, a lower bound where items are
    unpriced, with what is not priced and what is not counted named beside it."""
    hourly = (section.get("hourlyUsd") or {}).get(at)
    monthly = (section.get("monthlyUsd") or {}).get(at)
    bound = lower_bound(section)
    return (f"{money(hourly, at_least=bound)}, {money(monthly, '', at_least=bound)} {MONTH}"
            + beside(section))


def beside(section: Mapping[str, Any]) -> str:
    """What a total leaves out, in words (empty when it leaves out nothing)."""
    said = ""
    unpriced = [str(item).strip() for item in section.get("unpriced") or []]
    if lower_bound(section):
        said += "; not priced, so not counted: " + (", ".join(unpriced) if unpriced else "items without a price")
    not_counted = [str(item).strip() for item in section.get("notCounted") or []]
    if not_counted:
        said += "; not counted (made elsewhere, billed there): " + ", ".join(not_counted)
    return said
