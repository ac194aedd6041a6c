"""Helm charts as ``helm.v3.Release``: one resource whose chart, pinned version and
values the offline plan and the policies can read.

Every release is atomic (a failed install or upgrade rolls back instead of
leaving a half-installed release that blocks the next ``pulumi up``) and has a
timeout, so a DaemonSet waiting for nodes that never come cannot hang the update.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

import pulumi
import pulumi_kubernetes as k8s

from .catalog.addons import Chart

__all__ = ["Chart", "RELEASE_TIMEOUT_SECONDS", "helm_release"]

RELEASE_TIMEOUT_SECONDS = 600


def helm_release(
    name: str, chart: Chart, *, namespace: str, values: dict[str, Any], provider: k8s.Provider,
    parent: pulumi.Resource, depends_on: Optional[Sequence[pulumi.Resource]] = None,
) -> k8s.helm.v3.Release:
    return k8s.helm.v3.Release(
        name,
        name=name,
        chart=chart.name,
        version=chart.version,
        repository_opts={"repo": chart.repository} if chart.repository else None,
        namespace=namespace,
        create_namespace=namespace != "kube-system",
        values=values,
        atomic=True,
        cleanup_on_fail=True,
        timeout=RELEASE_TIMEOUT_SECONDS,
        max_history=5,
        opts=pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=list(depends_on or [])),
    )
