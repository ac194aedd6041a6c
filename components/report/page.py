"""The report page: one HTML file, no script, every style inline, no request when it is opened.

It reads top down as a reviewer decides: the summary (with a base record, whether the change
may merge), the overview (one box per component, fitted to the page's width), each
component's own graph folded below it, the timeline by component, the cost, the policies, the
changes, then the full resource graph and the resource table for those who want every detail.

The page is an emitted record (like the plan record): the same records give the same
bytes (with the same Graphviz version, whose SVG it embeds), and it carries its format
version in ``<meta name="trainstack-report-version">``. Version 2: sections ``summary``,
``overview``, ``components``, ``timeline``, ``cost``, ``storage`` (when the plan sized a file
system from its job's checkpoint), ``policies``, ``queues`` (stacks with Kueue queues: each
team's queue, guarantee and reach), ``access`` (stacks with teams: each team's members, namespace, queue, data
and reach, as deployed), ``changes`` (with a base record), ``graph`` (the full
graph, folded) and ``resources`` (the text alternative of the figures), each a
``<section id>``. Version 1 had no overview, no components, and the graph second.
"""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from html import escape
from typing import Optional

from ..estimate import critical_path, estimate_cost, schedule
from ..estimate.cost import CostEstimate
from ..estimate.critical_path import CriticalPath
from ..plan import Plan
from ..review import assess, compare
from .access import access_section
from .cost import cost_section, hourly_by_component
from .fleet import fleet
from .graph import component_graph, full_graph
from .groups import Component
from .groups import components as components_of
from .layout import draw
from .numbers import counted
from .overview import overview_graph
from .sections import component_details, resource_table, timeline_section
from .style import STYLE
from .summary import changes, policies, summary

REPORT_FORMAT_VERSION = 2
LEGEND = ("<span class=\"k-critical\">Red outline</span>: on the critical path. Double outline: protected. "
          "Cylinder: stateful (holds data). ")
DIFF_LEGEND = ("Fill: <span class=\"k-create\">created</span>, <span class=\"k-update\">updated</span>, "
               "<span class=\"k-replace\">replaced</span>. ")


class ReportError(RuntimeError):
    """The report cannot be made here (Graphviz missing); the message says the fix."""


def render_report(plan: Plan, base: Optional[Plan] = None) -> str:
    """The HTML page of one plan (planned now or read back from a record); with ``base``, the diff from it
    marked on the graphs and timeline."""
    _require_dot()
    drawn = plan.cloud_resources  # the count `trainstack plan` says too
    parts = components_of(plan)
    path = _critical_path(plan)
    chain = [r.urn for r in path.chain]
    diff = compare(base, plan) if base is not None else None
    changed: dict[str, str] = {c.urn: c.action for c in diff.changes} if diff else {}
    with ThreadPoolExecutor(max_workers=1) as dot:
        # The full graph is the one long layout (about half a second for 64 groups): it runs in its own
        # `dot` process while this one computes the rest of the page.
        full_layout = dot.submit(draw, [full_graph(drawn, {r.urn: r for r in plan.resources}, chain, changed)])
        slots = schedule(plan)
        cost = _cost(plan)
        findings = assess(diff) if diff is not None else []
        hourly = hourly_by_component(cost, parts)
        overview, *graphs = draw([overview_graph(parts, slots, hourly, chain, changed)]
                                 + [component_graph(c, n, chain, changed) for n, c in enumerate(parts)])
        [full] = full_layout.result()
    title = f"trainstack report: {plan.project}/{plan.stack}"
    legend = LEGEND + (DIFF_LEGEND if diff else "")
    body = [
        f"<header><h1>{escape(title)}</h1>"
        f"<p>Offline plan of <code>{escape(plan.stack_file or plan.stack)}</code>: what <code>pulumi up</code> "
        "would create, estimated before any deploy. Durations and prices are estimates.</p></header>",
        summary(plan, len(drawn), path.minutes, path.serial_minutes, cost.as_dict(), diff, findings),
        "<section id=\"overview\"><h2>Overview</h2>" + _fleet(parts) +
        f"<p class=\"legend\">{counted(len(parts), 'component')}, each with its resources, its cost per hour at "
        "desired size and when it is built (minutes from the start of <code>pulumi up</code>). An arrow points "
        "from a component to one that waits for it. <span class=\"k-critical\">Red</span>: the critical path. "
        + (DIFF_LEGEND if diff else "") + "Select a box to open its graph.</p>"
        f"<figure class=\"fit\" role=\"img\" aria-label=\"Overview of {counted(len(parts), 'component')}; the "
        f"component graphs below show their resources\">{overview}</figure></section>",
        component_details(parts, graphs, slots, hourly, legend),
        timeline_section(parts, slots, path, changed),
        cost_section(cost, parts),
        _storage(plan),
        policies(plan),
    ]
    queues = plan.sections.queues.render() if plan.sections.queues is not None else None
    if queues:
        body.append(f"<section id=\"queues\"><h2>Kueue queues and quotas</h2><pre>{escape(queues)}</pre></section>")
    body.append(access_section(plan))
    if diff is not None:
        body.append(changes(diff, findings))
    body.append(_full_graph(len(drawn), legend, full))
    body.append(resource_table(drawn, parts, slots, set(chain), changed))
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<meta name=\"generator\" content=\"trainstack report\">\n"
            f"<meta name=\"trainstack-report-version\" content=\"{REPORT_FORMAT_VERSION}\">\n"
            f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
            + "\n".join(body) + "\n</main>\n</body>\n</html>\n")


