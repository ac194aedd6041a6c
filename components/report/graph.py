"""The resource graphs as Graphviz sources: one per component, and the full graph of every resource.

Why Graphviz: a dependency graph of a few hundred resources in labelled clusters is what
``dot`` (layered layout, clusters, ranked edges) was made for, and its SVG is static, so
the page needs no script at all. The JavaScript alternatives (dagre, ELK.js, Cytoscape)
would have to be inlined into every report (hundreds of kB) and run in the reader's
browser. The cost is a system dependency: ``dot`` must be on PATH where the report is
made (not where it is read); ``page.render_report`` refuses with the fix when it is not.
``layout.draw`` lays every graph of a page out in one ``dot`` run.
"""

from __future__ import annotations

from itertools import pairwise

import graphviz

from ..catalog import resource_types
from ..plan import ResourceRecord
from .edges import reduced, waits_for
from .groups import ORDER, Component, marks, part_of, short_type

ACTION_COLOURS = {"create": "#d9f2d9", "update": "#fff1c2", "replace": "#f9d3d3"}
RED = "#c0392b"
PAGE_INCHES = "12,1000"
"""Graphviz ``size``: a drawing wider than 12 in (864 pt, 1,152 CSS px: the page's column) is scaled
down to it; one that fits is left as it is. Height is free: the page scrolls down, never sideways."""


def component_graph(component: Component, index: int, critical: list[str], changed: dict[str, str]) -> str:
    """The DOT source of one component's resources and the edges among them, transitively reduced
    (the critical path's steps always drawn); its SVG ids start with ``c<index>``."""
    graph = digraph(f"c{index}", id=f"c{index}", size=PAGE_INCHES)
    on_path = set(critical)
    for number, resource in enumerate(component.resources):
        graph.node(f"c{index}r{number}", **_node(resource, on_path, changed, f"c{index}r{number}"))
    ids = {r.urn: f"c{index}r{number}" for number, r in enumerate(component.resources)}
    path_edges = frozenset(pairwise(critical))
    for source, target in reduced(waits_for(component.resources), keep=path_edges):
        graph.edge(ids[source], ids[target], **_edge((source, target) in path_edges))
    dot_source: str = graph.source
    return dot_source


def full_graph(drawn: list[ResourceRecord], by_urn: dict[str, ResourceRecord], critical: list[str],
               changed: dict[str, str]) -> str:
    """The DOT source of every drawn resource (``drawn``, in record order), in one cluster per part,
    every recorded edge drawn. Node ids are ``r<n>``, ``n`` the resource's place in ``drawn``.

    A resource sits in the cluster of the component that builds it (``part_of``: the system group
    with the control plane), not in its overview box: measured on the 64-group stack, moving the
    system group into the node groups' cluster doubles ``dot``'s time (0.4 to 1.0 s, loaded machine)
    for a graph that is folded at the end of the page."""
    ids = {r.urn: f"r{number}" for number, r in enumerate(drawn)}
    part = {r.urn: part_of(r, by_urn) for r in drawn}
    graph = digraph("full")  # no id: Graphviz 2.43 would give every cluster the graph's id
    on_path = set(critical)
    for name in ORDER:
        inside = [r for r in drawn if part[r.urn] == name]
        if not inside:
            continue
        with graph.subgraph(name=f"cluster_{ORDER.index(name)}") as cluster:
            cluster.attr(label=name, style="rounded,filled", fillcolor="#f3f5f8", color="#c5ccd6",
                         fontname="Helvetica-Bold")
            for resource in inside:
                cluster.node(ids[resource.urn], **_node(resource, on_path, changed, ids[resource.urn]))
    path_edges = set(pairwise(critical))
    for source, target in waits_for(drawn):
        graph.edge(ids[source], ids[target], **_edge((source, target) in path_edges))
    dot_source: str = graph.source
    return dot_source


def digraph(name: str, **extra: str) -> graphviz.Digraph:
    """A left-to-right graph; ``extra`` graph attributes (an ``id`` prefixes the SVG ids of its edges)."""
    return graphviz.Digraph(name, graph_attr={
        "rankdir": "LR", "fontname": "Helvetica", "fontsize": "12", "nodesep": "0.15",
        "ranksep": "0.45", "bgcolor": "transparent", **extra},
        node_attr={"shape": "box", "style": "rounded,filled", "fillcolor": "white", "fontname": "Helvetica",
                   "fontsize": "10", "height": "0.3"},
        edge_attr={"color": "#8a8a8a", "arrowsize": "0.6"})


def _node(resource: ResourceRecord, on_path: set[str], changed: dict[str, str], node_id: str) -> dict[str, str]:
    """A resource's box: name and short type; cylinder if stateful, double outline if protected, red
    outline on the critical path, filled by its diff action; the tooltip says all of it in words."""
    said = marks(resource, on_path, changed)
    attributes = {"tooltip": f"{resource.name} ({resource.type}){': ' if said else ''}{', '.join(said)}",
                  "id": node_id, "label": f"{resource.name}\\n{short_type(resource.type)}"
                  + (f"\\n[{changed[resource.urn]}]" if resource.urn in changed else "")}
    if resource_types.loses(resource.type) is not None:
        attributes.update(shape="cylinder", style="filled")
    if resource.options.protect:
        attributes["peripheries"] = "2"
    if resource.urn in on_path:
        attributes.update(color=RED, penwidth="2.2")
    if resource.urn in changed:
        attributes["fillcolor"] = ACTION_COLOURS.get(changed[resource.urn], "white")
    return attributes


def _edge(critical: bool) -> dict[str, str]:
    return {"color": RED, "penwidth": "2"} if critical else {}
