"""The version of an EKS managed add-on that EKS gives a Kubernetes minor: what an upgrade moves the add-ons to.

The primary source is EKS's own API, ``DescribeAddonVersions`` (the version whose ``compatibilities`` entry for the
minor has ``defaultVersion``): ``trainstack upgrade --aws`` asks it. Offline, the EKS user guide's per-minor tables
stand in, for the two add-ons whose version follows the minor (kube-proxy, which runs beside every kubelet, and
CoreDNS); the guide publishes none for the others, whose one version serves every minor (its vpc-cni table) or which
it leaves to the API. A minor the tables do not reach is left to the API, never guessed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Optional

# Amazon EKS User Guide, "Manage kube-proxy" (managing-kube-proxy), the per-minor table, read 2026-11-28 in the copy on
# docs.amazonaws.cn (zh_cn, the newest copy found; its English page's stored copies stop at 1.32).
KUBE_PROXY = {"1.35": "v1.35.3-eksbuild.2", "1.34": "v1.34.6-eksbuild.2", "1.33": "v1.33.10-eksbuild.2",
              "1.32": "v1.32.13-eksbuild.5"}
KUBE_PROXY_SOURCE = "Amazon EKS User Guide, managing-kube-proxy (docs.amazonaws.cn copy, read 2026-11-28)"
# Amazon EKS User Guide, "Manage CoreDNS" (managing-coredns.html), the per-minor table, read 2026-11-28: 1.32 to 1.34
# (the copy has no row for 1.35 or 1.36).
COREDNS = {"1.34": "v1.12.4-eksbuild.1", "1.33": "v1.12.4-eksbuild.1", "1.32": "v1.11.4-eksbuild.24"}
COREDNS_SOURCE = "Amazon EKS User Guide, managing-coredns.html (read 2026-11-28)"

FOLLOWS_THE_MINOR = {"kube-proxy": (KUBE_PROXY, KUBE_PROXY_SOURCE), "coredns": (COREDNS, COREDNS_SOURCE)}
"""The add-ons an upgrade moves offline, with their table and its source."""


def from_the_guide(addon: str, minor: str) -> Optional[str]:
    """The guide's version of ``addon`` for ``minor``; None where its table has no row."""
    table, _ = FOLLOWS_THE_MINOR.get(addon, ({}, ""))
    return table.get(minor)


def from_eks(client: Any, addon: str, minor: str) -> Optional[str]:
    """EKS's default version of ``addon`` for ``minor`` (``DescribeAddonVersions``); None where EKS lists none."""
    pages = client.get_paginator("describe_addon_versions").paginate(addonName=addon, kubernetesVersion=minor)
    return _default_version((found for page in pages for found in page.get("addons", [])), minor)


def _default_version(addons: Iterable[dict[str, Any]], minor: str) -> Optional[str]:
    for addon in addons:
        for version in addon.get("addonVersions", []):
            if any(entry.get("clusterVersion") == minor and entry.get("defaultVersion")
                   for entry in version.get("compatibilities", [])):
                return str(version["addonVersion"])
    return None
