"""Does one pod fit one node, as kube-scheduler's filters decide it?

The three filters a training pod meets on an accelerated node, from kube-scheduler's
plugins (kubernetes/kubernetes, ``pkg/scheduler/framework/plugins``):

* ``noderesources/fit.go`` (``fitsRequest``): every resource the pod requests (the sum over its
  containers; a container with limits and no requests requests its limits, as the
  API server defaults it) is at most what the node has allocatable, and the node has
  room for one more pod. Resources the pod does not request are not compared.
* ``nodeaffinity``: every ``nodeSelector`` label is on the node with the same value.
* ``tainttoleration``: every ``NoSchedule`` and ``NoExecute`` taint of the node is
  tolerated (``PreferNoSchedule`` only scores), a toleration matching a taint as
  ``Toleration.ToleratesTaint`` decides (numeric ``Lt``/``Gt``, which no launcher renders,
  are not modelled).

The Cluster Autoscaler runs these same filters against the node it imagines
(cluster_autoscaler.py). Affinity expressions, topology spread, ports and volumes
are not modelled: the launchers render none that could fail on an empty node.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..kube.quantity import quantity


def show(resource: str, amount: Fraction) -> str:
    """An amount as people read it: memory-like resources in Mi, the rest as numbers."""
    if resource == "memory" or resource.startswith("hugepages-") or resource == "ephemeral-storage":
        return f"{float(amount / 2**20):g}Mi"
    return f"{float(amount):g}"


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str
    """``NoSchedule``, ``PreferNoSchedule`` or ``NoExecute``."""


@dataclass
class Node:
    """A node as the scheduler sees it: labels, taints, allocatable resources."""

    name: str
    labels: dict[str, str] = field(default_factory=dict)
    taints: list[Taint] = field(default_factory=list)
    allocatable: dict[str, Fraction] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    """Why a resource is missing (a device plugin that does not run there), for the findings."""


def pod_specs(document: Mapping[str, Any] | str) -> Iterator[dict[str, Any]]:
    """Every pod template in a rendered job (Job, PyTorchJob, MPIJob, HyperPod's job): dicts with containers."""
    if isinstance(document, str):
        return
    if isinstance(document.get("containers"), list):
        yield dict(document)
        return
    for value in document.values():
        if isinstance(value, Mapping):
            yield from pod_specs(value)


def pod_requests(pod: Mapping[str, Any]) -> dict[str, Fraction]:
    """What the pod requests: per container, its requests, or its limits where requests are unset."""
    total: dict[str, Fraction] = {}
    for container in pod.get("containers", []):
        resources = container.get("resources") or {}
        requests = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
        for name, amount in requests.items():
            total[name] = total.get(name, Fraction(0)) + quantity(amount)
    return total


def _tolerates(toleration: Mapping[str, Any], taint: Taint) -> bool:
    """``Toleration.ToleratesTaint`` (kubernetes/kubernetes staging/src/k8s.io/api/core/v1/toleration.go):
    an empty effect or key matches all, ``Exists`` any value, an empty operator means ``Equal``."""
    if toleration.get("effect") and toleration["effect"] != taint.effect:
        return False
    if toleration.get("key") and toleration["key"] != taint.key:
        return False
    operator = str(toleration.get("operator") or "Equal")
    if operator == "Equal":
        return (toleration.get("value") or "") == taint.value
    return operator == "Exists"


def unfit_reasons(pod: Mapping[str, Any], node: Node) -> list[str]:
    """Why the scheduler would not place ``pod`` on ``node``; empty when it fits."""
    reasons = []
    for name, wanted in sorted(pod_requests(pod).items()):
        have = node.allocatable.get(name, Fraction(0))
        if wanted > have:
            reasons.append(f"requests {show(name, wanted)} {name}, the node has {show(name, have)}")
    if node.allocatable.get("pods", Fraction(0)) < 1:
        reasons.append("the node has room for no pod")
    for key, value in sorted((pod.get("nodeSelector") or {}).items()):
        if node.labels.get(key) != value:
            reasons.append(f"selects {key}={value}, the node has "
                           f"{key}={node.labels[key]}" if key in node.labels else
                           f"selects {key}={value}, the node has no such label")
    for taint in node.taints:
        if taint.effect in ("NoSchedule", "NoExecute") and not any(
                _tolerates(t, taint) for t in pod.get("tolerations") or []):
            reasons.append(f"does not tolerate the taint {taint.key}={taint.value}:{taint.effect}")
    return reasons
