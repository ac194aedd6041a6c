"""Each node's own health, as its conditions and spec say: Ready, the kubelet's pressure conditions, the EKS node
monitoring agent's conditions, a repair under way, and a cordon with who set it.

The EKS node monitoring agent applies one NodeCondition per category of problem it watches for:
``AcceleratedHardwareReady`` (GPU XID errors, DCGM diagnostics, Neuron), ``ContainerRuntimeReady``, ``KernelReady``,
``NetworkingReady`` and ``StorageReady`` (EKS User Guide, "Detect node health issues and enable automatic node
repair", https://docs.aws.amazon.com/eks/latest/userguide/node-health.html, read 2026-11-29; the agent's source,
https://github.com/aws/eks-node-monitoring-agent/blob/v1.7.0/pkg/conditions/conditions.go). A healthy category is
``True``; a fatal problem turns it ``False`` with the problem as its reason (``NvidiaXID79Error``, from the templates
of pkg/reasons/reasons.yaml; pkg/manager/node_exporter.go ``Fatal``, at v1.7.0); warnings are
Events only, so doctor reads the conditions.

EKS node auto repair (a managed node group's ``nodeRepairConfig``) acts on those conditions and on the kubelet's
``Ready``: it cordons the node, then replaces or reboots it once the condition has held for the table's time
(EKS User Guide, "Automatically repair nodes in EKS clusters",
https://docs.aws.amazon.com/eks/latest/userguide/node-repair.html, read 2026-11-29: AcceleratedHardwareReady after
10 minutes, ContainerRuntimeReady and KernelReady after 30). So a node with a failing condition that is cordoned
in a group auto repair watches is a repair under way; one that is being deleted is being replaced.

Who cordoned a node the Node object keeps in its managed fields: the API server records, for each writer, the
fields it set and when (Kubernetes docs, "Server-Side Apply", Field management; an update's manager is its
``fieldManager``, else its user agent's product name)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any, Optional

from .finding import Finding
from .groups import PlannedGroup

MONITORING_AGENT_CONDITIONS = ("AcceleratedHardwareReady", "ContainerRuntimeReady", "KernelReady", "NetworkingReady",
                               "StorageReady")
KUBELET_PRESSURE_CONDITIONS = ("MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable")
"""The kubelet's own conditions, each ``False`` while all is well."""
REPAIR_AFTER_MINUTES = {"AcceleratedHardwareReady": 10, "ContainerRuntimeReady": 30, "KernelReady": 30}
"""How long a condition holds before auto repair acts, for the conditions node-repair.html's table gives a time."""
KARPENTER_DISRUPTED = "karpenter.sh/disrupted"
"""The taint Karpenter puts on a node it is replacing or removing (Karpenter's disruption docs)."""


def ready(node: Mapping[str, Any]) -> bool:
    condition = _condition(node, "Ready")
    return condition is not None and condition.get("status") == "True"


def findings(members: Mapping[str, list[dict[str, Any]]], groups: Mapping[str, PlannedGroup]) -> list[Finding]:
    """Each node's health findings, the nodes of each group (``members``, by the group's label) in turn."""
    found: list[Finding] = []
    for name, nodes in members.items():
        group = groups.get(name)
        rendered = {(t.key, t.effect) for t in group.taints} if group is not None else set()
        for node in nodes:
            found += node_findings(node, group is not None and group.auto_repair, rendered)
    return found


def node_findings(node: Mapping[str, Any], auto_repair: bool, rendered: set[tuple[str, str]]) -> list[Finding]:
    """``node``'s health; ``auto_repair``: EKS node auto repair watches its group; ``rendered``: its group's own
    taints (key, effect), which say nothing of why it was cordoned."""
    name = node["metadata"]["name"]
    subject = f"node {name}"
    failing = [c for c in _conditions(node)
               if c.get("type") in MONITORING_AGENT_CONDITIONS and c.get("status") == "False"]
    under_way = _repair_under_way(node, failing, auto_repair)
    found: list[Finding] = []
    condition = _condition(node, "Ready")
    if condition is None or condition.get("status") != "True":
        found.append(Finding("cluster", subject, "Ready True (its kubelet reporting, able to run pods)",
                             _said("Ready", condition) + _suffix(under_way),
                             _replace_fix(node, auto_repair, "the kubelet's Ready condition", None)))
    for condition in failing:
        kind = condition["type"]
        found.append(Finding("cluster", subject, f"{kind} True (the EKS node monitoring agent's check)",
                             _said(kind, condition) + _suffix(under_way or _repair_due(condition, auto_repair)),
                             _replace_fix(node, auto_repair, kind, condition)))
    for condition in _conditions(node):
        if condition.get("type") in KUBELET_PRESSURE_CONDITIONS and condition.get("status") == "True":
            found.append(Finding("cluster", subject, f"{condition['type']} False", _said(condition["type"], condition),
                                 f"kubectl describe node {name}; its pods: kubectl get pods -A -o wide "
                                 f"--field-selector spec.nodeName={name}"))
    if (node.get("spec") or {}).get("unschedulable"):
        found.append(Finding("cluster", subject, "schedulable (the plan cordons no node)",
                             _cordon(node, failing, auto_repair, rendered), _cordon_fix(name, under_way)))
    return found


