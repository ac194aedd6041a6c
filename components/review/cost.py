"""What a change does to the bill: both sides' cost lines, per item and in total, per month of 730 hours
(the month AWS's price pages quote), and the gate's monthly-increase ceiling.

Each side is read from its record's cost section, or, where the head has inputs Pulumi ignores (a node
group's ``desiredSize``), from the estimate of the head as Pulumi would leave it, so an ignored change
moves nothing. The ceiling is the head's: ``cost.maxMonthlyIncreaseUsd`` of the stack it was planned from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ..estimate import estimate_cost
from ..estimate.prices import HOURS_PER_MONTH
from ..plan import Plan
from .diff import PlanDiff

if TYPE_CHECKING:
    from .risk import Finding


def cost_sections(diff: PlanDiff) -> dict[str, Optional[dict[str, Any]]]:
    """Each side's cost section (``base``, ``head``), the head as Pulumi would leave it."""
    if diff.effective_head is not None:
        return {"base": estimate_cost(diff.base_plan).as_dict(),
                "head": estimate_cost(Plan.from_dict(diff.effective_head)).as_dict()}
    return {side: diff.section("cost", side) for side in ("base", "head")}


def monthly_by_item(section: Optional[dict[str, Any]]) -> dict[str, Optional[float]]:
    """US$ per month of each item at desired size; None for an item without a price."""
    items: dict[str, Optional[float]] = {}
    for line in (section or {}).get("lines") or []:
        rate = line.get("usdPerHour")
        items[str(line.get("item", "")).strip()] = (None if rate is None
                                                    else round(line.get("desired", 0) * rate * HOURS_PER_MONTH, 2))
    return items


def item_deltas(sections: dict[str, Optional[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Every item of either side: its monthly cost at desired size before and after, and the change."""
    base, head = monthly_by_item(sections["base"]), monthly_by_item(sections["head"])
    rows = []
    for item in list(base) + [name for name in head if name not in base]:
        before, after = base.get(item), head.get(item)
        change = None if (item in base and before is None) or (item in head and after is None) else round(
            (after or 0.0) - (before or 0.0), 2)
        unpriced = [side for side, items in (("base", base), ("head", head)) if item in items and items[item] is None]
        rows.append({"item": item, "base": before, "head": after, "change": change, "unpriced": unpriced})
    return rows


def monthly_total(sections: dict[str, Optional[dict[str, Any]]], side: str, at: str) -> Optional[float]:
    """``side``'s total per month at ``at`` size, None without a cost section."""
    hourly = ((sections[side] or {}).get("hourlyUsd") or {}).get(at)
    return None if hourly is None else round(hourly * HOURS_PER_MONTH, 2)


def monthly_increase_finding(diff: PlanDiff, head: Optional[float], base: Optional[float]) -> Optional[Finding]:
    """A blocking finding when the monthly cost at desired size rises past the head's ceiling."""
    ceiling = (diff.section("cost", "head") or {}).get("maxMonthlyIncreaseUsd")
    if ceiling is None or head is None or base is None or head - base <= ceiling:
        return None
    monthly_change = head - base
    largest = sorted((r for r in item_deltas(cost_sections(diff)) if r["change"]), key=lambda r: -r["change"])[:3]
    shown = "; ".join(f"{r['item']} {r['change']:+,.2f}" for r in largest)
    from .risk import Finding

    return Finding("cost", "blocking", None,
                   f"the monthly cost at desired size rises by ${monthly_change:,.2f}, above the ceiling of "
                   f"${ceiling:,.2f} (cost.maxMonthlyIncreaseUsd)",
                   f"Largest increases per month: {shown or 'none priced'}. Raise the ceiling in the stack file "
                   "if the increase is meant.")
