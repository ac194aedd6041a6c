"""The diff as a reviewer reads it: text for a terminal, markdown for a pull request, JSON for tools.

The JSON report is an interface (``reportVersion`` 1): ``gate`` (passed, blocking titles),
``counts``, ``resources`` (each with its input changes: path, before, after, effect, reason),
``findings`` (kind, severity, urn, title, detail), ``deltas`` (cost per hour at desired and
max size, deploy critical path in minutes, the slowest checkpoint write in seconds and its
share of the interval, new and fixed policy failures).
"""

from __future__ import annotations

import json
from typing import Any, Optional

from ..estimate.totals import money
from .cost import cost_sections, item_deltas, monthly_total
from .diff import InputChange, PlanDiff, ResourceChange
from .finding import Finding
from .risk import blocking, security

REPORT_VERSION = 1
ACTIONS = ("create", "update", "replace", "delete")
_SYMBOL = {"create": "+", "update": "~", "replace": "+-", "delete": "-"}


def deltas(diff: PlanDiff) -> dict[str, Any]:
    sections = cost_sections(diff)

    def cost(side: str, at: str) -> Optional[float]:
        hourly = ((sections[side] or {}).get("hourlyUsd") or {}).get(at)
        return None if hourly is None else round(hourly, 4)

    def minutes(side: str) -> Optional[float]:
        section = diff.section("criticalPath", side)
        return None if section is None else section.get("minutes")

    def pair(base: Optional[float], head: Optional[float], digits: int) -> dict[str, Optional[float]]:
        change = None if base is None or head is None else round(head - base, digits)
        return {"base": base, "head": head, "change": change}

    def checkpoint(side: str, key: str) -> Optional[float]:
        """The slowest file system's figure (``trainstack plan``'s storage section), None without one."""
        timings = (diff.section("storage", side) or {}).get("checkpoints") or []
        return max((t[key] for t in timings), default=None)

    # The sides as the diff prices them (the head with the capacity it lets go of): what they leave out.
    complete = {side: (sections[side] or {}).get("complete") if sections[side] is not None else None
                for side in ("base", "head")}
    unpriced = {side: list((sections[side] or {}).get("unpriced") or []) for side in ("base", "head")}
    return {
        "costUsdPerHour": {"desired": pair(cost("base", "desired"), cost("head", "desired"), 4),
                           "max": pair(cost("base", "max"), cost("head", "max"), 4),
                           "complete": complete, "unpriced": unpriced},
        "costUsdPerMonth": {at: pair(monthly_total(sections, "base", at), monthly_total(sections, "head", at), 2)
                            for at in ("desired", "max")},
        "costByItemUsdPerMonth": item_deltas(sections),
        "criticalPathMinutes": pair(minutes("base"), minutes("head"), 2),
        "checkpointWriteSeconds": pair(checkpoint("base", "writeSeconds"), checkpoint("head", "writeSeconds"), 1),
        "checkpointIntervalShare": pair(checkpoint("base", "intervalShare"), checkpoint("head", "intervalShare"), 4),
        "policies": {"newFailures": [f.__dict__ for f in diff.new_failures],
                     "fixedFailures": [f.__dict__ for f in diff.fixed_failures]},
    }


def as_dict(diff: PlanDiff, findings: list[Finding]) -> dict[str, Any]:
    stops = blocking(findings)
    return {
        "reportVersion": REPORT_VERSION,
        "project": diff.project,
        "stack": diff.stack,
        "stackFile": diff.stack_file,
        "gate": {"passed": not stops, "blocking": [f.title for f in stops],
                 "security": [f.title for f in security(findings)]},
        "counts": {action: len(diff.of(action)) for action in ACTIONS},  # type: ignore[arg-type]
        "resources": [{"urn": c.urn, "type": c.type, "name": c.name, "action": c.action,
                       "inputs": [{"path": i.path, "before": i.before, "after": i.after, "effect": i.effect,
                                   "reason": i.reason, "causedBy": i.caused_by} for i in c.inputs]}
                      for c in diff.changes],
        "findings": [f.__dict__ for f in findings],
        "deltas": deltas(diff),
    }


def render_json(diff: PlanDiff, findings: list[Finding]) -> str:
    return json.dumps(as_dict(diff, findings), indent=2)