def _said(kind: str, condition: Optional[Mapping[str, Any]]) -> str:
    if condition is None:
        return f"no {kind} condition (no kubelet has reported for it)"
    why = ": ".join(str(part) for part in (condition.get("reason"), condition.get("message")) if part)
    since = f" since {condition['lastTransitionTime']}" if condition.get("lastTransitionTime") else ""
    return f"{kind} {condition.get('status')}{since}" + (f" ({why})" if why else "")


def _suffix(text: str) -> str:
    return f"; {text}" if text else ""


def _repair_under_way(node: Mapping[str, Any], failing: list[Mapping[str, Any]], auto_repair: bool) -> str:
    metadata, spec = node.get("metadata") or {}, node.get("spec") or {}
    if metadata.get("deletionTimestamp"):
        return f"being deleted since {metadata['deletionTimestamp']} (its instance replaced)"
    if any(t.get("key") == KARPENTER_DISRUPTED for t in spec.get("taints") or []):
        return "Karpenter is replacing it (taint karpenter.sh/disrupted)"
    if auto_repair and spec.get("unschedulable") and failing:
        return "repair under way: EKS node auto repair cordoned it"
    return ""


def _repair_due(condition: Mapping[str, Any], auto_repair: bool) -> str:
    minutes = REPAIR_AFTER_MINUTES.get(str(condition.get("type")))
    since = _time(condition.get("lastTransitionTime"))
    if not auto_repair or minutes is None or since is None:
        return ""
    return f"auto repair due at {(since + timedelta(minutes=minutes)).isoformat().replace('+00:00', 'Z')}"


def _replace_fix(node: Mapping[str, Any], auto_repair: bool, what: str,
                 condition: Optional[Mapping[str, Any]]) -> str:
    name = node["metadata"]["name"]
    instance = _instance_id(node)
    terminate = (f" && aws ec2 terminate-instances --instance-ids {instance}" if instance
                 else ", then terminate its instance")
    replace = f"kubectl drain {name} --ignore-daemonsets --delete-emptydir-data{terminate}"
    look = f"kubectl describe node {name}"
    if auto_repair:
        return (f"EKS node auto repair (on for its group) acts on {what}; to see why: {look}; to replace it now: "
                f"{replace}")
    return (f"{look}; if it does not recover, replace it (its group's node auto repair is off): {replace}")


def _cordon(node: Mapping[str, Any], failing: Iterable[Mapping[str, Any]], auto_repair: bool,
            rendered: set[tuple[str, str]]) -> str:
    said = "cordoned (spec.unschedulable)"
    who = _cordoned_by(node)
    if who:
        said += f" by {who}"
    why = [f"{c['type']} False ({c.get('reason') or 'no reason'})" for c in failing]
    if why:
        said += f"; {', '.join(why)}" + (": EKS node auto repair cordons a node it repairs" if auto_repair else "")
    taints = [t for t in (node.get("spec") or {}).get("taints") or []
              if t.get("key") != "node.kubernetes.io/unschedulable" and (t.get("key"), t.get("effect")) not in rendered]
    if taints:
        said += "; taints " + ", ".join(f"{t['key']}:{t['effect']}" for t in taints)
    return said


def _cordoned_by(node: Mapping[str, Any]) -> str:
    """The writer that last set ``spec.unschedulable`` (its manager, operation and time), from managed fields."""
    last: Optional[Mapping[str, Any]] = None
    for entry in (node.get("metadata") or {}).get("managedFields") or []:
        fields = entry.get("fieldsV1") or {}
        if "f:unschedulable" in (fields.get("f:spec") or {}) and (last is None or str(entry.get("time", "")) >=
                                                                   str(last.get("time", ""))):
            last = entry
    if last is None:
        return ""
    return f"{last.get('manager', 'an unnamed writer')} ({last.get('operation', 'Update')} at {last.get('time')})"


def _cordon_fix(name: str, under_way: str) -> str:
    if under_way:
        return f"let the repair finish (kubectl get node {name} -w), or replace it now: kubectl drain {name} " \
               "--ignore-daemonsets --delete-emptydir-data"
    return (f"if what it was cordoned for is over: kubectl uncordon {name}; if it is to go: kubectl drain {name} "
            "--ignore-daemonsets --delete-emptydir-data")


def _instance_id(node: Mapping[str, Any]) -> str:
    """The EC2 instance of an EKS node, from its ``spec.providerID`` (``aws:///us-east-1a/i-0123...``)."""
    provider = str((node.get("spec") or {}).get("providerID") or "")
    found = re.search(r"/(i-[0-9a-f]+)$", provider)
    return found.group(1) if found else ""


def _conditions(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list((node.get("status") or {}).get("conditions") or [])


def _condition(node: Mapping[str, Any], kind: str) -> Optional[Mapping[str, Any]]:
    return next((c for c in _conditions(node) if c.get("type") == kind), None)


def _time(value: Any) -> Optional[datetime]:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None
    except ValueError:
        return None
