"""Which arrows a graph of the report draws: what each resource waits for, less what is implied.

An edge ``(a, b)`` says ``b`` waits for ``a`` (``b`` lists ``a`` among its input dependencies or in
``depends_on``). Drawn as recorded, a component's graph is a thicket: a subnet, its route table
and the association that waits for both are three arrows where two say the same. The transitive
reduction keeps an edge only when no longer path joins its ends, which keeps every "waits for"
readable from the picture (Aho, Garey and Ullman, "The transitive reduction of a directed graph",
SIAM J. Comput. 1(2), 1972: for an acyclic graph the reduction is unique).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..plan import ResourceRecord

Edge = tuple[str, str]


def waits_for(resources: Iterable[ResourceRecord]) -> list[Edge]:
    """Every recorded "waits for" between the given resources, in record order."""
    listed = list(resources)
    inside = {r.urn for r in listed}
    return [(dependency, r.urn) for r in listed
            for dependency in sorted(set(r.dependencies) | set(r.options.depends_on))
            if dependency in inside and dependency != r.urn]


def reduced(edges: list[Edge], keep: frozenset[Edge] = frozenset()) -> list[Edge]:
    """``edges`` without those implied by a longer path, in their order; ``keep`` are drawn regardless
    (the critical path's steps, so its red line never breaks).

    Edges are dropped one at a time, each only if its target is still reachable from its source
    without it: what waits for what (reachability) is kept whatever the order, also where
    components wait for each other both ways (the control plane's security group admits the file
    system's clients; the file system's rules name the cluster's group), a cycle for which no
    transitive reduction is unique."""
    unique = list(dict.fromkeys(edges))
    after: dict[str, list[str]] = {}
    for source, target in unique:
        after.setdefault(source, []).append(target)
    kept = []
    for edge in unique:
        if edge not in keep and _reachable_without(after, edge):
            after[edge[0]].remove(edge[1])
        else:
            kept.append(edge)
    return kept


def _reachable_without(after: dict[str, list[str]], edge: Edge) -> bool:
    """Whether ``edge``'s target is reachable from its source by another path."""
    source, target = edge
    seen, frontier = {source}, [t for t in after[source] if t != target]
    while frontier:
        node = frontier.pop()
        if node == target:
            return True
        if node not in seen:
            seen.add(node)
            frontier.extend(after.get(node, ()))
    return False
