"""The deploy timeline as SVG: one row per component, its steps on demand.

The first chart has a row per component spanning its resources, from the first start to the
last end, and the critical path as one continuous red line: along a component's row while one
of its resources is the step in progress, down or up to the next component's row where the
next step starts. The longest steps on that path carry their minutes. Under it, each
component's own rows (one per resource that takes time) open in a ``details``, on the same
time axis so a bar sits under its component's span.

The bars come from ``estimate.schedule``, the model the critical path is read from, so the
charts and the critical-path line always agree. Bars are placed on a time axis, not laid out
as a graph, so plain SVG arithmetic is all this needs.
"""

from __future__ import annotations

from html import escape

from ..estimate import Slot
from ..estimate.durations import minutes
from ..plan import ResourceRecord
from .groups import Component
from .numbers import counted

LABEL_WIDTH = 280
CHART_WIDTH = 760
RIGHT = 90
"""Room right of the last bar for its minutes."""
ROW = 26
STEP_ROW = 16
AXIS = 24
LABELLED_WAITS = 3


def component_rows(components: list[Component], slots: dict[str, Slot], chain: list[ResourceRecord]) -> str:
    """The chart of component spans with the critical path's red line; ``chain`` is the critical path."""
    total = _total(slots)
    rows = _ordered(components, slots)
    height = AXIS + ROW * len(rows) + 4
    parts = [_open("gantt components", height, "Estimated pulumi up by component: each row spans its "
                   "resources; the red line is the critical path"), *_axis(total, height)]
    row_of: dict[str, int] = {}
    for index, (component, start, end) in enumerate(rows):
        y = AXIS + index * ROW
        row_of.update((r.urn, index) for r in component.resources)
        parts.append(f'<g class="span"><title>{escape(component.title)}: {round(start, 2):g} to '
                     f'{round(end, 2):g} min</title>'
                     f'<text class="label" x="{LABEL_WIDTH - 6}" y="{y + ROW - 6}">{escape(_clip(component.title))}'
                     f'</text><rect x="{_x(start, total):.1f}" y="{y + 11}" '
                     f'width="{max(_x(end, total) - _x(start, total), 1.5):.1f}" height="{ROW - 14}"/></g>')
    steps = [(r, slots[r.urn], AXIS + row_of[r.urn] * ROW + 17.0) for r in chain if r.urn in row_of]
    parts.append(_red_line(steps, total))
    for resource, slot, line in sorted(steps, key=lambda s: -minutes(s[0]))[:LABELLED_WAITS]:
        parts.append(f'<text class="wait" x="{(_x(slot.start, total) + _x(slot.end, total)) / 2:.1f}" '
                     f'y="{line - 8:.1f}">{escape(_clip(resource.name, 30))}: {minutes(resource):g} min</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def component_steps(component: Component, slots: dict[str, Slot], critical: set[str],
                    changed: dict[str, str]) -> str:
    """One component's rows, a bar per resource that takes time, on the page's time axis."""
    total = _total(slots)
    rows = sorted((r for r in component.resources if minutes(r) > 0),
                  key=lambda r: (slots[r.urn].start, slots[r.urn].end))
    height = AXIS + STEP_ROW * len(rows) + 4
    parts = [_open("gantt steps", height, f"{component.title}: one bar per resource from its earliest start "
                   "to its end"), *_axis(total, height)]
    for index, resource in enumerate(rows):
        slot, y = slots[resource.urn], AXIS + index * STEP_ROW
        classes = " ".join(["bar"] + (["critical"] if resource.urn in critical else [])
                           + ([changed[resource.urn]] if resource.urn in changed else []))
        mark = f" [{changed[resource.urn]}]" if resource.urn in changed else ""
        took = f'<text class="took" x="{_x(slot.end, total) + 4:.1f}" y="{y + STEP_ROW - 4}">' \
               f'{minutes(resource):g} min</text>' if minutes(resource) >= 1 else ""
        parts.append(f'<g class="{classes}"><title>{escape(resource.name)} ({escape(resource.type)}): '
                     f'{round(slot.start, 2):g} to {round(slot.end, 2):g} min{escape(mark)}</title>'
                     f'<text class="label" x="{LABEL_WIDTH - 6}" y="{y + STEP_ROW - 4}">'
                     f'{escape(_clip(resource.name + mark))}</text>'
                     f'<rect x="{_x(slot.start, total):.1f}" y="{y + 2}" '
                     f'width="{max(_x(slot.end, total) - _x(slot.start, total), 1.5):.1f}" '
                     f'height="{STEP_ROW - 4}"/>{took}</g>')
    parts.append("</svg>")
    return "\n".join(parts)


def span(component: Component, slots: dict[str, Slot]) -> str:
    """``5 steps, 0.3 to 8.3 min``: what a component's folded rows say."""
    timed = [r for r in component.resources if minutes(r) > 0]
    return (f"{counted(len(timed), 'step')}, {min(slots[r.urn].start for r in component.resources):.1f} to "
            f"{max(slots[r.urn].end for r in component.resources):.1f} min")


def _ordered(components: list[Component], slots: dict[str, Slot]) -> list[tuple[Component, float, float]]:
    """The rows in the architecture's order (network, control plane, node groups ...), as the overview
    and the cost read, so the red line steps between neighbours: the cluster, then its node groups."""
    return [(c, min(slots[r.urn].start for r in c.resources), max(slots[r.urn].end for r in c.resources))
            for c in components]


def _red_line(steps: list[tuple[ResourceRecord, Slot, float]], total: float) -> str:
    """One path along every step of the critical path: across while a step runs, down or up between rows."""
    if not steps:
        return ""
    commands = []
    for number, (_, slot, y) in enumerate(steps):
        commands.append(f"M{_x(slot.start, total):.1f} {y:.1f}" if number == 0
                        else f"H{_x(slot.start, total):.1f} V{y:.1f}")
        commands.append(f"H{_x(slot.end, total):.1f}")
    return f'<path class="critical-path" d="{" ".join(commands)}"><title>critical path</title></path>'


def _open(classes: str, height: int, title: str) -> str:
    width = LABEL_WIDTH + CHART_WIDTH + RIGHT
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="{classes}" viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}" role="img"><title>{escape(title)}</title>')


def _axis(total: float, height: int) -> list[str]:
    step, tick, lines = _tick(total), 0.0, []
    while tick <= total + 1e-9:
        x = _x(tick, total)
        lines.append(f'<line class="tick" x1="{x:.1f}" y1="{AXIS - 6}" x2="{x:.1f}" y2="{height}"/>'
                     f'<text class="axis" x="{x:.1f}" y="{AXIS - 9}">{tick:g} min</text>')
        tick += step
    return lines


def _total(slots: dict[str, Slot]) -> float:
    return max((slot.end for slot in slots.values()), default=0.0) or 1.0


def _x(at: float, total: float) -> float:
    return LABEL_WIDTH + at * CHART_WIDTH / total


def _tick(total: float) -> float:
    for step in (0.5, 1, 2, 5, 10, 15, 30, 60):
        if total / step <= 12:
            return float(step)
    return 120.0


def _clip(text: str, limit: int = 44) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"
