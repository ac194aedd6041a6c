"""Which pod-to-pod connections a set of rendered NetworkPolicy objects allows, by Kubernetes' semantics.

No CNI runs where trainstack is tested (the VPC CNI's network policy agent needs real nodes), so the policies a stack
renders are judged here, as the Kubernetes docs define them ("Network Policies", kubernetes.io/docs/concepts/
services-networking/network-policies/, for v1.35):

* A pod is isolated for ingress (egress) when a policy of its own namespace selects it (``spec.podSelector``) and
  names ``Ingress`` (``Egress``) in ``policyTypes``; a policy without ``policyTypes`` has ``Ingress``, and ``Egress``
  too when it has egress rules. A pod no policy isolates accepts (sends) everything.
* An isolated pod accepts a connection that any rule of any policy isolating it allows (policies add up). A rule
  with no ``from`` (``to``) allows every peer. A peer with ``podSelector`` alone means pods of the policy's own
  namespace; with ``namespaceSelector`` alone, every pod of the namespaces it selects; with both, the pods it
  selects in the namespaces it selects (one peer, both conditions).
* A connection needs both ends: the source's egress and the destination's ingress.
* Every namespace carries ``kubernetes.io/metadata.name: <its name>``, set by the API server (Kubernetes docs,
  "Well-Known Labels": immutable, on every namespace since v1.22), which is what a policy selects a namespace by.

What is not modelled is refused, not guessed: ``ipBlock`` peers and ``ports`` (the policies trainstack renders have
neither). Traffic from a pod's own node (the kubelet's probes) is always allowed by Kubernetes and is not asked
here. EFA traffic is not IP traffic and no NetworkPolicy sees it (``tenancy/isolation.py`` says why).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"


@dataclass(frozen=True)
class Pod:
    """One end of a connection: a pod's namespace and labels."""

    namespace: str
    labels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    why: str


class UnmodelledPolicy(ValueError):
    """A policy uses a part of NetworkPolicy this evaluator does not judge."""


def selects(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """Whether a LabelSelector matches ``labels``: every ``matchLabels`` pair and every ``matchExpressions``
    requirement (In, NotIn, Exists, DoesNotExist); the empty selector matches everything."""
    if any(labels.get(key) != value for key, value in (selector.get("matchLabels") or {}).items()):
        return False
    for requirement in selector.get("matchExpressions") or []:
        key, operator, values = requirement["key"], requirement["operator"], requirement.get("values") or []
        if operator == "In" and labels.get(key) not in values:
            return False
        if operator == "NotIn" and key in labels and labels[key] in values:
            return False
        if operator == "Exists" and key not in labels:
            return False
        if operator == "DoesNotExist" and key in labels:
            return False
        if operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            raise UnmodelledPolicy(f"a label selector's operator {operator!r} is not one Kubernetes defines")
    return True


def _policy_types(policy: Mapping[str, Any]) -> list[str]:
    spec = policy["spec"]
    if "policyTypes" in spec:
        return list(spec["policyTypes"])
    return ["Ingress", "Egress"] if spec.get("egress") else ["Ingress"]


def _name(policy: Mapping[str, Any]) -> str:
    return f"{policy['metadata']['namespace']}/{policy['metadata']['name']}"


def _peer_matches(peer: Mapping[str, Any], policy_namespace: str, other: Pod,
                  namespace_labels: Mapping[str, str]) -> bool:
    if "ipBlock" in peer:
        raise UnmodelledPolicy("an ipBlock peer is not judged here (it selects addresses, not pods)")
    pods, namespaces = peer.get("podSelector"), peer.get("namespaceSelector")
    if namespaces is None:
        in_namespace = other.namespace == policy_namespace
    else:
        in_namespace = selects(namespaces, namespace_labels)
    return in_namespace and (pods is None or selects(pods, other.labels))


def _direction(policies: Iterable[Mapping[str, Any]], pod: Pod, other: Pod, kind: str,
               namespace_labels: Mapping[str, str]) -> Verdict:
    """Whether ``pod`` takes (``Ingress``) or makes (``Egress``) the connection with ``other``."""
    rules_key, peers_key = ("ingress", "from") if kind == "Ingress" else ("egress", "to")
    isolating = [p for p in policies if p["metadata"]["namespace"] == pod.namespace
                 and kind in _policy_types(p) and selects(p["spec"].get("podSelector") or {}, pod.labels)]
    if not isolating:
        return Verdict(True, f"no policy isolates {pod.namespace} pods for {kind.lower()}")
    for policy in isolating:
        for rule in policy["spec"].get(rules_key) or []:
            if rule.get("ports"):
                raise UnmodelledPolicy(f"{_name(policy)}: a rule with ports is not judged here")
            peers = rule.get(peers_key) or []
            if not peers or any(_peer_matches(peer, pod.namespace, other, namespace_labels) for peer in peers):
                return Verdict(True, f"{_name(policy)} allows it")
    return Verdict(False, f"{kind.lower()} of {pod.namespace} is isolated by "
                          f"{', '.join(_name(p) for p in isolating)} and no rule allows {other.namespace}")


def flow(policies: Iterable[Mapping[str, Any]], source: Pod, destination: Pod,
         namespace_labels: Mapping[str, Mapping[str, str]] | None = None) -> Verdict:
    """Whether ``source`` may open a connection to ``destination`` under ``policies`` (NetworkPolicy objects as
    rendered). ``namespace_labels``: each namespace's own labels, beside the name label every namespace has."""
    policies = [p for p in policies if p.get("kind") == "NetworkPolicy"]
    given = namespace_labels or {}

    def labels_of(namespace: str) -> dict[str, str]:
        return {**given.get(namespace, {}), NAMESPACE_NAME_LABEL: namespace}

    leaving = _direction(policies, source, destination, "Egress", labels_of(destination.namespace))
    if not leaving.allowed:
        return leaving
    arriving = _direction(policies, destination, source, "Ingress", labels_of(source.namespace))
    return arriving if not arriving.allowed else Verdict(True, f"{leaving.why}; {arriving.why}")
