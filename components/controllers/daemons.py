"""Where a Helm release's per-node DaemonSet (a device plugin, a DRA driver's kubelet plugin) lands: the scheduling
model's node filters (``controllers/scheduling.py``) applied to the pod its values describe.

A chart installed by more than one release is read as one: the Neuron chart may be released twice, once with its
device plugin and scheduler and once with only its DRA driver (its validation refuses both in one release,
addons/dra_drivers.py), so each component's values come from the release that switches it on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .scheduling import Node, unfit_reasons


def merged_values(releases: Iterable[tuple[str, Mapping[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Chart name -> values, from ``(chart name, values)`` of every release; where a chart has several releases, a
    component one of them switches off (``enabled: false``) keeps the values of the one that runs it."""
    charts: dict[str, dict[str, Any]] = {}
    for chart, values in releases:
        merged = charts.setdefault(chart, {})
        for key, section in values.items():
            if key in merged and isinstance(section, Mapping) and section.get("enabled") is False:
                continue
            merged[key] = section
    return charts


def kept_off(charts: Mapping[str, Mapping[str, Any]], chart: str, path: tuple[str, ...], node: Node) -> list[str]:
    """Why the DaemonSet at ``path`` of ``chart``'s values runs no pod on ``node``; empty when it does. Placement is
    its nodeSelector and tolerations (the affinities trainstack sets name the same labels, or instance types the
    catalog's groups have)."""
    if chart not in charts:
        return ["is not installed"]
    values: Mapping[str, Any] = charts[chart]
    for key in path:
        values = values.get(key) or {}
    if values.get("enabled") is False:
        return ["is switched off in its release"]
    pod = {"nodeSelector": values.get("nodeSelector") or {}, "tolerations": values.get("tolerations") or [],
           "containers": []}
    return unfit_reasons(pod, node)
