"""The resource graph as SVG, laid out by Graphviz.

Why Graphviz: a dependency graph of a few hundred resources in labelled clusters is what
``dot`` (layered layout, clusters, ranked edges) was made for, and its SVG is static, so
the page needs no script at all. The JavaScript alternatives (dagre, ELK.js, Cytoscape)
would have to be inlined into every report (hundreds of kB) and run in the reader's
browser. The cost is a system dependency: ``dot`` must be on PATH where the report is
made (not where it is read); ``page.render_report`` refuses with the fix when it is not.
"""

from __future__ import annotations

from itertools import pairwise

import graphviz

from ..plan import Plan
from ..review import STATEFUL
from .groups import ORDER, marks, part_of, short_type, shown

ACTION_COLOURS = {"create": "#d9f2d9", "update": "#fff1c2", "replace": "#f9d3d3"}


def resource_graph(plan: Plan, critical: list[str], changed: dict[str, str]) -> str:
    """The graph's ``<svg>`` element: resources in clusters by part, edges from what each waits for.

    ``critical`` is the critical path's URNs in order; ``changed`` maps URNs to their diff action."""
    by_urn = {r.urn: r for r in plan.resources}
    nodes = [r for r in plan.resources if shown(r)]
    ids = {r.urn: f"r{index}" for index, r in enumerate(nodes)}  # the SVG element ids, in record order
    on_path = set(critical)
    graph = graphviz.Digraph("resources", graph_attr={
        "rankdir": "LR", "fontname": "Helvetica", "fontsize": "12", "nodesep": "0.15", "ranksep": "0.5",
        "bgcolor": "transparent"}, node_attr={"shape": "box", "style": "rounded,filled", "fillcolor": "white",
                                              "fontname": "Helvetica", "fontsize": "10", "height": "0.3"},
        edge_attr={"color": "#8a8a8a", "arrowsize": "0.6"})
    parts: dict[str, list[str]] = {}
    for resource in nodes:
        parts.setdefault(part_of(resource, by_urn), []).append(resource.urn)
    for part in ORDER:
        if part not in parts:
            continue
        with graph.subgraph(name=f"cluster_{ORDER.index(part)}") as cluster:
            cluster.attr(label=part, style="rounded,filled", fillcolor="#f3f5f8", color="#c5ccd6",
                         fontname="Helvetica-Bold")
            for urn in parts[part]:
                resource = by_urn[urn]
                said = marks(resource, on_path, changed)
                attributes = {"tooltip": f"{resource.name} ({resource.type}){': ' if said else ''}"
                                         f"{', '.join(said)}", "id": ids[urn]}
                if resource.type in STATEFUL:
                    attributes["shape"] = "cylinder"
                    attributes["style"] = "filled"
                if resource.options.protect:
                    attributes["peripheries"] = "2"
                if urn in on_path:
                    attributes.update(color="#c0392b", penwidth="2.2")
                if urn in changed:
                    attributes["fillcolor"] = ACTION_COLOURS.get(changed[urn], "white")
                label = f"{resource.name}\\n{short_type(resource.type)}"
                if urn in changed:
                    label += f"\\n[{changed[urn]}]"
                cluster.node(ids[urn], label=label, **attributes)
    path_edges = set(pairwise(critical))
    for resource in nodes:
        for dependency in sorted(set(resource.dependencies) | set(resource.options.depends_on)):
            if dependency in ids and dependency != resource.urn:
                on = (dependency, resource.urn) in path_edges
                graph.edge(ids[dependency], ids[resource.urn], **({"color": "#c0392b", "penwidth": "2"} if on else {}))
    svg: str = graph.pipe(format="svg", encoding="utf-8")
    return svg[svg.index("<svg"):].strip()

