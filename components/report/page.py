"""The report page: one HTML file, no script, every style inline, no request when it is opened.

The page is an emitted record (like the plan record): the same records give the same
bytes (with the same Graphviz version, whose SVG it embeds), and it carries its format
version in ``<meta name="trainstack-report-version">``. Version 1: sections ``summary``,
``graph``, ``timeline``, ``cost``, ``policies``, ``changes`` (with a base record), and
``resources`` (the text alternative of the graph and the timeline), and ``queues`` (stacks with Kueue
queues: each team's queue, guarantee and reach), each a ``<section id>``.
"""

from __future__ import annotations

import shutil
from html import escape
from typing import Any, Optional

from ..estimate import CostEstimate, Slot, critical_path, estimate_cost, schedule
from ..estimate.durations import minutes
from ..plan import Plan, ResourceRecord
from ..review import assess, compare
from .graph import resource_graph
from .groups import ORDER, marks, part_of, shown
from .style import STYLE
from .timeline import gantt

REPORT_FORMAT_VERSION = 1


class ReportError(RuntimeError):
    """The report cannot be made here (Graphviz missing); the message says the fix."""


def render_report(record: dict[str, Any], base: Optional[dict[str, Any]] = None) -> str:
    """The HTML page of one plan record; with ``base``, the diff from it marked on the graph and timeline."""
    if shutil.which("dot") is None:
        raise ReportError("the resource graph is laid out by Graphviz, and its `dot` program is not on PATH: "
                          "install Graphviz (Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz; "
                          "Windows: winget install graphviz) and run the report again")
    plan = Plan.from_dict(record)
    by_urn = {r.urn: r for r in plan.resources}
    drawn = [r for r in plan.resources if shown(r)]
    slots = schedule(plan)
    path = critical_path(plan)
    chain = [r.urn for r in path.chain]
    cost = estimate_cost(plan)
    diff = compare(base, record) if base is not None else None
    changed: dict[str, str] = {c.urn: c.action for c in diff.changes} if diff else {}
    rows = sorted(((r, slots[r.urn]) for r in plan.resources if minutes(r) > 0),
                  key=lambda row: (row[1].start, row[1].end))
    title = f"trainstack report: {plan.project}/{plan.stack}"
    body = [
        f"<header><h1>{escape(title)}</h1>"
        f"<p>Offline plan of <code>{escape(plan.stack_file or plan.stack)}</code>: what <code>pulumi up</code> "
        "would create, estimated before any deploy. Durations and prices are estimates.</p></header>",
        _summary(plan, len(drawn), path.minutes, path.serial_minutes, cost.hourly("desired"), cost.hourly("max"),
                 bool(cost.unpriced)),
        "<section id=\"graph\"><h2>Resource graph</h2>"
        "<p class=\"legend\">Grouped by component. <span class=\"k-critical\">Red outline</span>: on the critical "
        "path. Double outline: protected. Cylinder: stateful (holds data). "
        + ("Fill: <span class=\"k-create\">created</span>, <span class=\"k-update\">updated</span>, "
           "<span class=\"k-replace\">replaced</span>. " if diff else "")
        + "An arrow points from a resource to one that waits for it. The resource table below lists the same.</p>"
        f"<figure class=\"scroll\" role=\"img\" aria-label=\"Resource graph of "
        f"{len(drawn)} resources, grouped by component; "
        "the resource table below lists them\">"
        f"{resource_graph(plan, chain, changed)}</figure></section>",
        "<section id=\"timeline\"><h2>Deploy timeline</h2>"
        f"<p>Estimated <code>pulumi up</code>: about <strong>{path.minutes:.0f} min</strong> along the critical path "
        f"(red bars); <strong>{path.serial_minutes:.0f} min</strong> if everything ran one after another (the serial "
        "sum). Each resource starts once everything it waits for exists.</p>"
        f"<figure class=\"scroll\">{gantt(rows, set(chain), changed)}</figure></section>",
        _cost(cost, by_urn),
        _policies(plan),
    ]
    queues = (plan.sections.get("queues") or {}).get("text")
    if queues:
        body.append(f"<section id=\"queues\"><h2>Kueue queues and quotas</h2><pre>{escape(queues)}</pre></section>")
    if diff is not None:
        findings = assess(diff)
        body.append(_changes([(c.action, c.type, c.name, c.urn) for c in diff.changes],
                             [(f.severity, f.title, f.detail) for f in findings]))
    body.append(_resources(drawn, by_urn, slots, set(chain), changed))
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<meta name=\"generator\" content=\"trainstack report\">\n"
            f"<meta name=\"trainstack-report-version\" content=\"{REPORT_FORMAT_VERSION}\">\n"
            f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
            + "\n".join(body) + "\n</main>\n</body>\n</html>\n")


