"""Doctor's add-on checks (the cluster section): each Helm release the plan names is deployed at its pinned chart
version (here), its pods are Ready (``doctor.release_pods``), and each device plugin's or DRA driver's DaemonSet has a
pod on every node the plan says it must serve (``doctor.plugin_coverage``).

What is read, each kind listed once (and each release workload's pods by its own selector), so the time grows with
the nodes and pods, not with requests per node: Helm's release records (``kube.helm_records``: the newest revision
of each is the release, its chart version and status), the workloads Helm annotated as each release's and their
pods, and the nodes. The plan's releases are ``doctor.planned_releases``.

EKS managed add-ons (vpc-cni, coredns, kube-proxy, the Pod Identity agent ...) are AWS resources, not Helm
releases: ``doctor.aws`` reads them with ``--aws``. Doctor only reads (GET and LIST)."""

from __future__ import annotations

from collections.abc import Mapping

from ..kube.client import Cluster
from ..kube.helm_records import HelmRelease, newest_releases, release_records
from ..plan import Plan
from .finding import Finding
from .planned_releases import PlannedRelease, planned_releases
from .plugin_coverage import coverage_findings, served_groups
from .release_pods import pod_findings, ready, release_workloads


def _same_version(pinned: str, recorded: str) -> bool:
    """Helm reads chart versions as SemVer 2, a leading ``v`` allowed (Masterminds/semver ``NewVersion``)."""
    return pinned.removeprefix("v") == recorded.removeprefix("v")


def release_findings(planned: list[PlannedRelease], live: Mapping[tuple[str, str], HelmRelease],
                     stack: str) -> tuple[list[Finding], dict[str, HelmRelease]]:
    """A finding for each planned release that is missing, at another chart version, or not ``deployed``; and the
    live release of each planned one found (by resource name)."""
    result, found = [], {}
    for release in planned:
        expected = f"chart {release.chart} {release.version}, status deployed"
        match = next((r for (namespace, name), r in sorted(live.items()) if release.is_named(namespace, name)), None)
        subject = f"release {release.shown()}"
        if match is None:
            result.append(Finding(
                "cluster", subject, expected, "no Helm release record of it (no Secret sh.helm.release.v1."
                f"{release.name or release.resource + '-*'}.v<revision> labelled owner=helm)",
                f"pulumi up --stack {stack} installs it"))
            continue
        found[release.resource] = match
        subject = f"release {match.namespace}/{match.name}"
        actual = f"chart {match.chart} {match.version}, revision {match.revision} {match.status}"
        if not _same_version(release.version, match.version):
            result.append(Finding(
                "cluster", subject, expected, actual,
                f"helm history {match.name} -n {match.namespace} shows which revision changed it; pulumi up --refresh "
                f"--stack {stack} puts back {release.version} (without --refresh Pulumi compares with its state, "
                "which still holds the version it installed)"))
        elif match.status != "deployed":
            result.append(Finding("cluster", subject, expected, f"{actual}: {match.description or 'no description'}",
                                  _status_fix(match, stack)))
    return result, found


def _status_fix(release: HelmRelease, stack: str) -> str:
    history = f"helm history {release.name} -n {release.namespace}"
    if release.status.startswith("pending-"):
        # An operation that never finished holds the release: Helm refuses the next one ("another operation
        # (install/upgrade/rollback) is in progress", pkg/action/upgrade.go errPending) until it is rolled back.
        return (f"{history} shows the last deployed revision; helm rollback {release.name} <that revision> -n "
                f"{release.namespace}, then pulumi up --refresh --stack {stack}")
    return f"{history} says why revision {release.revision} {release.status}; then pulumi up --refresh --stack {stack}"


def findings(plan: Plan, cluster: Cluster) -> list[Finding]:
    """The add-on findings of ``plan``'s stack on ``cluster``, releases first, then their pods, then coverage."""
    planned = planned_releases(plan)
    if not planned:
        return []
    result, found = release_findings(planned, newest_releases(release_records(cluster)), plan.stack)
    workloads = release_workloads(cluster, found)
    nodes = cluster.list("v1", "Node")
    ready_nodes = {n["metadata"]["name"] for n in nodes if ready(n)}
    for resource, release in found.items():
        result += pod_findings(release, workloads[resource], ready_nodes)
    for resource, groups in served_groups(plan, planned).items():
        if resource in found and groups:
            result += coverage_findings(found[resource], groups, workloads[resource], nodes, plan.stack)
    return result
