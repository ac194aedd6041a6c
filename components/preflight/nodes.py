"""Preflight of a running cluster's nodes: does each EFA node offer the 2 MiB huge pages its group's pods request?

The launchers' EFA pods request ``hugepages-2Mi`` (``launch.node_needs``); a node offers what its AMI's
EFA install reserved at boot, which can differ between AMI releases and instance types
(docs/adr/0005-efa-huge-pages.md). The kubelet reports what the node offers as
``status.allocatable["hugepages-2Mi"]``, and kube-scheduler's NodeResourcesFit filter admits a pod only
where its requests fit that allocatable (kubernetes/kubernetes ``pkg/scheduler/framework/plugins/
noderesources/fit.go``), so a node that offers less leaves the pods Pending with "Insufficient
hugepages-2Mi". One check per group: its nodes short of huge pages, each with what it offers.

Reads only (a list of Nodes, node_preflight.py); changes nothing. A node is on a group where its labels match
the group's pods' nodeSelector, as the scheduler places them.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..catalog import HUGEPAGES_RESOURCE
from ..kube.quantity import quantity
from ..launch.node_needs import HugePagesNeed
from .check import Check

CHECK = "node huge pages"
PAGE_BYTES = 2 * 2**20
SHORT_NODES_SHOWN = 5
"""Nodes a failing group's reason names one by one (the count says how many more)."""


def subject(need: HugePagesNeed) -> str:
    return f"{need.group} ({need.instance_type})"


def check_nodes(needs: list[HugePagesNeed], nodes: list[dict[str, Any]]) -> list[Check]:
    """One check per group in ``needs``: pass when each of its nodes offers what a pod requests, fail naming the
    nodes that offer less, could-not-check when none of its nodes is running (a group at zero)."""
    return [_group(need, [n for n in nodes if selects(need.node_selector, n)]) for need in needs]


def selects(selector: Mapping[str, str], node: Mapping[str, Any]) -> bool:
    """The node carries every label of ``selector`` (a nodeSelector's meaning)."""
    labels = (node.get("metadata") or {}).get("labels") or {}
    return all(labels.get(key) == value for key, value in selector.items())


def _group(need: HugePagesNeed, nodes: list[dict[str, Any]]) -> Check:
    checked = subject(need)
    wanted = quantity(need.request)
    asked = f"each pod on {need.group} requests {need.request} of {HUGEPAGES_RESOURCE}"
    if not nodes:
        selector = ", ".join(f"{k}={v}" for k, v in need.node_selector.items())
        return Check(CHECK, checked, "could-not-check",
                     f"no node of the group is running (none labelled {selector}); {asked}: check again once a "
                     "node has joined")
    offers = [(node["metadata"]["name"], _allocatable(node)) for node in nodes]
    short = [(name, shown, amount) for name, (shown, amount) in offers if amount is None or amount < wanted]
    if not short:
        least_name, (least_shown, _) = min(offers, key=lambda offer: offer[1][1] or Fraction(0))
        counted = f"{len(nodes)} nodes offer" if len(nodes) != 1 else "1 node offers"
        return Check(CHECK, checked, "pass", f"{counted} enough; {asked}; the least is {least_shown} on {least_name}")
    named = "; ".join(f"{name} offers {shown}" for name, shown, _ in short[:SHORT_NODES_SHOWN])
    more = f"; and {len(short) - SHORT_NODES_SHOWN} more" if len(short) > SHORT_NODES_SHOWN else ""
    pages = -(-wanted // PAGE_BYTES)
    return Check(CHECK, checked, "fail",
                 f"{len(short)} of {len(nodes)} nodes offer less than the {need.request} of {HUGEPAGES_RESOURCE} each "
                 f"pod on {need.group} requests ({named}{more}), so its pods stay Pending there (Insufficient "
                 f"{HUGEPAGES_RESOURCE}). Fix: {_fix(need, pages)}")


def _allocatable(node: Mapping[str, Any]) -> tuple[str, Fraction | None]:
    """What the node offers, as the kubelet reports it and as an amount (None where it is not a quantity).
    A node that reports no ``hugepages-2Mi`` offers none: the kubelet lists every huge page size the
    kernel supports, with 0 where none is reserved."""
    value = ((node.get("status") or {}).get("allocatable") or {}).get(HUGEPAGES_RESOURCE)
    if value is None:
        return "none (no allocatable hugepages-2Mi)", Fraction(0)
    try:
        return str(value), quantity(str(value))
    except ValueError:
        return f"'{value}' (not a quantity)", None


def _fix(need: HugePagesNeed, pages: int) -> str:
    where = ("HyperPod's AMI and the group's lifecycle scripts decide them" if need.hyperpod else
             "the AMI's EFA install reserves them, by AMI release: docs/adr/0005-efa-huge-pages.md")
    return (f"give each node of {need.group} at least {pages} huge pages of 2 MiB at boot, before the kubelet starts "
            f"(vm.nr_hugepages; {where}), or run these jobs on nodes that offer them")