# -- text ---------------------------------------------------------------------------------
def render_text(diff: PlanDiff, findings: list[Finding]) -> str:
    lines = [f"Diff of {diff.project} / {diff.stack}: {_counts(diff)}", ""]
    for change in diff.changes:
        lines.append(f"{_SYMBOL[change.action]:>2} {change.action:<8} {change.type}  {change.name}")
        for item in change.inputs:
            lines.append(f"      {item.path}: {_value(item.before)} -> {_value(item.after)}  [{_effect(item)}]")
    if diff.changes:
        lines.append("")
    widening = security(findings)
    if widening:
        lines.append(f"Security (widens a team's access; read each): {_security_count(widening)}")
        lines += [f"  - {f.title}. {f.detail}" for f in widening]
        lines.append("")
    for severity in ("blocking", "warning", "note"):
        chosen = [f for f in findings if f.severity == severity and f not in widening]
        if chosen:
            lines.append(f"{severity.capitalize()}:")
            lines += [f"  - {f.title}. {f.detail}" for f in chosen]
            lines.append("")
    lines += _delta_lines(diff)
    stops = blocking(findings)
    lines += ["", f"Gate: {'BLOCKED' if stops else 'passed'}"
              + (f" ({len(stops)} blocking finding{'s' if len(stops) != 1 else ''})" if stops else "")
              + (f", with {_security_count(widening)}" if widening else "")]
    return "\n".join(lines)


def _security_count(widening: list[Finding]) -> str:
    return f"{len(widening)} security change{'s' if len(widening) != 1 else ''}"


def _delta_lines(diff: PlanDiff) -> list[str]:
    values = deltas(diff)
    lines = ["Deltas:"]
    bounds = {side: values["costUsdPerHour"]["complete"][side] is False for side in ("base", "head")}
    for at in ("desired", "max"):
        lines.append(f"  cost at {at} size: {_money(values['costUsdPerHour'][at], bounds=bounds)}; per month "
                     f"{_money(values['costUsdPerMonth'][at], '', bounds)}")
    lines += [f"    {row['item']}: {_item_usd(row, 'base')} -> {_item_usd(row, 'head')} per month"
              for row in values["costByItemUsdPerMonth"] if row["base"] != row["head"] or row["unpriced"]]
    for side in ("base", "head"):
        if bounds[side]:
            lines.append(f"  ({side} cost is a lower bound: not priced, so not counted: "
                         f"{', '.join(values['costUsdPerHour']['unpriced'][side]) or 'items without a price'})")
    path = values["criticalPathMinutes"]
    lines.append(f"  deploy critical path: {_number(path, ' min')}")
    if values["checkpointWriteSeconds"]["base"] is not None or values["checkpointWriteSeconds"]["head"] is not None:
        lines.append(f"  checkpoint write: {_number(values['checkpointWriteSeconds'], ' s')}")
    lines.append(f"  policies: {len(diff.new_failures)} newly failing, {len(diff.fixed_failures)} fixed")
    return lines


