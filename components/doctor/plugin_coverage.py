"""Each device plugin's or DRA driver's DaemonSet has a pod on every node the plan says it must serve.

The nodes a device plugin must serve are those of the plan's groups (managed node groups, described groups,
Karpenter pools) whose planned labels and taints the release's own nodeSelector and tolerations reach, as the
controller models judge it (``controllers.daemons.kept_off``), found live by their ``trainstack.io/node-group``
label. A node without a pod is explained by what keeps the DaemonSet's pod off it, judged as the scheduler would; a
node that is not Ready is the nodes check's finding, not this one's."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..catalog.addons import runs_device_plugin
from ..controllers import daemons
from ..controllers.cluster_autoscaler import DEVICE_PLUGINS, managed_groups
from ..controllers.dra import DRIVERS
from ..controllers.karpenter import pool_groups
from ..controllers.scheduling import Node, Taint, unfit_reasons
from ..kube.helm_records import HelmRelease
from ..names import NODE_GROUP_LABEL
from ..plan import Plan
from ..policy import stack_from_plan
from .finding import Finding
from .planned_releases import PlannedRelease
from .release_pods import LISTED, Workload, node_of, ready

DAEMON_TOLERATIONS = [{"key": key, "operator": "Exists", "effect": effect} for key, effect in (
    ("node.kubernetes.io/not-ready", "NoExecute"), ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"), ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"), ("node.kubernetes.io/unschedulable", "NoSchedule"))]
"""What the DaemonSet controller adds to every pod it makes (kubernetes v1.35.4 pkg/controller/daemon/util/
daemonset_util.go ``AddOrUpdateDaemonPodTolerations``; network-unavailable too for host-network pods, left out)."""
NODE = "{node}"
"""Where a node's name goes in a fix shared by several nodes."""


def placements(chart: str) -> list[tuple[str, ...]]:
    """Where in ``chart``'s values each of its per-node DaemonSets (a device plugin, a DRA kubelet plugin) takes its
    placement, as the controller models read it; empty for a chart that has none."""
    return list(dict.fromkeys(path for name, path in [*DEVICE_PLUGINS.values(), *DRIVERS.values()] if name == chart))


def served_groups(plan: Plan, planned: list[PlannedRelease]) -> dict[str, dict[str, list[Taint]]]:
    """Resource name of each device-plugin or DRA-driver release -> the groups (name -> planned taints) whose nodes
    its DaemonSet must reach: the groups its values' nodeSelector and tolerations reach, as the models judge it."""
    stack = stack_from_plan(plan)
    groups = {g.name: g for g in [*managed_groups(stack, accelerated_only=False), *pool_groups(stack)]}
    served: dict[str, dict[str, list[Taint]]] = {}
    for release in planned:
        paths = placements(release.chart)
        if not paths or not runs_device_plugin(release.chart, release.values):
            continue
        served[release.resource] = {
            name: list(group.taints) for name, group in sorted(groups.items())
            if any(not daemons.kept_off({release.chart: release.values}, release.chart, path,
                                        Node(name, dict(group.labels), list(group.taints), {"pods": Fraction(1)}))
                   for path in paths)}
    return served


def _live_node(node: Mapping[str, Any]) -> Node:
    spec, status = node.get("spec") or {}, node.get("status") or {}
    pods = str((status.get("allocatable") or {}).get("pods", "0"))
    return Node(node["metadata"]["name"], dict(node["metadata"].get("labels") or {}),
                [Taint(t["key"], t.get("value") or "", t["effect"]) for t in spec.get("taints") or []],
                {"pods": Fraction(int(pods) if pods.isdigit() else 0)})


def _daemon_pod(daemonset: Workload) -> dict[str, Any]:
    """The pod the DaemonSet controller would make, as far as placement goes."""
    spec = daemonset.document["spec"]["template"]["spec"]
    return {"nodeSelector": spec.get("nodeSelector") or {}, "containers": [],
            "tolerations": [*(spec.get("tolerations") or []), *DAEMON_TOLERATIONS]}


