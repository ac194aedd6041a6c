"""Is the cluster's each node group what the plan says? Its nodes present and Ready against minSize and desiredSize;
each accelerated node advertising the devices the catalog gives its instance type (``nvidia.com/gpu``,
``aws.amazon.com/neuron``, ``vpc.amazonaws.com/efa`` per interface the launch template attaches, or its DRA
ResourceSlices) and the huge pages the group's pods request; the labels, taints and network-topology labels as
rendered. Each node's own health (Ready, the EKS node monitoring agent's conditions, a repair under way, a cordon)
is ``node_health``'s.

One LIST of Nodes, and one of ResourceSlices where a group allocates by DRA: the judgement is one pass over them,
so a cluster of thousands of nodes costs what reading it costs. Where many nodes of a group share a problem (a
device plugin down on all of them), that is one finding naming the first few, not one line per node."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..catalog import HUGEPAGES_RESOURCE
from ..kube.client import Cluster
from ..kube.quantity import quantity
from ..names import NODE_GROUP_LABEL
from ..plan import Plan
from ..preflight.devices import RESOURCE_SLICE_API, node_devices
from . import node_health
from .finding import Finding
from .groups import KARPENTER_POOL, MANAGED_GROUP, PlannedGroup, Where, planned_groups, where

NODES_NAMED = 5
"""Nodes a finding about many names one by one (the count says how many more)."""
OWN_TAINT_PREFIXES = ("node.kubernetes.io/", "node.cloudprovider.kubernetes.io/", "karpenter.sh/")
"""Taints Kubernetes (the node lifecycle controller, a cordon), the cloud provider and Karpenter put on and take off
nodes themselves: not the plan's to render, and said by node_health where they matter."""


def findings(plan: Plan, cluster: Cluster) -> list[Finding]:
    """The cluster's nodes against every node group of ``plan``."""
    groups = planned_groups(plan)
    nodes = cluster.list("v1", "Node")
    dra = any(g.devices is not None and g.devices.allocation == "dra" for g in groups)
    slices = cluster.list(RESOURCE_SLICE_API, "ResourceSlice") if dra else []
    return judge(groups, nodes, slices, where(plan))


def judge(groups: list[PlannedGroup], nodes: list[dict[str, Any]], slices: list[dict[str, Any]],
          at: Where) -> list[Finding]:
    """``nodes`` (and DRA ``slices``) as read, against ``groups``: the groups' findings in the plan's order, then
    each node's health."""
    members: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for node in sorted(nodes, key=lambda n: _natural(n["metadata"]["name"])):
        members[((node["metadata"].get("labels") or {}).get(NODE_GROUP_LABEL)) or ""].append(node)
    slices_of: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for piece in slices:
        slices_of[str((piece.get("spec") or {}).get("nodeName"))].append(piece)
    found: list[Finding] = []
    for group in groups:
        found += _count(group, members.get(group.name, []), at)
        found += _devices(group, members.get(group.name, []), slices_of)
        found += _hugepages(group, members.get(group.name, []))
        found += _rendered(group, members.get(group.name, []))
    known = {group.name for group in groups}
    found += [_unplanned(name, members[name]) for name in sorted(members) if name and name not in known]
    found += node_health.findings(members, {group.name: group for group in groups})
    return found


def _count(group: PlannedGroup, nodes: list[dict[str, Any]], at: Where) -> list[Finding]:
    """Fewer nodes than desiredSize (a managed group's Auto Scaling group, a HyperPod group's instance count), or
    more than maxSize. A Karpenter pool has no count to hold: Karpenter launches what pods ask for."""
    if group.kind == KARPENTER_POOL:
        return []
    ready = sum(1 for node in nodes if node_health.ready(node))
    sizes = (f"desiredSize {group.desired}, minSize {group.minimum}" if group.kind == MANAGED_GROUP
             else f"{group.desired} instances")
    subject = f"node group {group.name}"
    if len(nodes) < group.desired:
        return [Finding("cluster", subject, f"{group.desired} nodes of {group.instance_type} ({sizes})",
                        f"{len(nodes)} ({ready} Ready){'; below minSize' if len(nodes) < group.minimum else ''}",
                        _missing_fix(group, at))]
    if len(nodes) > group.maximum:
        return [Finding("cluster", subject, f"at most {group.maximum} nodes (maxSize)", f"{len(nodes)}",
                        f"find what labels nodes {NODE_GROUP_LABEL}={group.name} beyond the group's own: "
                        f"kubectl get nodes -l {NODE_GROUP_LABEL}={group.name} -o wide")]
    return []


