"""The deploy timeline as an SVG Gantt chart: each resource from its earliest start to its end.

The bars come from ``estimate.schedule``, the model the critical path is read from, so the
chart and the critical-path line always agree. Bars are placed on a time axis, not laid out
as a graph, so plain SVG arithmetic is all this needs.
"""

from __future__ import annotations

from html import escape

from ..estimate import Slot
from ..plan import ResourceRecord

LABEL_WIDTH = 300
CHART_WIDTH = 620
ROW = 16
AXIS = 24


def gantt(rows: list[tuple[ResourceRecord, Slot]], critical: set[str], changed: dict[str, str]) -> str:
    """The chart's ``<svg>`` element; ``rows`` in the order they are drawn."""
    total = max((slot.end for _, slot in rows), default=0.0) or 1.0
    scale = CHART_WIDTH / total
    height = AXIS + ROW * len(rows) + 4
    width = LABEL_WIDTH + CHART_WIDTH + 20
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="gantt" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" role="img" aria-labelledby="gantt-title">',
             '<title id="gantt-title">Estimated pulumi up: one bar per resource from its earliest start to its end '
             '(the table below lists the same)</title>']
    step = _tick(total)
    tick = 0.0
    while tick <= total + 1e-9:
        x = LABEL_WIDTH + tick * scale
        parts.append(f'<line class="tick" x1="{x:.1f}" y1="{AXIS - 6}" x2="{x:.1f}" y2="{height}"/>'
                     f'<text class="axis" x="{x:.1f}" y="{AXIS - 9}">{tick:g} min</text>')
        tick += step
    for index, (resource, slot) in enumerate(rows):
        y = AXIS + index * ROW
        classes = " ".join(["bar"] + (["critical"] if resource.urn in critical else [])
                           + ([changed[resource.urn]] if resource.urn in changed else []))
        mark = f" [{changed[resource.urn]}]" if resource.urn in changed else ""
        parts.append(f'<g class="{classes}"><title>{escape(resource.name)} ({escape(resource.type)}): '
                     f'{slot.start:g} to {slot.end:g} min{escape(mark)}</title>'
                     f'<text class="label" x="{LABEL_WIDTH - 6}" y="{y + ROW - 4}">'
                     f'{escape(_clip(resource.name + mark))}</text>'
                     f'<rect x="{LABEL_WIDTH + slot.start * scale:.1f}" y="{y + 2}" '
                     f'width="{max((slot.end - slot.start) * scale, 1.5):.1f}" height="{ROW - 4}"/></g>')
    parts.append("</svg>")
    return "\n".join(parts)


def _tick(total: float) -> float:
    for step in (0.5, 1, 2, 5, 10, 15, 30, 60):
        if total / step <= 12:
            return float(step)
    return 120.0


def _clip(text: str, limit: int = 46) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"