def _untolerated(pod: Mapping[str, Any], node: Node) -> list[Taint]:
    return [t for t in node.taints if unfit_reasons({"tolerations": pod["tolerations"]},
                                                    Node(node.name, {}, [t], {"pods": Fraction(1)}))]


def _gap(node: Node, daemonsets: list[Workload], group: str, planned_taints: list[Taint],
         stack: str) -> tuple[str, str]:
    """Why no DaemonSet of the release has a pod on ``node``, and the fix, with ``{node}`` where the node's name goes:
    nodes missing a pod for the same reason make one finding."""
    judged = [(ds, _daemon_pod(ds)) for ds in daemonsets]
    fitting = [ds for ds, pod in judged if not unfit_reasons(pod, node)]
    if fitting:
        ds = fitting[0]
        status = ds.document.get("status") or {}
        return (f"its DaemonSet {ds.name} fits the node but has no pod there (desired "
                f"{status.get('desiredNumberScheduled', '?')}, scheduled {status.get('currentNumberScheduled', '?')})",
                f"kubectl describe daemonset {ds.name} -n {ds.namespace} (its events say why)")
    ds, pod = judged[0]
    reason = f"its DaemonSet {ds.name} {'; '.join(unfit_reasons(pod, node))}"
    taints = _untolerated(pod, node)
    if any(t in planned_taints for t in taints):
        return reason, (f"the plan's values tolerate node group {group}'s taints and the DaemonSet does not: kubectl "
                        f"get daemonset {ds.name} -n {ds.namespace} -o yaml shows the tolerations it runs with; pulumi "
                        f"up --refresh --stack {stack} puts the plan's back")
    if taints:
        shown = " ".join(f"{t.key}:{t.effect}-" for t in taints)
        return reason, (f"kubectl describe node {NODE} shows the taint; if node group {group} should carry it, add "
                        f"it to nodeGroups[{group}].taints in the stack file and run pulumi up --stack {stack} (the "
                        f"device plugins tolerate every taint of their groups); if not, kubectl taint node {NODE} "
                        f"{shown}")
    return reason, (f"kubectl get node {NODE} --show-labels against the DaemonSet's nodeSelector (kubectl get "
                    f"daemonset {ds.name} -n {ds.namespace} -o yaml); the group's labels are nodeGroups[{group}]'s")


def coverage_findings(release: HelmRelease, groups: Mapping[str, list[Taint]], workloads: list[Workload],
                      nodes: list[dict[str, Any]], stack: str) -> list[Finding]:
    """A finding for each group with Ready nodes that no DaemonSet of the release has a pod on, one per reason."""
    subject = f"device plugin release {release.namespace}/{release.name}"
    daemonsets = [w for w in workloads if w.kind == "DaemonSet"]
    members = [n for n in nodes if (n["metadata"].get("labels") or {}).get(NODE_GROUP_LABEL) in groups and ready(n)]
    if not daemonsets:
        return [Finding("cluster", subject, f"a DaemonSet with a pod on every node of {', '.join(groups)}",
                        "the release has no DaemonSet", f"helm get manifest {release.name} -n {release.namespace}; "
                        f"pulumi up --refresh --stack {stack}")] if members else []
    placed = {node_of(pod) for ds in daemonsets for pod in ds.pods}
    gaps: dict[tuple[str, str, str], list[str]] = {}
    for document in members:
        if document["metadata"]["name"] in placed:
            continue
        node, group = _live_node(document), document["metadata"]["labels"][NODE_GROUP_LABEL]
        reason, fix = _gap(node, daemonsets, group, groups[group], stack)
        gaps.setdefault((group, reason, fix), []).append(node.name)
    result = []
    for (group, reason, fix), names in sorted(gaps.items()):
        where = f"node {names[0]}" if len(names) == 1 else f"{len(names)} nodes of group {group}"
        more = f" and {len(names) - LISTED} more" if len(names) > LISTED else ""
        likewise = " (likewise for each node named)" if len(names) > 1 else ""
        result.append(Finding("cluster", f"{subject} on {where}",
                              f"a pod of its DaemonSet on every Ready node of node group {group}",
                              f"none on {', '.join(names[:LISTED])}{more}: {reason}",
                              fix.replace(NODE, names[0]) + likewise))
    return result