def _missing_fix(group: PlannedGroup, at: Where) -> str:
    region = f" --region {at.region}" if at.region else ""
    if group.kind == MANAGED_GROUP and at.cluster:
        # EKS names a managed node group after its Pulumi name and a random suffix (Pulumi's auto-naming).
        name = (f"\"$(aws eks list-nodegroups --cluster-name {at.cluster}{region} --query "
                f"\"nodegroups[?starts_with(@, '{group.resource}')] | [0]\" --output text)\"")
        return (f"read why EKS has not launched them: aws eks describe-nodegroup --cluster-name {at.cluster}{region} "
                f"--nodegroup-name {name} --query 'nodegroup.[status,health]'")
    if group.kind != MANAGED_GROUP and at.hyperpod:
        return (f"read HyperPod's instances: aws sagemaker list-cluster-nodes --cluster-name {at.hyperpod}{region} "
                f"--instance-group-name-contains {group.name}")
    return "read why the nodes have not joined: kubectl get events -A --field-selector involvedObject.kind=Node"


def _devices(group: PlannedGroup, nodes: list[dict[str, Any]],
             slices_of: Mapping[str, list[dict[str, Any]]]) -> list[Finding]:
    """Each device of the group's nodes, one finding per device that some node shows fewer of."""
    need = group.devices
    if need is None:
        return []
    where = "in allocatable" if need.allocation == "device-plugins" else "in its DRA ResourceSlices"
    shows = {node["metadata"]["name"]: node_devices(need, node, slices_of.get(node["metadata"]["name"], []))
             for node in nodes}
    found = []
    for device, expected in need.devices.items():
        short = [(name, str(counts[device])) for name, counts in shows.items() if counts[device] < expected]
        if short:
            found.append(_short(group, f"{expected} {device} on each node ({group.instance_type}, {where})", short,
                                _device_fix(short[0][0])))
    return found


def _hugepages(group: PlannedGroup, nodes: list[dict[str, Any]]) -> list[Finding]:
    """On an EFA group, the 2 MiB huge pages each of its pods requests, offered by every node."""
    if not group.hugepages:
        return []
    wanted = quantity(group.hugepages)
    offers = [(n["metadata"]["name"], _allocatable(n, HUGEPAGES_RESOURCE)) for n in nodes]
    short = [(name, shown) for name, (shown, amount) in offers if amount < wanted]
    if not short:
        return []
    return [_short(group, f"at least {group.hugepages} of {HUGEPAGES_RESOURCE} on each node (what each of the "
                   "group's EFA pods requests)", short,
                   "the node's AMI reserved fewer 2 MiB huge pages than the EFA pods request; `trainstack preflight "
                   "nodes --outputs OUTPUTS.json` says what to set")]


def _device_fix(node: str) -> str:
    return (f"a device plugin or DRA driver that finds a device unhealthy or missing advertises fewer: read its pod's "
            f"log on the node (kubectl get pods -A -o wide --field-selector spec.nodeName={node}), then replace the "
            f"node if a device failed: kubectl drain {node} --ignore-daemonsets --delete-emptydir-data")


def _allocatable(node: Mapping[str, Any], resource: str) -> tuple[str, Fraction]:
    value = ((node.get("status") or {}).get("allocatable") or {}).get(resource)
    try:
        return (str(value), quantity(str(value))) if value is not None else ("none", Fraction(0))
    except ValueError:
        return str(value), Fraction(0)


