"""The pods of each Helm release Ready: the release's workloads (DaemonSets, Deployments, StatefulSets) and their
pods, each not Ready explained as ``kubectl describe pod`` would show it first.

Helm annotates every object it installs or upgrades with ``meta.helm.sh/release-name`` and
``meta.helm.sh/release-namespace`` (helm/helm v3.18.6 pkg/action/validate.go ``setMetadataVisitor``, called by
install.go and upgrade.go), so a workload is known as the release's whatever the chart calls it. Each kind is
listed once and each workload's pods by its own selector. A pod on a node that is not Ready is the nodes check's
finding, not this one's."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..kube.client import Cluster
from ..kube.helm_records import HelmRelease
from .finding import Finding

RELEASE_NAME_ANNOTATION, RELEASE_NAMESPACE_ANNOTATION = "meta.helm.sh/release-name", "meta.helm.sh/release-namespace"
WORKLOAD_KINDS = ("DaemonSet", "Deployment", "StatefulSet")
LISTED = 5
"""Pods or nodes a finding names before it counts the rest."""


def label_selector(selector: Mapping[str, Any]) -> str:
    """A LabelSelector as the API's ``labelSelector`` parameter writes it (k8s.io/apimachinery pkg/labels
    selector.go: ``k=v``, ``k in (a,b)``, ``k notin (a,b)``, ``k``, ``!k``)."""
    terms = [f"{key}={value}" for key, value in sorted((selector.get("matchLabels") or {}).items())]
    for expression in selector.get("matchExpressions") or []:
        key, operator, values = expression["key"], expression["operator"], ",".join(expression.get("values") or [])
        terms.append({"In": f"{key} in ({values})", "NotIn": f"{key} notin ({values})", "Exists": key,
                      "DoesNotExist": f"!{key}"}[operator])
    return ",".join(terms)


def ready(obj: Mapping[str, Any]) -> bool:
    """A pod's or a node's ``Ready`` condition is ``True``."""
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (obj.get("status") or {}).get("conditions") or [])


def not_ready_reason(pod: Mapping[str, Any]) -> str | None:
    """Why ``pod`` is not Ready, as ``kubectl describe pod`` would show it first; None when it is Ready."""
    if ready(pod):
        return None
    reason = _first_reason(pod)
    # The messages end in a full stop of their own (the scheduler's do); a finding's line adds its own after them.
    return reason.rstrip(". ")


def _first_reason(pod: Mapping[str, Any]) -> str:
    status = pod.get("status") or {}
    if status.get("reason"):
        return f"{status['reason']}: {status.get('message', '')}".rstrip(": ")
    conditions = {c.get("type"): c for c in status.get("conditions") or []}
    scheduled = conditions.get("PodScheduled") or {}
    if scheduled.get("status") == "False":
        return f"not scheduled ({scheduled.get('reason', '')}): {scheduled.get('message', '')}"
    for container in [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]:
        for state in ("waiting", "terminated"):
            detail = (container.get("state") or {}).get(state)
            if detail and detail.get("reason") not in (None, "Completed"):
                return f"container {container['name']} {detail['reason']}: {detail.get('message', '')}".rstrip(": ")
    ready_condition = conditions.get("Ready") or {}
    return (f"{ready_condition.get('reason') or 'phase ' + str(status.get('phase', 'unknown'))}: "
            f"{ready_condition.get('message', '')}").rstrip(": ")


@dataclass
class Workload:
    """A DaemonSet, Deployment or StatefulSet of a release, and its pods."""

    document: dict[str, Any]
    pods: list[dict[str, Any]]

    @property
    def kind(self) -> str:
        return str(self.document["kind"])

    @property
    def name(self) -> str:
        return str(self.document["metadata"]["name"])

    @property
    def namespace(self) -> str:
        return str(self.document["metadata"]["namespace"])


def owned_pods(workload: Mapping[str, Any], pods: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pods the workload's controller counts as its own: a DaemonSet's and a StatefulSet's own them; a
    Deployment's are owned by its ReplicaSets, and found by its selector."""
    if workload["kind"] == "Deployment":
        return [p for p in pods if not p["metadata"].get("deletionTimestamp")]
    uid = workload["metadata"]["uid"]
    return [p for p in pods if not p["metadata"].get("deletionTimestamp")
            and any(o.get("uid") == uid for o in p["metadata"].get("ownerReferences") or [])]


def release_workloads(cluster: Cluster, live: Mapping[str, HelmRelease]) -> dict[str, list[Workload]]:
    """Resource name -> the workloads Helm annotated as the release's, with their pods."""
    wanted = {(r.namespace, r.name): resource for resource, r in live.items()}
    found: dict[str, list[Workload]] = {resource: [] for resource in live}
    for kind in WORKLOAD_KINDS:
        for document in cluster.list("apps/v1", kind):
            annotations = document["metadata"].get("annotations") or {}
            resource = wanted.get((annotations.get(RELEASE_NAMESPACE_ANNOTATION, ""),
                                   annotations.get(RELEASE_NAME_ANNOTATION, "")))
            if resource is None:
                continue
            document = {"kind": kind, **document}
            selected = cluster.list("v1", "Pod", document["metadata"]["namespace"],
                                    labelSelector=label_selector(document["spec"]["selector"]))
            found[resource].append(Workload(document, owned_pods(document, selected)))
    return found


def node_of(pod: Mapping[str, Any]) -> str | None:
    """The node a DaemonSet's pod is for: where it runs, or, while it waits for the scheduler, the one its node
    affinity names (kubernetes v1.35.4 pkg/controller/daemon/util ``ReplaceDaemonSetPodNodeNameNodeAffinity``:
    ``matchFields`` ``metadata.name In [node]``); its readiness is ``pod_findings``' to judge."""
    if pod["spec"].get("nodeName"):
        return str(pod["spec"]["nodeName"])
    required = ((pod["spec"].get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution") or {}
    for term in required.get("nodeSelectorTerms") or []:
        for field in term.get("matchFields") or []:
            if field.get("key") == "metadata.name" and field.get("operator") == "In" and field.get("values"):
                return str(field["values"][0])
    return None


def _where(pod: Mapping[str, Any]) -> str:
    if pod["spec"].get("nodeName"):
        return f"on {pod['spec']['nodeName']}"
    target = node_of(pod)
    return f"waiting for node {target}" if target else "on no node"


def pod_findings(release: HelmRelease, workloads: list[Workload], ready_nodes: set[str]) -> list[Finding]:
    """One finding per workload of the release with pods not Ready (a pod on a node that is not Ready is the nodes
    check's finding)."""
    result = []
    for workload in workloads:
        waiting = [(pod, reason) for pod in workload.pods
                   if pod["spec"].get("nodeName") in (None, *ready_nodes) and (reason := not_ready_reason(pod))]
        if not waiting:
            continue
        shown = "; ".join(f"{pod['metadata']['name']} {_where(pod)}: {reason}" for pod, reason in waiting[:LISTED])
        more = f"; and {len(waiting) - LISTED} more" if len(waiting) > LISTED else ""
        first = waiting[0][0]["metadata"]["name"]
        result.append(Finding(
            "cluster", f"release {release.namespace}/{release.name}: {workload.kind} {workload.namespace}/"
            f"{workload.name}", "every pod Ready", f"{len(waiting)} of {len(workload.pods)} pods not Ready: {shown}"
            f"{more}", f"kubectl describe pod {first} -n {workload.namespace}; kubectl logs {first} -n "
            f"{workload.namespace} --all-containers"))
    return result