def _require_dot() -> None:
    if shutil.which("dot") is None:
        raise ReportError("the resource graph is laid out by Graphviz, and its `dot` program is not on PATH: "
                          "install Graphviz (Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz; "
                          "Windows: winget install graphviz) and run the report again")


def _fleet(parts: list[Component]) -> str:
    """The cluster's size, said once above the overview (``fleet.fleet``); nothing without managed node groups."""
    said = fleet(parts)
    return f"<p class=\"fleet\"><strong>{escape(said)}</strong></p>" if said else ""


def _full_graph(drawn: int, legend: str, svg: str) -> str:
    """The full graph, folded: wider than the page."""
    return ("<section id=\"graph\"><h2>Full resource graph</h2><details><summary>Every resource in one "
            f"graph ({counted(drawn, 'resource')}), grouped by component, every recorded edge drawn; "
            f"wider than the page: it scrolls sideways</summary><p class=\"legend\">{legend}</p>"
            f"<figure class=\"scroll\" role=\"img\" aria-label=\"Resource graph of "
            f"{counted(drawn, 'resource')}, grouped by component; the resource table below lists them\">"
            f"{svg}</figure></details></section>")


def _storage(plan: Plan) -> str:
    """The plan's ``storage`` section (trainstack.estimate.checkpoint) as a table; nothing without one."""
    storage = plan.sections.storage
    timings = (storage.as_dict().get("checkpoints") if storage is not None else None) or []
    if not timings:
        return ""
    rows = "".join(
        f"<tr><td>{escape(t['fileSystem'])}</td><td>{t['checkpointGB']:,.0f} GB every {t['intervalMinutes']:g} min"
        f"</td><td>{t['writers']} x {escape(t['writerInstanceType'])} ({escape(t['transport'].upper())})</td>"
        f"<td>{t['fileSystemMBps']:,.0f}</td><td>{t['writeSeconds']:,.0f}</td><td>{t['intervalShare']:.1%}</td>"
        f"<td>{_kept(t['storedGB'], t['capacityGB'])}</td></tr>" for t in timings)
    return ("<section id=\"storage\"><h2>Checkpoints on FSx for Lustre</h2><div class=\"scroll\"><table><thead><tr>"
            "<th>file system</th><th>checkpoint</th><th>written by</th><th>file system MB/s</th>"
            "<th>seconds to write</th><th>share of interval</th><th>kept</th></tr></thead><tbody>"
            + rows + "</tbody></table></div></section>")


def _cost(plan: Plan) -> CostEstimate:
    """The plan's cost estimate. A saved record's cost section has no line's resources, which the page
    groups by component, so it is estimated again from the record's resources (the same function, so
    the same figures)."""
    return plan.sections.cost if isinstance(plan.sections.cost, CostEstimate) else estimate_cost(plan)


def _critical_path(plan: Plan) -> CriticalPath:
    """The plan's critical path; a saved record's names its steps by type and name only, so it is read
    again from the record's resources, which the timeline marks by URN."""
    found = plan.sections.critical_path
    return found if isinstance(found, CriticalPath) else critical_path(plan)


def _kept(stored_gb: float, capacity_gb: float | None) -> str:
    """What the kept checkpoints fill; Intelligent-Tiering has no capacity to fill (its storage is elastic)."""
    if capacity_gb is None:
        return f"{stored_gb:,.0f} GB (elastic storage)"
    return f"{stored_gb:,.0f} of {capacity_gb:,.0f} GB"