def _short(group: PlannedGroup, expected: str, short: list[tuple[str, str]], fix: str) -> Finding:
    """One finding for the nodes of ``group`` short of something: named by node where it is one node."""
    if len(short) == 1:
        name, shown = short[0]
        return Finding("cluster", f"node {name}", expected, str(shown), fix)
    named = ", ".join(f"{name} {shown}" for name, shown in short[:NODES_NAMED])
    more = f" and {len(short) - NODES_NAMED} more" if len(short) > NODES_NAMED else ""
    return Finding("cluster", f"node group {group.name}", expected, f"less on {len(short)} nodes: {named}{more}", fix)


def _rendered(group: PlannedGroup, nodes: list[dict[str, Any]]) -> list[Finding]:
    """The labels and taints as rendered, and the topology labels EKS adds, on every node of the group."""
    found: list[Finding] = []
    for key, value in group.labels.items():
        off = [(n["metadata"]["name"], _label(n, key) or "none") for n in nodes if _label(n, key) != value]
        if off:
            found.append(_short(group, f"label {key}={value} (rendered)", off,
                                f"kubectl label nodes {_targets(group, off)} {key}={value} --overwrite"))
    for key in group.topology_labels:
        off = [(n["metadata"]["name"], "none") for n in nodes if not _label(n, key)]
        if off:
            found.append(_short(group, f"label {key} (EKS's network topology for {group.instance_type})", off,
                                "EKS labels a node with its EC2 network topology when it joins; read the node's "
                                "place: aws ec2 describe-instance-topology --instance-ids <the node's instance>"))
    for taint in group.taints:
        off = [(n["metadata"]["name"], "none") for n in nodes if not any(_same(taint, t) for t in _taints(n))]
        if off:
            found.append(_short(group, f"taint {_shown(taint.key, taint.value, taint.effect)} (rendered)", off,
                                f"kubectl taint nodes {_targets(group, off)} "
                                f"{_shown(taint.key, taint.value, taint.effect)} --overwrite"))
    extra: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for node in nodes:
        for t in _taints(node):
            if not t["key"].startswith(OWN_TAINT_PREFIXES) and not any(_same(p, t) for p in group.taints):
                extra[_shown(t["key"], t.get("value") or "", t["effect"])].append((node["metadata"]["name"], "present"))
    for shown, off in extra.items():
        found.append(_short(group, f"no taint {shown} (the plan renders none)", off,
                            f"if nothing needs it any more: kubectl taint nodes {_targets(group, off)} {shown}-"))
    return found


def _unplanned(name: str, nodes: list[dict[str, Any]]) -> Finding:
    return Finding("cluster", f"node group {name}", "no such group (the plan has none of that name)",
                   f"{len(nodes)} node{'s' if len(nodes) != 1 else ''} labelled {NODE_GROUP_LABEL}={name}",
                   f"kubectl get nodes -l {NODE_GROUP_LABEL}={name}: a group made outside this stack, or one the "
                   "plan no longer has (remove it, or add it to the stack file)")


def _label(node: Mapping[str, Any], key: str) -> str | None:
    value = ((node.get("metadata") or {}).get("labels") or {}).get(key)
    return str(value) if value is not None else None


def _taints(node: Mapping[str, Any]) -> list[dict[str, Any]]:
    return list((node.get("spec") or {}).get("taints") or [])


def _same(taint: Any, other: Mapping[str, Any]) -> bool:
    return bool(taint.key == other["key"] and taint.value == (other.get("value") or "")
                and taint.effect == other["effect"])


def _shown(key: str, value: str, effect: str) -> str:
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


def _targets(group: PlannedGroup, off: list[tuple[str, str]]) -> str:
    """The nodes a fix names: by name where they are few, else the group's label (a command fit for a terminal)."""
    if len(off) <= NODES_NAMED:
        return " ".join(name for name, _ in off)
    return f"-l {NODE_GROUP_LABEL}={group.name}"


def _natural(name: str) -> list[Any]:
    """``p5-2`` before ``p5-10``, as people count nodes."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]
