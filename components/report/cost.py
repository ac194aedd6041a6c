"""The cost section: by component, then by item (folded: a 64-group stack has over a hundred
items, 6,000 px of table); and each component's share for the overview.

A cost line is counted under the component of the first resource it prices (a node group's
instances under that node group, the system group's too: ``groups.components`` makes it a node
group of its own), so the overview's boxes, the table by component and the total agree.
"""

from __future__ import annotations

from html import escape

from ..estimate.cost import CostEstimate, CostLine
from ..estimate.totals import total_said
from .groups import ORDER, Component


def owners(cost: CostEstimate, components: list[Component]) -> list[tuple[CostLine, Component]]:
    """Each cost line with the component it is counted under; a line that prices no drawn resource
    is the stack's."""
    owner = {r.urn: c for c in components for r in c.resources}
    stack = next((c for c in components if c.part == "stack"), Component("stack", "stack", "stack"))
    return [(line, owner.get(line.resources[0], stack) if line.resources else stack) for line in cost.lines]


def hourly_by_component(cost: CostEstimate, components: list[Component], at: str = "desired") -> dict[str, float]:
    """US$ per hour at ``at`` size by component key (0 for a component with no priced line)."""
    total = {c.key: 0.0 for c in components}
    for line, component in owners(cost, components):
        if line.counted:  # an existing cluster's nodes are named, never totalled
            total[component.key] = total.get(component.key, 0.0) + line.hourly(at)
    return total


def cost_section(cost: CostEstimate, components: list[Component]) -> str:
    """The cost by part (network, control plane, node groups ...), then by item."""
    record = cost.as_dict()
    lines = owners(cost, components)
    rows = []
    for line, component in lines:
        price = line.unit_usd_per_hour
        shown = price is not None and line.counted
        cells = [escape(line.item.strip()), escape(component.part), f"{line.quantity_desired:g}",
                 f"{line.quantity_max:g}", "no price" if price is None else f"{price:.4f}",
                 f"{line.hourly('desired'):,.2f}" if shown else "" if line.counted else "not counted",
                 f"{line.hourly('max'):,.2f}" if shown else "" if line.counted else "not counted",
                 escape(line.source)]
        rows.append(("<tr class=\"unpriced\">" if price is None else "<tr>") + "".join(
            f"<td>{c}</td>" for c in cells) + "</tr>")
    by_part = []
    for part in ORDER:
        its = [line for line, component in lines if component.part == part and line.counted]
        if its:
            unpriced = sum(1 for line in its if not line.priced)
            by_part.append(
                f"<tr><th scope=\"row\">{escape(part)}</th><td>{sum(li.hourly('desired') for li in its):,.2f}</td>"
                f"<td>{sum(li.hourly('max') for li in its):,.2f}</td><td>{unpriced or ''}</td></tr>")
    unpriced_items = [line.item.strip() for line in cost.unpriced]
    note = ("<p><strong>Not priced</strong> (no published price found; not counted in the totals, which are "
            "therefore lower bounds): " + ", ".join(escape(u) for u in unpriced_items) + ".</p>"
            ) if unpriced_items else "<p>Every item is priced.</p>"
    hourly = record["hourlyUsd"]
    return ("<section id=\"cost\"><h2>Cost</h2>"
            f"<p>On demand in {escape(cost.region)}: at desired size <strong>{escape(total_said(record, 'desired'))}"
            f"</strong>; at max size <strong>{escape(total_said(record, 'max'))}</strong>.</p>"
            "<div class=\"scroll\"><table class=\"by-component\"><caption>Cost by component, in $/h</caption>"
            "<thead><tr><th scope=\"col\">component</th><th scope=\"col\">$/h desired</th>"
            "<th scope=\"col\">$/h max</th><th scope=\"col\">items not priced</th></tr></thead><tbody>"
            + "".join(by_part) + "</tbody>"
            f"<tfoot><tr><th scope=\"row\">total</th><td>{hourly['desired']:,.2f}</td><td>{hourly['max']:,.2f}</td>"
            f"<td>{len(unpriced_items) or ''}</td></tr></tfoot></table></div>"
            f"<details class=\"by-item\"><summary>Cost by item ({len(rows)} items, at desired and at max size, "
            "with each price's source)</summary>"
            "<div class=\"scroll\"><table class=\"cost\"><caption>Cost by item, at desired and at max size</caption>"
            "<thead><tr><th scope=\"col\">item</th><th scope=\"col\">component</th><th scope=\"col\">desired</th>"
            "<th scope=\"col\">max</th><th scope=\"col\">$/h each</th><th scope=\"col\">$/h desired</th>"
            "<th scope=\"col\">$/h max</th><th scope=\"col\">source</th></tr></thead><tbody>" + "".join(rows)
            + "</tbody></table></div></details>" + note + "</section>")
