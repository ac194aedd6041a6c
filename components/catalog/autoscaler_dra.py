"""What each pinned Cluster Autoscaler release needs to handle Dynamic Resource Allocation (DRA).

A pod on a DRA group (``deviceAllocation: dra``) gets its GPUs and EFA interfaces through ResourceClaims, not
extended resources. The autoscaler decides scale-up and scale-down by running the scheduler's filters over nodes
it imagines; only with its DRA handling on do those filters allocate claims from ResourceSlices (a group's
template node then copies a running node's slices: ``simulator/node_info_utils.go``,
``SanitizedTemplateNodeInfoFromNodeInfo``). With the handling off, the autoscaler turns the scheduler's
``DynamicResourceAllocation`` feature gate off in its own process (``main.go`` at cluster-autoscaler-1.34.1), so
it judges a claiming pod by CPU and memory alone and neither adds nor keeps nodes for its devices.

The handling reads ResourceClaims, ResourceSlices and DeviceClasses through informers
(``simulator/dynamicresources/provider/provider.go``, ``NewProviderFromInformers``), so the autoscaler's
ClusterRole must grant them. Per pinned chart (kubernetes/autoscaler, read 2026-11):

* chart 9.52.0, cluster-autoscaler 1.34.1 (Kubernetes 1.34): the handling is the flag
  ``--enable-dynamic-resource-allocation``, false by default (``cluster-autoscaler/config/flags/flags.go`` at
  tag cluster-autoscaler-1.34.1, listed in ``FAQ.md``'s parameter table), and the chart's ClusterRole grants
  nothing of ``resource.k8s.io`` (``charts/cluster-autoscaler/templates/clusterrole.yaml`` at tag
  cluster-autoscaler-chart-9.52.0). Both can be supplied: the flag through ``extraArgs``, the rules through
  ``rbac.additionalRules`` (``values.yaml`` at the same tag), so trainstack supplies them rather than refusing
  DRA on 1.34.
* chart 9.59.0, cluster-autoscaler 1.35.0 (Kubernetes 1.35): the flag is locked to true (``flags.go`` at tag
  cluster-autoscaler-1.35.0) and the chart's ClusterRole has granted the three since chart 9.54.0
  (commit d4a3ca1d9b, "CA: update k8s deps to 1.35.0-rc.0"): nothing to add.

The rules trainstack adds are exactly those chart 9.54.0 and later grant, so both pinned versions run the
autoscaler with the same rights and the same DRA handling. They are read-only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

FLAG = "enable-dynamic-resource-allocation"
"""The autoscaler's flag (``extraArgs`` key of the chart) that turns its DRA handling on."""
API_GROUP = "resource.k8s.io"
RESOURCES = ("resourceslices", "deviceclasses", "resourceclaims")
VERBS = ("watch", "list", "get")
RULES: tuple[dict[str, list[str]], ...] = (
    {"apiGroups": [API_GROUP], "resources": list(RESOURCES), "verbs": list(VERBS)},)
"""The ClusterRole rules of chart 9.54.0 and later for DRA (``templates/clusterrole.yaml`` at
cluster-autoscaler-chart-9.59.0)."""


@dataclass(frozen=True)
class DraHandling:
    """How a pinned chart's autoscaler stands on DRA."""

    built_in: bool
    """True where the release handles DRA with the chart's defaults (flag on, rules granted)."""
    source: str


BY_CHART_VERSION: dict[str, DraHandling] = {
    "9.46.6": DraHandling(False, "kubernetes/autoscaler cluster-autoscaler-1.32.0 cluster-autoscaler/main.go "
                                 "(enable-dynamic-resource-allocation, default false); cluster-autoscaler-chart-9.46.6 "
                                 "charts/cluster-autoscaler/templates/clusterrole.yaml (no resource.k8s.io rules)"),
    "9.51.0": DraHandling(False, "kubernetes/autoscaler cluster-autoscaler-1.33.0 cluster-autoscaler/config/flags/"
                                 "flags.go (enable-dynamic-resource-allocation, default false); "
                                 "cluster-autoscaler-chart-9.51.0 charts/cluster-autoscaler/templates/"
                                 "clusterrole.yaml (no resource.k8s.io rules)"),
    "9.52.0": DraHandling(False, "kubernetes/autoscaler cluster-autoscaler-1.34.1 cluster-autoscaler/config/flags/"
                                 "flags.go (enable-dynamic-resource-allocation, default false); "
                                 "cluster-autoscaler-chart-9.52.0 charts/cluster-autoscaler/templates/"
                                 "clusterrole.yaml (no resource.k8s.io rules), values.yaml rbac.additionalRules"),
    "9.59.0": DraHandling(True, "kubernetes/autoscaler cluster-autoscaler-1.35.0 cluster-autoscaler/config/flags/"
                                "flags.go (enable-dynamic-resource-allocation locked to true); "
                                "cluster-autoscaler-chart-9.59.0 charts/cluster-autoscaler/templates/clusterrole.yaml "
                                "(resource.k8s.io resourceslices, deviceclasses, resourceclaims: watch, list, get)"),
}
"""Every pinned chart of ``addons.CLUSTER_AUTOSCALER`` by version (tests/catalog/test_autoscaler_dra.py holds
the two tables together)."""


def extra_args(chart_version: str) -> dict[str, bool]:
    """The ``extraArgs`` that turn DRA handling on in the chart's autoscaler (none where it is built in)."""
    return {} if BY_CHART_VERSION[chart_version].built_in else {FLAG: True}


def additional_rules(chart_version: str) -> list[dict[str, list[str]]]:
    """The ``rbac.additionalRules`` the chart's ClusterRole lacks for DRA (none where it grants them)."""
    return [] if BY_CHART_VERSION[chart_version].built_in else [dict(rule) for rule in RULES]


def missing(chart_version: str, values: Mapping[str, Any]) -> list[str]:
    """Why a release of the chart at ``chart_version`` with ``values`` does not handle DRA; empty when it does."""
    handling = BY_CHART_VERSION.get(chart_version)
    if handling is None:
        return [f"chart {chart_version} is not a pinned Cluster Autoscaler chart, so whether it handles DRA is "
                "unknown"]
    if handling.built_in:
        return []
    reasons = []
    if str((values.get("extraArgs") or {}).get(FLAG, "false")).lower() != "true":
        reasons.append(f"--{FLAG} is not set to true (its default is false)")
    granted = _granted(((values.get("rbac") or {}).get("additionalRules")) or [])
    lacking = [f"{verb} {resource}" for resource in RESOURCES for verb in VERBS if (resource, verb) not in granted]
    if lacking:
        reasons.append(f"its ClusterRole does not grant {', '.join(lacking)} in {API_GROUP}")
    return reasons


def _granted(rules: Sequence[Mapping[str, Any]]) -> set[tuple[str, str]]:
    """(resource, verb) pairs of ``resource.k8s.io`` that ``rules`` grant (``*`` as RBAC reads it)."""
    granted = set()
    for rule in rules:
        if not {API_GROUP, "*"} & set(rule.get("apiGroups") or []):
            continue
        resources = set(rule.get("resources") or [])
        verbs = set(rule.get("verbs") or [])
        granted |= {(r, v) for r in RESOURCES for v in VERBS
                    if (r in resources or "*" in resources) and (v in verbs or "*" in verbs)}
    return granted