def _summary(plan: Plan, drawn: int, deploy: float, serial: float, desired: float, maximum: float,
             incomplete: bool) -> str:
    failures = (plan.sections.get("policies") or {}).get("mandatoryFailures")
    items = [("Resources", str(drawn)),
             ("Deploy (critical path)", f"about {deploy:.0f} min"), ("Deploy (serial sum)", f"{serial:.0f} min"),
             ("Cost at desired size", f"${desired:,.2f}/h" + (" (incomplete)" if incomplete else "")),
             ("Cost at max size", f"${maximum:,.2f}/h" + (" (incomplete)" if incomplete else "")),
             ("Mandatory policy failures", "not evaluated" if failures is None else str(failures))]
    return ("<section id=\"summary\"><h2>Summary</h2><dl>"
            + "".join(f"<div><dt>{escape(k)}</dt><dd>{escape(v)}</dd></div>" for k, v in items) + "</dl></section>")


def _cost_part(urn: str, by_urn: dict[str, ResourceRecord]) -> str:
    """The component a cost line's resource is counted under: its part of the graph, except that
    every node group's instances are "node groups" money. The system group is built by the
    cluster component, but a reader asking where the money goes looks for the nodes, not for an
    EKS control plane that costs ten cents an hour."""
    resource = by_urn.get(urn)
    if resource is None:
        return "stack"
    return "node groups" if resource.type == "aws:eks/nodeGroup:NodeGroup" else part_of(resource, by_urn)


def _cost(cost: CostEstimate, by_urn: dict[str, ResourceRecord]) -> str:
    """The cost by component (see ``_cost_part``), then by item."""
    record = cost.as_dict()
    lines = [(line, _cost_part(line.resources[0], by_urn) if line.resources else "stack") for line in cost.lines]
    rows = []
    for line, component in lines:
        price = line.unit_usd_per_hour
        cells = [escape(line.item.strip()), escape(component), f"{line.quantity_desired:g}",
                 f"{line.quantity_max:g}", "no price" if price is None else f"{price:.4f}",
                 "" if price is None else f"{line.hourly('desired'):,.2f}",
                 "" if price is None else f"{line.hourly('max'):,.2f}", escape(line.source)]
        rows.append(("<tr class=\"unpriced\">" if price is None else "<tr>") + "".join(
            f"<td>{c}</td>" for c in cells) + "</tr>")
    by_component = []
    for component in ORDER:
        its = [line for line, part_name in lines if part_name == component]
        if its:
            unpriced = sum(1 for line in its if not line.priced)
            by_component.append(
                f"<tr><th scope=\"row\">{escape(component)}</th><td>{sum(li.hourly('desired') for li in its):,.2f}</td>"
                f"<td>{sum(li.hourly('max') for li in its):,.2f}</td><td>{unpriced or ''}</td></tr>")
    unpriced_items = [line.item.strip() for line in cost.unpriced]
    note = ("<p><strong>Not priced</strong> (no published price found; not counted in the totals): "
            + ", ".join(escape(u) for u in unpriced_items) + ".</p>"
            ) if unpriced_items else "<p>Every item is priced.</p>"
    hourly, monthly = record["hourlyUsd"], record["thirtyDayUsd"]
    return ("<section id=\"cost\"><h2>Cost</h2>"
            f"<p>On demand in {escape(cost.region)}: <strong>${hourly['desired']:,.2f}/h</strong> at desired "
            f"size (${monthly['desired']:,.0f} per 30 days), <strong>${hourly['max']:,.2f}/h</strong> at max size "
            f"(${monthly['max']:,.0f} per 30 days).</p>"
            "<div class=\"scroll\"><table class=\"by-component\"><caption>Cost by component, in $/h</caption>"
            "<thead><tr><th scope=\"col\">component</th><th scope=\"col\">$/h desired</th>"
            "<th scope=\"col\">$/h max</th><th scope=\"col\">items not priced</th></tr></thead><tbody>"
            + "".join(by_component) + "</tbody>"
            f"<tfoot><tr><th scope=\"row\">total</th><td>{hourly['desired']:,.2f}</td><td>{hourly['max']:,.2f}</td>"
            f"<td>{len(unpriced_items) or ''}</td></tr></tfoot></table></div>"
            "<div class=\"scroll\"><table class=\"cost\"><caption>Cost by item, at desired and at max size</caption>"
            "<thead><tr><th scope=\"col\">item</th><th scope=\"col\">component</th><th scope=\"col\">desired</th>"
            "<th scope=\"col\">max</th><th scope=\"col\">$/h each</th><th scope=\"col\">$/h desired</th>"
            "<th scope=\"col\">$/h max</th><th scope=\"col\">source</th></tr></thead><tbody>" + "".join(rows)
            + "</tbody></table></div>" + note + "</section>")


