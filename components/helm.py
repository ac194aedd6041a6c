"""Helm charts as ``helm.v3.Release``: one resource whose chart, pinned version and
values the offline plan and the policies can read.

Every release is atomic (a failed install or upgrade rolls back instead of
leaving a half-installed release that blocks the next ``pulumi up``) and has a
timeout, so a DaemonSet waiting for nodes that never come cannot hang the update.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Optional

import pulumi
import pulumi_kubernetes as k8s

from .catalog.addons import Chart
from .config.resource_names import HELM_RELEASE_MAX, fit

__all__ = ["Chart", "ChartMissing", "RELEASE_TIMEOUT_SECONDS", "charts_from", "helm_release"]

RELEASE_TIMEOUT_SECONDS = 600

_CHART_DIRECTORY: contextvars.ContextVar[Optional[Path]] = contextvars.ContextVar("chart_directory", default=None)


class ChartMissing(ValueError):
    """``helmCharts.directory`` lacks a chart the stack installs."""


@contextlib.contextmanager
def charts_from(directory: Optional[str]) -> Iterator[None]:
    """Releases made inside take their charts from ``directory`` (``helmCharts.directory``) rather than their
    repositories: a cluster that cannot reach them (air-gapped, a private mirror) installs what was pulled
    beforehand with ``helm pull <repo or oci ref> --version <version>`` (the pins are in the plan)."""
    token = _CHART_DIRECTORY.set(Path(directory).expanduser() if directory else None)
    try:
        yield
    finally:
        _CHART_DIRECTORY.reset(token)


def _local_chart(chart: Chart, directory: Path) -> str:
    """The pulled chart: ``<name>-<version>.tgz`` as ``helm pull`` names it, or the directory ``--untar`` leaves."""
    name = chart.name.rsplit("/", 1)[-1]
    for candidate in (directory / f"{name}-{chart.version}.tgz", directory / name):
        if candidate.exists():
            return str(candidate.resolve())
    raise ChartMissing(
        f"helmCharts.directory {directory} has no chart {name} {chart.version} (neither {name}-{chart.version}.tgz "
        f"nor {name}/). Fix: helm pull {chart.name}{f' --repo {chart.repository}' if chart.repository else ''} "
        f"--version {chart.version} -d {directory}")


def helm_release(
    name: str, chart: Chart, *, namespace: str, values: dict[str, Any], provider: k8s.Provider,
    parent: pulumi.Resource, depends_on: Optional[Sequence[pulumi.Resource]] = None,
) -> k8s.helm.v3.Release:
    """The release ``name`` (cut to Helm's 53 characters with a hash, so two long names stay two releases) of
    ``chart`` in ``namespace``."""
    release = fit(name, HELM_RELEASE_MAX)
    directory = _CHART_DIRECTORY.get()
    local = _local_chart(chart, directory) if directory is not None else None
    return k8s.helm.v3.Release(
        release,
        name=release,
        chart=local or chart.name,
        version=chart.version,
        repository_opts={"repo": chart.repository} if chart.repository and local is None else None,
        namespace=namespace,
        create_namespace=namespace != "kube-system",
        values=values,
        atomic=True,
        cleanup_on_fail=True,
        timeout=RELEASE_TIMEOUT_SECONDS,
        max_history=5,
        opts=pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=list(depends_on or [])),
    )
