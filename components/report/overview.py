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
from .graph import ACTION_COLOURS, PAGE_INCHES, RED, _digraph
from .groups import Component
from .numbers import counted

SEVERITY = ("create", "update", "replace")
"""A component with several changes is filled with the most drastic one's colour."""


def overview_graph(components: list[Component], slots: dict[str, Slot], hourly: dict[str, float],
                   critical: list[str], changed: dict[str, str]) -> str:
    """The DOT source of the overview; ``hourly`` is each component's $/h at desired size by key."""
    owner = {r.urn: c.key for c in components for r in c.resources}
    index = {c.key: f"k{number}" for number, c in enumerate(components)}
    on_path = {owner[urn] for urn in critical if urn in owner}
    graph = _digraph("overview", size=PAGE_INCHES, nodesep="0.2", ranksep="0.6")
    for number, component in enumerate(components):
        start = min(slots[r.urn].start for r in component.resources)
        end = max(slots[r.urn].end for r in component.resources)
        actions = [changed[r.urn] for r in component.resources if r.urn in changed]
        lines = [component.title, f"{counted(len(component.resources), 'resource')} · ${hourly[component.key]:,.2f}/h",
                 f"built {start:.0f}–{end:.0f} min"] + ([f"{len(actions)} changed"] if actions else [])
        attributes = {"label": "\\n".join(lines), "id": index[component.key], "URL": f"#component-{number}",
                      "tooltip": f"{component.title}: open its graph below", "fontsize": "11", "margin": "0.12,0.06"}
        if component.key in on_path:
            attributes.update(color=RED, penwidth="2.4")
        if actions:
            attributes["fillcolor"] = ACTION_COLOURS[max(actions, key=_drastic)]
        graph.node(index[component.key], **attributes)
    path_steps = frozenset(_between(pairwise(critical), owner))
    between = _between(waits_for(r for c in components for r in c.resources), owner)
    for source, target in reduced(between + sorted(path_steps - set(between)), keep=path_steps):
        graph.edge(index[source], index[target], **({"color": RED, "penwidth": "2.2"}
                                                    if (source, target) in path_steps else {}))
    return graph.source


def _between(edges: Iterable[Edge], owner: dict[str, str]) -> list[Edge]:
    """Resource edges as edges between their components, each once, none from a component to itself."""
    found = [(owner[a], owner[b]) for a, b in edges if a in owner and b in owner]
    return list(dict.fromkeys(edge for edge in found if edge[0] != edge[1]))


def _drastic(action: str) -> int:
    return SEVERITY.index(action) if action in SEVERITY else len(SEVERITY)
