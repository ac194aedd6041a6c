"""The overview: one box per component, the arrows between components only.

It is the first figure of the page and is drawn to fit its width: a few boxes (one per
component, each node group its own) instead of every resource. Each box says what the
component costs and when it is built, so the reader sees where the money and the minutes go
before opening a component's own graph (each box links to it).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise

from ..estimate import Slot
from .edges import Edge, reduced, waits_for
from .fleet import nodes
from .graph import ACTION_COLOURS, PAGE_INCHES, RED, digraph
from .groups import Component
from .numbers import counted

ROOMY = 16
"""Up to this many components, a box says its build time on a line of its own; with more (a stack of
many node groups, stacked in one column) it shares the second line, so the column is a third shorter."""
SEVERITY = ("create", "update", "replace")
"""A component with several changes is filled with the most drastic one's colour."""


def overview_graph(components: list[Component], slots: dict[str, Slot], hourly: dict[str, float],
                   critical: list[str], changed: dict[str, str]) -> str:
    """The DOT source of the overview; ``hourly`` is each component's $/h at desired size by key."""
    owner = {r.urn: c.key for c in components for r in c.resources}
    index = {c.key: f"k{number}" for number, c in enumerate(components)}
    on_path = {owner[urn] for urn in critical if urn in owner}
    graph = digraph("overview", id="overview-graph", size=PAGE_INCHES, nodesep="0.12", ranksep="0.6")
    for number, component in enumerate(components):
        start = min(slots[r.urn].start for r in component.resources)
        end = max(slots[r.urn].end for r in component.resources)
        actions = [changed[r.urn] for r in component.resources if r.urn in changed]
        built = f"built {round(start, 1):g} to {round(end, 1):g} min"
        group = nodes(component)
        lines = [component.title, (f"{group.said()} · " if group else "")
                 + f"{counted(len(component.resources), 'resource')} · ${hourly[component.key]:,.2f}/h"
                 + ("\\n" if len(components) <= ROOMY else " · ") + built]
        if actions:
            lines.append(f"{len(actions)} changed")
        attributes = {"label": "\\n".join(lines), "id": index[component.key], "URL": f"#component-{number}",
                      "tooltip": f"{component.title}: open its graph below", "fontsize": "11", "margin": "0.12,0.06"}
        if component.key in on_path:
            attributes.update(color=RED, penwidth="2.4")
        if actions:
            attributes["fillcolor"] = ACTION_COLOURS[max(actions, key=_drastic)]
        graph.node(index[component.key], **attributes)
    between = _between(waits_for(r for c in components for r in c.resources), owner, slots)
    path_steps = frozenset(edge for edge in _between(pairwise(critical), owner, slots))
    later = _waits_back(between)
    forward = [edge for edge in between if edge not in later] + sorted(path_steps - set(between))
    for source, target in reduced(forward, keep=path_steps) + [edge for edge in between if edge in later]:
        style = {"color": RED, "penwidth": "2.2"} if (source, target) in path_steps else {}
        if (source, target) in later:
            style.update(style="dashed", constraint="false")
        graph.edge(index[source], index[target], **style)
    dot_source: str = graph.source
    return dot_source


def _between(edges: Iterable[Edge], owner: dict[str, str], slots: dict[str, Slot]) -> dict[Edge, float]:
    """Resource edges as edges between their components, none from a component to itself, each with
    when it is first waited on: the earliest end of a resource on its source side."""
    found: dict[Edge, float] = {}
    for a, b in edges:
        if a in owner and b in owner and owner[a] != owner[b]:
            edge = (owner[a], owner[b])
            found[edge] = min(found.get(edge, slots[a].end), slots[a].end)
    return found


def _waits_back(between: dict[Edge, float]) -> set[Edge]:
    """Of two components that wait for each other, the later wait: the control plane's device plugins
    wait for a node group that waited for the cluster 10 minutes before. Drawn dashed and left out of
    the layout's ranks, so the boxes stand in the order they are built."""
    return {(a, b) for (a, b), at in between.items() if (b, a) in between and between[(b, a)] < at}


def _drastic(action: str) -> int:
    return SEVERITY.index(action) if action in SEVERITY else len(SEVERITY)
