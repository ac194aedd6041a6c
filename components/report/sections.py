"""The page's folded sections: each component's graph, the timeline with each component's steps,
and the resource table."""

from __future__ import annotations

from html import escape

from ..estimate import CriticalPath, Slot
from ..plan import ResourceRecord
from .groups import Component, marks
from .numbers import counted
from .timeline import component_rows, component_steps, span


def component_details(components: list[Component], graphs: list[str], slots: dict[str, Slot],
                      hourly: dict[str, float], legend: str) -> str:
    """One folded ``details`` per component (``id="component-N"``, the overview's links) with its graph."""
    folds = []
    for number, (component, svg) in enumerate(zip(components, graphs, strict=True)):
        folds.append(f"<details id=\"component-{number}\"><summary><strong>{escape(component.title)}</strong>: "
                     f"{counted(len(component.resources), 'resource')}, ${hourly[component.key]:,.2f}/h, "
                     f"{escape(span(component, slots))}</summary>"
                     f"<figure class=\"fit\" role=\"img\" aria-label=\"Graph of {escape(component.title)}: "
                     f"{counted(len(component.resources), 'resource')}\">{svg}</figure></details>")
    return ("<section id=\"components\"><h2>Components</h2><p class=\"legend\">Each component's resources and "
            f"what each waits for (an arrow implied by a longer path is left out). {legend}</p>"
            + "".join(folds) + "</section>")


def timeline_section(components: list[Component], slots: dict[str, Slot], path: CriticalPath,
                     changed: dict[str, str]) -> str:
    critical = {r.urn for r in path.chain}
    folds = "".join(f"<details id=\"steps-{number}\"><summary>{escape(component.title)}: "
                    f"{escape(span(component, slots))}</summary><figure class=\"fit\">"
                    f"{component_steps(component, slots, critical, changed)}</figure></details>"
                    for number, component in enumerate(components))
    return ("<section id=\"timeline\"><h2>Deploy timeline</h2>"
            f"<p>Estimated <code>pulumi up</code>: about <strong>{path.minutes:.0f} min</strong> along the critical "
            f"path (the red line, its longest steps labelled); <strong>{path.serial_minutes:.0f} min</strong> if "
            "everything ran one after another (the serial sum). Each resource starts once everything it waits for "
            "exists; each row spans a component's resources, whose own bars open below.</p>"
            f"<figure class=\"fit\">{component_rows(components, slots, path.chain)}</figure>{folds}</section>")


def resource_table(drawn: list[ResourceRecord], components: list[Component], slots: dict[str, Slot],
                   critical: set[str], changed: dict[str, str]) -> str:
    part = {r.urn: c.part for c in components for r in c.resources}
    rows = []
    for resource in drawn:
        slot = slots[resource.urn]
        rows.append(f"<tr><td>{escape(part[resource.urn])}</td><td>{escape(resource.name)}</td>"
                    f"<td>{escape(resource.type)}</td><td>{slot.start:g}</td><td>{slot.end:g}</td>"
                    f"<td>{escape(', '.join(marks(resource, critical, changed)))}</td></tr>")
    return ("<section id=\"resources\"><h2>Resources</h2><details><summary>Every resource, its component, "
            "its estimated start and end, and its marks (the graphs and the timeline as a table)</summary>"
            "<div class=\"scroll\"><table><thead><tr><th scope=\"col\">component</th><th scope=\"col\">name</th>"
            "<th scope=\"col\">type</th><th scope=\"col\">start (min)</th><th scope=\"col\">end (min)</th>"
            f"<th scope=\"col\">marks</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div></details>"
            "</section>")
