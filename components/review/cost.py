"""What a change does to the bill: both sides' cost lines, per item and in total, per month of 730 hours
(``estimate.prices.HOURS_PER_MONTH``: the month AWS's Pricing Calculator assumes), and the gate's monthly-increase
ceiling.

Each side is read from its record's cost section, or, where the head has inputs Pulumi ignores (a node
group's ``desiredSize``), from the estimate of the head as Pulumi would leave it, so an ignored change
moves nothing. Monthly figures are the sections' own (each line for the hours it bills), never recounted here.
Reserved capacity the head lets go of stays on the head side until it is released (``held_capacity``). The
ceiling is the head's: ``cost.maxMonthlyIncreaseUsd`` of the stack it was planned from.
"""

from __future__ import annotations

from typing import Any, Optional

from ..estimate import estimate_cost
from ..estimate.prices import HOURS_PER_MONTH
from ..plan import Plan
from .diff import PlanDiff
from .finding import Finding
from .held_capacity import outlived

AT = ("desired", "max")


def cost_sections(diff: PlanDiff) -> dict[str, Optional[dict[str, Any]]]:
    """Each side's cost section (``base``, ``head``), the head as Pulumi would leave it, with the reserved capacity
    it lets go of still billed."""
    sections: dict[str, Optional[dict[str, Any]]]
    if diff.effective_head is not None:
        sections = {"base": estimate_cost(diff.base_plan).as_dict(),
                    "head": estimate_cost(Plan.from_dict(diff.effective_head)).as_dict()}
    else:
        sections = {side: diff.section("cost", side) for side in ("base", "head")}
    head, gone = sections["head"], outlived(diff, sections["base"])
    if head is not None:
        sections["head"] = with_unreleased(head, [g.carried for g in gone], {g.base.capacity for g in gone})
    return sections


def with_unreleased(head: dict[str, Any], carried: list[dict[str, Any]], capacities: set[str]) -> dict[str, Any]:
    """``head`` with the ``carried`` lines in place of its own lines for ``capacities`` (a group that keeps the id
    under another type launches nothing in it), and its totals moved by as much."""
    if not carried:
        return head
    dropped = [line for line in head.get("lines") or [] if line.get("capacity") in capacities]
    unpriced = [item for item in head.get("unpriced") or [] if item not in {line["item"].strip() for line in dropped}]
    unpriced += [line["item"] for line in carried if line["usdPerHour"] is None]
    moved = {key: {at: round((head.get(key) or {}).get(at, 0.0)
                             + sum(figure(line, key, at) for line in carried)
                             - sum(figure(line, key, at) for line in dropped), digits) for at in AT}
             for key, digits in (("hourlyUsd", 4), ("monthlyUsd", 2))}
    return {**head, **moved, "lines": [line for line in head.get("lines") or [] if line not in dropped] + carried,
            "unpriced": unpriced, "complete": head.get("complete", True) and not unpriced}


def figure(line: dict[str, Any], key: str, at: str) -> float:
    """A line's US$ per hour (``hourlyUsd``) or per month (``monthlyUsd``) at ``at`` size, 0 without a price. A
    record from before issue 53 has no monthly figure per line: its lines billed the whole 730-hour month."""
    rate = line.get("usdPerHour")
    if rate is None:
        return 0.0
    hourly = float(line.get(at, 0) or 0) * float(rate)
    if key == "hourlyUsd":
        return hourly
    monthly = line.get("monthlyUsd")
    return float(monthly[at]) if isinstance(monthly, dict) else hourly * HOURS_PER_MONTH


def monthly_by_item(section: Optional[dict[str, Any]]) -> dict[str, Optional[float]]:
    """US$ per month of each item at desired size; None for an item without a price (lines of one name summed)."""
    items: dict[str, Optional[float]] = {}
    for line in (section or {}).get("lines") or []:
        if line.get("kind") == "not-counted":
            continue
        name = str(line.get("item", "")).strip()
        before = items.get(name, 0.0)
        priced = line.get("usdPerHour") is not None and (name not in items or before is not None)
        items[name] = round((before or 0.0) + figure(line, "monthlyUsd", "desired"), 2) if priced else None
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
    """``side``'s total per month at ``at`` size, as its section says it; None without a cost section. A record from
    before issue 53 has no monthly total of 730 h: its hourly total over the month."""
    section = sections[side] or {}
    monthly = (section.get("monthlyUsd") or {}).get(at)
    if monthly is not None:
        return float(monthly)
    hourly = (section.get("hourlyUsd") or {}).get(at)
    return None if hourly is None else round(hourly * HOURS_PER_MONTH, 2)


def monthly_increase_finding(diff: PlanDiff, head: Optional[float], base: Optional[float]) -> Optional[Finding]:
    """A blocking finding when the monthly cost at desired size rises past the head's ceiling."""
    ceiling = (diff.section("cost", "head") or {}).get("maxMonthlyIncreaseUsd")
    if ceiling is None or head is None or base is None or head - base <= ceiling:
        return None
    monthly_change = head - base
    largest = sorted((r for r in item_deltas(cost_sections(diff)) if r["change"]), key=lambda r: -r["change"])[:3]
    shown = "; ".join(f"{r['item']} {r['change']:+,.2f}" for r in largest)
    return Finding("cost", "blocking", None,
                   f"the monthly cost at desired size rises by ${monthly_change:,.2f}, above the ceiling of "
                   f"${ceiling:,.2f} (cost.maxMonthlyIncreaseUsd)",
                   f"Largest increases per month: {shown or 'none priced'}. Raise the ceiling in the stack file "
                   "if the increase is meant.")
