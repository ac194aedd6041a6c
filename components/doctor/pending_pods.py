"""Jobs whose pods wait for the scheduler: Kueue admitted them (or no queue holds them), and the kube-scheduler
finds no node. Its reasons are the pods' ``PodScheduled=False`` condition and its ``FailedScheduling`` events, "0/N
nodes are available: " and then a count per reason, in the words of its filter plugins (kubernetes v1.35.4
``pkg/scheduler/framework/plugins``: tainttoleration "node(s) had untolerated taint(s)", nodeaffinity "node(s)
didn't match Pod's node affinity/selector", noderesources "Insufficient <resource>", nodeunschedulable "node(s) were
unschedulable"). They count nodes but do not name the taint or the label, so doctor reads the nodes for those.
Karpenter writes its own ``FailedScheduling`` event on a pod it cannot launch a node for; doctor quotes it.

A pod Kueue still gates (``kueue.x-k8s.io/topology``: topology-aware scheduling has not placed it yet) is Kueue's,
not the scheduler's, and is left out, as is one bound to a node and starting."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..names import NODE_GROUP_LABEL
from .finding import Finding, Section
from .pending_jobs import Job, true
from .pending_queues import Stack

if TYPE_CHECKING:
    from .pending_read import Read

SECTION: Section = "pending"
WORKLOAD_ANNOTATION = "kueue.x-k8s.io/workload"
"""The annotation Kueue puts on an admitted Workload's pods, naming it (kubernetes-sigs/kueue v0.19.2
``apis/kueue/v1beta2/topology_types.go`` ``WorkloadAnnotation``, set by ``jobframework/reconciler.go``)."""
_AVAILABLE = re.compile(r"(?P<free>\d+)/(?P<nodes>\d+) nodes are available: (?P<reasons>.*?)(?:\.\s|\.?$)")
_REASON = re.compile(r"\s*(?:(?P<count>\d+) )?(?P<reason>(?:[^,{]|\{[^}]*\})+)")
SCHEDULING_EFFECTS = ("NoSchedule", "NoExecute")


def findings(stack: Stack, read: Read, jobs: Mapping[tuple[str, str], Job]) -> list[Finding]:
    waiting: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for pod in read.pods:
        condition = _unscheduled(pod)
        if condition is None:
            continue
        metadata = pod["metadata"]
        workload = (metadata.get("annotations") or {}).get(WORKLOAD_ANNOTATION)
        owner: dict[str, Any] = next((o for o in metadata.get("ownerReferences") or [] if o.get("controller")), {})
        key = (metadata["namespace"], workload or owner.get("name") or metadata["name"],
               "Workload" if workload else owner.get("kind", "Pod"))
        waiting.setdefault(key, []).append(pod)
    found = []
    for (namespace, name, kind), pods in sorted(waiting.items()):
        job = jobs.get((namespace, name)) if kind == "Workload" else None
        if job is not None and not true(job.conditions, "Admitted"):
            continue
        found.append(_finding(stack, read, job, f"{kind} {namespace}/{name}", pods))
    return found


def _unscheduled(pod: dict[str, Any]) -> dict[str, Any] | None:
    if pod["spec"].get("nodeName") or pod["spec"].get("schedulingGates") or pod["metadata"].get("deletionTimestamp"):
        return None
    return next((c for c in (pod.get("status") or {}).get("conditions") or []
                 if c.get("type") == "PodScheduled" and c.get("status") == "False"
                 and c.get("reason") == "Unschedulable"), None)


def _finding(stack: Stack, read: Read, job: Job | None, subject: str, pods: list[dict[str, Any]]) -> Finding:
    first = pods[0]
    namespace = first["metadata"]["namespace"]
    spec = first["spec"]
    said = _said(read, pods)
    reasons = Counter[str]()
    nodes = 0
    for message in said.get("default-scheduler", []):
        # The first count is the filters'; the one after "preemption:" says whether preempting would help.
        for match in _AVAILABLE.finditer(message.split(" preemption:", 1)[0]):
            nodes = max(nodes, int(match["nodes"]))
            for reason in _REASON.finditer(match["reasons"]):
                # A reason of the pod's own (an unbound claim) holds on every node and comes without a count.
                count = int(reason["count"]) if reason["count"] else int(match["nodes"])
                reasons[reason["reason"].strip()] = max(reasons[reason["reason"].strip()], count)
    words = [_words(read, spec, reason, count) for reason, count in reasons.items()]
    others = [f"{source}: {message}" for source, messages in sorted(said.items()) if source != "default-scheduler"
              for message in messages]
    when = ((job.conditions.get("Admitted") or {}).get("lastTransitionTime") if job is not None else None)
    admitted = (f"admitted by Kueue to ClusterQueue {job.cluster_queue}{f' at {when}' if when else ''}, but "
                if job is not None else "")
    timeout = (f"; Kueue gives its quota back if they are not all ready {stack.pods_ready_minutes} min after "
               f"admission (waitForPodsReady){_evictions(job)}" if job is not None and stack.pods_ready_minutes else "")
    actual = (f"{admitted}{len(pods)} pod{'s wait' if len(pods) != 1 else ' waits'} for a node: "
              + (f"none of the {nodes} nodes takes them: {'; '.join(words)}" if words
                 else "the scheduler has not said why")
              + (f" ({'; '.join(others)})" if others else "") + timeout)
    return Finding(SECTION, job.subject if job is not None else subject,
                   "its pods scheduled on the nodes of the group they select", actual,
                   _fix(read, spec, reasons, namespace, first["metadata"]["name"]))


def _evictions(job: Job) -> str:
    """How often Kueue has already sent it back for it (``status.schedulingStats.evictions``, by reason)."""
    stats = (job.status.get("schedulingStats") or {}).get("evictions") or []
    times = sum(int(e.get("count", 0)) for e in stats if e.get("reason") == "PodsReadyTimeout")
    return f", as it already did {times} time{'s' if times != 1 else ''}" if times else ""


def _said(read: Read, pods: list[dict[str, Any]]) -> dict[str, list[str]]:
    """What the scheduler (the pods' condition) and the autoscalers (their events) last said, by who said it."""
    uids = {p["metadata"]["uid"] for p in pods}
    said: dict[str, list[str]] = {"default-scheduler": sorted({str(c.get("message", "")) for p in pods
                                                               if (c := _unscheduled(p)) is not None})}
    latest: dict[str, tuple[str, str]] = {}
    for event in read.events:
        if (event.get("involvedObject") or {}).get("uid") not in uids:
            continue
        source = event.get("reportingComponent") or (event.get("source") or {}).get("component") or "unknown"
        when = str(event.get("lastTimestamp") or event.get("eventTime") or "")
        if source not in latest or when >= latest[source][0]:
            latest[source] = (when, str(event.get("message", "")))
    for source, (_, message) in latest.items():
        if source != "default-scheduler":
            said[source] = [message]
    return said


def _candidates(read: Read, spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The nodes of the group the pods select (by the stack's group label, where they name it)."""
    selector = spec.get("nodeSelector") or {}
    group = {k: v for k, v in selector.items() if k == NODE_GROUP_LABEL}
    return [n for n in read.nodes if all((n["metadata"].get("labels") or {}).get(k) == v for k, v in group.items())]


def _untolerated(node: dict[str, Any], tolerations: list[dict[str, Any]]) -> list[str]:
    """The node's taints of a scheduling effect that no toleration of the pod matches (Kubernetes' rule:
    ``k8s.io/api/core/v1`` ``Toleration.ToleratesTaint``)."""
    def tolerated(taint: dict[str, Any]) -> bool:
        return any((not t.get("effect") or t["effect"] == taint["effect"])
                   and (not t.get("key") or t["key"] == taint["key"])
                   and (t.get("operator") == "Exists" or (t.get("value") or "") == (taint.get("value") or ""))
                   for t in tolerations)
    return [f"{t['key']}={t.get('value') or ''}:{t['effect']}" for t in node["spec"].get("taints") or []
            if t.get("effect") in SCHEDULING_EFFECTS and not tolerated(t)]


def _words(read: Read, spec: dict[str, Any], reason: str, count: int) -> str:
    if reason.startswith("node(s) had untolerated taint"):
        taints = Counter(t for n in _candidates(read, spec) for t in _untolerated(n, spec.get("tolerations") or []))
        named = ", ".join(f"{t} on {c}" for t, c in taints.most_common()) or "a taint"
        return f"{count} nodes carry a taint the pods do not tolerate ({named})"
    if reason == "node(s) didn't match Pod's node affinity/selector":
        missing = _unmatched_labels(read, spec)
        group = (spec.get("nodeSelector") or {}).get(NODE_GROUP_LABEL)
        said = [f"node group {group} has no node now"] if f"{NODE_GROUP_LABEL}={group}" in missing else []
        others = [label for label in missing if not label.startswith(f"{NODE_GROUP_LABEL}=")]
        said += [f"no node has {', '.join(others)}"] if others else []
        return f"{count} nodes lack the labels the pods select" + (f" ({'; '.join(said)})" if said else "")
    if reason.startswith("Insufficient "):
        return f"{count} nodes have too little free {reason.removeprefix('Insufficient ')}"
    if reason == "node(s) were unschedulable":
        return f"{count} nodes are cordoned"
    if reason == "pod has unbound immediate PersistentVolumeClaims":
        return "its PersistentVolumeClaims are not bound to a volume yet"
    return f"{count} {reason}" if reason.startswith("node(s)") or reason.startswith("Insufficient") else reason


def _unmatched_labels(read: Read, spec: dict[str, Any]) -> list[str]:
    selector = spec.get("nodeSelector") or {}
    return [f"{k}={v}" for k, v in sorted(selector.items())
            if not any((n["metadata"].get("labels") or {}).get(k) == v for n in read.nodes)]


def _fix(read: Read, spec: dict[str, Any], reasons: Counter[str], namespace: str, pod: str) -> str:
    ways = []
    for reason in reasons:
        if reason.startswith("node(s) had untolerated taint"):
            taints = {t for n in _candidates(read, spec) for t in _untolerated(n, spec.get("tolerations") or [])}
            group = (spec.get("nodeSelector") or {}).get(NODE_GROUP_LABEL)
            where = f"-l {NODE_GROUP_LABEL}={group}" if group else "NODE"
            ways += [f"if the taint {t} is no longer wanted: kubectl taint nodes {where} "
                     f"{t.split('=', 1)[0]}:{t.rsplit(':', 1)[-1]}-" for t in sorted(taints)]
        elif reason == "node(s) didn't match Pod's node affinity/selector":
            missing = [label for label in _unmatched_labels(read, spec) if not label.startswith(NODE_GROUP_LABEL)]
            if missing:
                ways.append(f"drop the selector {', '.join(missing)}, which no node has, from the job and submit it "
                            "again as trainstack launch renders it (the group's own selector and tolerations)")
        elif reason == "node(s) were unschedulable":
            ways.append("uncordon the nodes once their maintenance is over: kubectl uncordon NODE")
        elif reason == "pod has unbound immediate PersistentVolumeClaims":
            ways.append(f"see why its claims are not bound: kubectl -n {namespace} get persistentvolumeclaims")
    ways.append(f"the scheduler's whole account: kubectl -n {namespace} describe pod {pod}")
    return "; ".join(ways)