def _policies(plan: Plan) -> str:
    section = plan.sections.get("policies")
    warnings = [d.get("message", "") for d in plan.diagnostics if d.get("severity") in ("warning", "error")]
    if section is None:
        results = "<p>This record has no policy results (it was not made by <code>trainstack plan</code>).</p>"
    else:
        failed = [r for r in section["rules"] if not r["passed"] and r["enforcement"] != "disabled"]
        passed = sum(1 for r in section["rules"] if r["passed"])
        results = (f"<p>{passed} of {len(section['rules'])} rules pass; {section['mandatoryFailures']} mandatory "
                   "failures.</p>" + ("<ul class=\"failures\">" + "".join(
                       f"<li><strong>{escape(r['id'])}</strong> ({escape(r['enforcement'])}): " + "; ".join(
                           escape(v["message"]) for v in r["violations"]) + "</li>" for r in failed) + "</ul>"
                       if failed else ""))
    notes = ("<h3>Warnings</h3><ul>" + "".join(f"<li>{escape(w)}</li>" for w in warnings) + "</ul>") if warnings \
        else "<p>The program logged no warnings.</p>"
    return f"<section id=\"policies\"><h2>Policies and warnings</h2>{results}{notes}</section>"


def _changes(changes: list[tuple[str, str, str, str]], findings: list[tuple[str, str, str]]) -> str:
    rows = "".join(f"<tr class=\"{a}\"><td>{a}</td><td>{escape(n)}</td><td>{escape(t)}</td></tr>"
                   for a, t, n, _ in changes)
    risks = "".join(f"<li><strong>{escape(s)}</strong>: {escape(t)}. {escape(d)}</li>" for s, t, d in findings)
    return ("<section id=\"changes\"><h2>Changes from the base record</h2>"
            + (f"<div class=\"scroll\"><table><caption>{len(changes)} resources change</caption><thead><tr>"
               "<th scope=\"col\">action</th><th scope=\"col\">name</th><th scope=\"col\">type</th></tr></thead>"
               f"<tbody>{rows}</tbody></table></div>" if changes else "<p>No resource changes.</p>")
            + (f"<h3>Risks</h3><ul>{risks}</ul>" if risks else "") + "</section>")


def _resources(drawn: list[ResourceRecord], by_urn: dict[str, ResourceRecord], slots: dict[str, Slot],
               critical: set[str], changed: dict[str, str]) -> str:
    rows = []
    for resource in drawn:
        slot = slots[resource.urn]
        rows.append(f"<tr><td>{escape(part_of(resource, by_urn))}</td><td>{escape(resource.name)}</td>"
                    f"<td>{escape(resource.type)}</td><td>{slot.start:g}</td><td>{slot.end:g}</td>"
                    f"<td>{escape(', '.join(marks(resource, critical, changed)))}</td></tr>")
    return ("<section id=\"resources\"><h2>Resources</h2><details><summary>Every resource, its component, "
            "its estimated start and end, and its marks (the graph and the timeline as a table)</summary>"
            "<div class=\"scroll\"><table><thead><tr><th scope=\"col\">component</th><th scope=\"col\">name</th>"
            "<th scope=\"col\">type</th><th scope=\"col\">start (min)</th><th scope=\"col\">end (min)</th>"
            f"<th scope=\"col\">marks</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div></details>"
            "</section>")
