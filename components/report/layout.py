"""Every graph of a page laid out by one ``dot`` run.

A page has an overview, one graph per component (70 on a 64-group stack) and the full graph.
``dot`` lays out each graph of its input in turn and writes their SVG documents one after
another, so one process does all of them: starting ``dot`` once per graph would cost a
process start (tens of ms on a loaded machine) per component.

A graph with clusters gets a run of its own: Graphviz 2.43 writes the clusters of a graph laid
out after others in the same run in an order that varies from run to run (measured: the full
graph's ``cluster_N`` groups came out shuffled on every other run), and the page must be the
same bytes for the same record. The overview and the component graphs have no clusters.
"""

from __future__ import annotations

import graphviz

XML_DECLARATION = "<?xml"


def draw(sources: list[str]) -> list[str]:
    """The ``<svg>`` element of each DOT source, in order; a graph with clusters must come alone."""
    if len(sources) > 1 and any("subgraph cluster" in source for source in sources):
        raise ValueError("a graph with clusters is laid out in a dot run of its own (see the module's note)")
    output: str = graphviz.pipe("dot", "svg", "\n".join(sources).encode()).decode()
    documents = output.split(XML_DECLARATION)[1:]
    if len(documents) != len(sources):
        raise RuntimeError(f"dot drew {len(documents)} graphs of {len(sources)}")
    return [document[document.index("<svg"):].strip() for document in documents]