# -- markdown -----------------------------------------------------------------------------
def render_markdown(diff: PlanDiff, findings: list[Finding]) -> str:
    stops = blocking(findings)
    widening = security(findings)
    status = (f"**blocked** ({len(stops)} blocking)" if stops else "**passes**") \
        + (f", with {_security_count(widening)}" if widening else "")
    lines = [f"### trainstack diff: `{diff.stack}`: {status}", "",
             f"{_counts(diff)}" + (f" (`{diff.stack_file}`)" if diff.stack_file else ""), ""]
    if widening:
        lines += ["**Security: widens a team's access**", ""]
        lines += [f"- {_md(f.title)}. {_md(f.detail)}" for f in widening]
        lines.append("")
    for severity, heading in (("blocking", "Blocking"), ("warning", "Needs attention")):
        chosen = [f for f in findings if f.severity == severity and f not in widening]
        if chosen:
            lines.append(f"**{heading}**")
            lines.append("")
            lines += [f"- {_md(f.title)}. {_md(f.detail)}" for f in chosen]
            lines.append("")
    values = deltas(diff)
    lines += ["| | base | head | change |", "|---|---:|---:|---:|"]
    bound = {side: values["costUsdPerHour"]["complete"][side] is False for side in ("base", "head")}
    for key, unit, per in (("costUsdPerHour", "/h", "hour"), ("costUsdPerMonth", "", "month")):
        for at in ("desired", "max"):
            item = values[key][at]
            lines.append(f"| cost per {per} at {at} size | {money(item['base'], unit, at_least=bound['base'])} | "
                         f"{money(item['head'], unit, at_least=bound['head'])} | "
                         f"{_usd(item['change'], signed=True, unit=unit)} |")
    path = values["criticalPathMinutes"]
    lines.append(f"| deploy critical path (min) | {_plain(path['base'])} | {_plain(path['head'])} | "
                 f"{_plain(path['change'], signed=True)} |")
    write = values["checkpointWriteSeconds"]
    if write["base"] is not None or write["head"] is not None:
        lines.append(f"| checkpoint write (s) | {_plain(write['base'])} | {_plain(write['head'])} | "
                     f"{_plain(write['change'], signed=True)} |")
    lines.append(f"| policies newly failing / fixed | | | {len(diff.new_failures)} / {len(diff.fixed_failures)} |")
    for side in ("base", "head"):
        if values["costUsdPerHour"]["complete"][side] is False:
            lines += ["", f"_The {side}'s cost is a lower bound: not priced, so not counted: "
                          f"{_md(', '.join(values['costUsdPerHour']['unpriced'][side]) or 'items without a price')}._"]
    lines.append("")
    changed = [row for row in values["costByItemUsdPerMonth"] if row["base"] != row["head"] or row["unpriced"]]
    if changed:
        lines += [f"<details><summary>Monthly cost by item, desired size ({len(changed)} changed)</summary>", "",
                  "| item | base | head | change |", "|---|---:|---:|---:|"]
        lines += [f"| {_md(row['item'])} | {_item_usd(row, 'base')} | {_item_usd(row, 'head')} | "
                  f"{_usd(row['change'], signed=True, unit='')} |" for row in changed]
        lines += ["", "</details>", ""]
    if diff.changes:
        lines += [f"<details><summary>Resource changes ({len(diff.changes)})</summary>", "",
                  "| | resource | type | inputs |", "|---|---|---|---|"]
        for change in diff.changes:
            lines.append(f"| {change.action} | `{change.name}` | `{change.type}` | {_md_inputs(change)} |")
        lines += ["", "</details>", ""]
    notes = [f for f in findings if f.severity == "note"]
    if notes:
        lines += [f"<details><summary>Notes ({len(notes)})</summary>", ""]
        lines += [f"- {_md(f.title)}. {_md(f.detail)}" for f in notes]
        lines += ["", "</details>", ""]
    return "\n".join(lines)


def _md_inputs(change: ResourceChange) -> str:
    if change.action in ("create", "delete"):
        return ""
    parts = [f"`{_md(i.path)}`: `{_md(_value(i.before))}` → `{_md(_value(i.after))}` ({_effect(i)})"
             for i in change.inputs]
    return "<br>".join(parts)


# -- helpers ------------------------------------------------------------------------------
def _counts(diff: PlanDiff) -> str:
    if not diff.changes:
        return "no changes"
    return ", ".join(f"{len(diff.of(a))} to {a}" for a in ACTIONS if diff.of(a))  # type: ignore[arg-type]


def _effect(item: InputChange) -> str:
    return {"replace": "forces replacement", "update": "in place", "unknown": "unknown: may replace",
            "provider decides": "the provider decides"}[item.effect]


def _value(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) and value.startswith("[") else json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _money(item: dict[str, Any], unit: str = "/h", bounds: Optional[dict[str, bool]] = None) -> str:
    """``base -> head (change)``; a side whose total leaves out unpriced items reads "at least"."""
    bound = bounds or {}
    return (f"{money(item['base'], unit, at_least=bound.get('base', False))} -> "
            f"{money(item['head'], unit, at_least=bound.get('head', False))} "
            f"({_usd(item['change'], signed=True, unit=unit)})")


def _item_usd(row: dict[str, Any], side: str) -> str:
    """A side's monthly cost of one item: the figure, "no price", or "none" where the side lacks the item."""
    if row[side] is not None:
        return _usd(row[side], unit="")
    return "no price" if side in row["unpriced"] else "none"


def _number(item: dict[str, Optional[float]], unit: str) -> str:
    """``base -> head (change)``, the unit after each figure and never after "n/a" (a side without one)."""
    def shown(value: Optional[float], signed: bool = False) -> str:
        return _plain(value, signed) + ("" if value is None else unit)
    return f"{shown(item['base'])} -> {shown(item['head'])} ({shown(item['change'], signed=True)})"


def _usd(value: Optional[float], signed: bool = False, unit: str = "/h") -> str:
    if value is None:
        return "n/a"
    sign = "+" if signed and value > 0 else ("-" if value < 0 else "")
    return f"{sign}${abs(value):,.2f}{unit}"


def _plain(value: Optional[float], signed: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{'+' if signed and value > 0 else ''}{value:g}"
