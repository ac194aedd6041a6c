"""A Workload Kueue's topology-aware scheduling (TAS) finds no room for: which level of the network its pods must
share, how many fit (Kueue's own count), which nodes TAS left out and why, how the group's nodes sit in the
network's blocks, and what would fit: a broader level, a preference in place of a requirement, a smaller job, or
nodes the group could still add (TAS places pods only on nodes that exist).

Kueue's words are kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/tas_flavor_snapshot.go`` ``notFitMessage``
(read by ``pending_kueue``); a ResourceFlavor names its Topology (``spec.topologyName``) and a Topology its levels,
broadest first (``apis/kueue/v1beta2/topology_types.go``)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from ..names import NODE_GROUP_LABEL
from .finding import Finding, Section
from .pending_jobs import Job
from .pending_kueue import NoRoom
from .pending_queues import Group, Stack

if TYPE_CHECKING:
    from .pending_read import Read

SECTION: Section = "pending"


def no_room(stack: Stack, job: Job, room: NoRoom, read: Read) -> Finding:
    flavor = next((f for f in read.flavors if (f.get("spec") or {}).get("topologyName") == room.topology
                   and job.selects(f)), None)
    group_name = ((flavor or {}).get("spec") or {}).get("nodeLabels", {}).get(NODE_GROUP_LABEL, "")
    group = stack.groups.get(group_name)
    levels = _levels(read, room.topology)
    required = next((p.required for p in job.pod_sets if p.required), None)
    nodes = [n for n in read.nodes if (n["metadata"].get("labels") or {}).get(NODE_GROUP_LABEL) == group_name]
    where = (f"its {room.count} {room.unit}s must share one {required} block (required)" if required
             else f"its {room.count} {room.unit}s prefer one network block, then any nodes of {group_name or 'it'}")
    fit = f"fits only {room.fit}" if room.fit else "fits none"
    actual = (f"waiting on topology: {where}, and Kueue's topology-aware scheduling {fit} of them "
              f"(topology {room.topology}){_excluded(room)}{_blocks(nodes, levels, required)}")
    expected = (f"room for {room.count} {room.unit}s in one {required} block of node group {group_name}" if required
                else f"room for {room.count} {room.unit}s on the nodes of node group {group_name}")
    return Finding(SECTION, job.subject, expected, actual, _fix(stack, job, room, group, nodes, levels, required))


def _levels(read: Read, topology: str) -> list[str]:
    found = next((t for t in read.topologies if t["metadata"]["name"] == topology), {})
    return [level["nodeLabel"] for level in (found.get("spec") or {}).get("levels") or []]


def _excluded(room: NoRoom) -> str:
    if not room.excluded:
        return ""
    said = []
    for reason, count in room.excluded.items():
        if reason.startswith("taint "):
            said.append(f"{count} carry the taint {reason.removeprefix('taint ')}, which the pods do not tolerate")
        elif reason.startswith("resource "):
            said.append(f"{count} have too little free {reason.removeprefix('resource ')}")
        elif reason == "nodeSelector":
            said.append(f"{count} lack the labels the pods' nodeSelector asks for")
        else:
            said.append(f"{count} left out by {reason}")
    return f"; of the {room.nodes} nodes it looked at, {', '.join(said)}"


def _blocks(nodes: list[dict[str, Any]], levels: list[str], required: str | None) -> str:
    """How the group's nodes sit in the required level's blocks (its nodes per value of the level's label)."""
    if required is None or not nodes:
        return ""
    sizes = sorted(_per_block(nodes, required).values(), reverse=True)
    return (f"; the group's {len(nodes)} nodes sit in {len(sizes)} such block{'s' if len(sizes) != 1 else ''} "
            f"({', '.join(str(s) for s in sizes)} nodes)")


def _per_block(nodes: list[dict[str, Any]], label: str) -> Counter[str]:
    return Counter((n["metadata"].get("labels") or {}).get(label, "(no label)") for n in nodes)


def _fix(stack: Stack, job: Job, room: NoRoom, group: Group | None, nodes: list[dict[str, Any]], levels: list[str],
         required: str | None) -> str:
    team = stack.teams.get(job.cluster_queue or "")
    name, who = (group.name if group else "GROUP"), (team.name if team else None)
    ways = []
    if required is not None and required in levels:
        # The narrowest level above the required one that has a block of as many nodes as the job has pods.
        broader = next(((i + 1, label) for i, label in reversed(list(enumerate(levels[:levels.index(required)])))
                        if max(_per_block(nodes, label).values(), default=0) >= room.count), None)
        if broader is not None:
            again = job.resubmit(name, who, room.count, "--topology required", f"--layer {broader[0]}")
            ways.append(f"ask for a broader block: {again} (one {broader[1]} block holds "
                        f"{max(_per_block(nodes, broader[1]).values())} nodes)")
        ways.append("or prefer one block rather than require it: the same with --topology preferred")
    for reason in room.excluded:
        if reason.startswith("taint "):
            taint = reason.removeprefix("taint ")
            ways.append(f"if the taint {taint} is no longer wanted: kubectl taint nodes -l {NODE_GROUP_LABEL}={name} "
                        f"{taint.split('=', 1)[0]}:{taint.rsplit(':', 1)[-1]}-")
    if room.fit:
        unit = "nodes" if group is not None and job.whole_nodes(group.per_node) else f"{room.unit}s"
        ways.append(f"a job of {room.fit} {unit} fits now: {job.resubmit(name, who, room.fit)}")
    if group is not None and len(nodes) < group.maximum:
        ways.append(f"or run more of the group's nodes ({len(nodes)} now, maxSize {group.maximum}): raise its minSize "
                    f"and desiredSize in {stack.stack_file} (topology-aware scheduling places pods only on nodes that "
                    "exist)")
    return "; ".join(ways) or job.describe()
