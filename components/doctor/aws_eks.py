"""The EKS side of the stack as EKS reports it: the cluster is there, each managed node group the plan makes is
there without health issues, each managed add-on is ACTIVE at its pinned version, and no upgrade insight is in
ERROR or WARNING.

What EKS says, by call (EKS API Reference, https://docs.aws.amazon.com/eks/latest/APIReference/): DescribeNodegroup's
``health.issues`` (code, message, resourceIds), DescribeAddon's ``status``, ``addonVersion`` and ``health.issues``,
ListInsights and DescribeInsight (``insightStatus``: PASSING, WARNING, ERROR or UNKNOWN; category
UPGRADE_READINESS is what EKS checks before a Kubernetes version upgrade, EKS User Guide, "Prepare for Kubernetes
version upgrades with cluster insights": https://docs.aws.amazon.com/eks/latest/userguide/cluster-insights.html)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Optional

from ..names import NODE_GROUP_TAG
from .aws_plan import AwsSide, ManagedGroup
from .aws_reads import every, read
from .finding import Finding

PROBLEM_STATUSES = ("ERROR", "WARNING")


def eks_findings(side: AwsSide, eks: Any) -> Iterator[Finding]:
    cluster, region = side.cluster, eks.meta.region_name
    if cluster is None:
        return
    if read(eks, "describe_cluster", name=cluster) is None:
        yield Finding("aws", f"EKS cluster {cluster}", "the cluster the plan makes", f"no such cluster in {region}",
                      f"aws eks list-clusters --region {region} lists the clusters there; `pulumi up` makes it")
        return
    yield from _node_groups(side.groups, cluster, eks, region)
    yield from _addons(side.addons, cluster, eks, region)
    yield from _insights(cluster, eks, region)


def _node_groups(groups: list[ManagedGroup], cluster: str, eks: Any, region: str) -> Iterator[Finding]:
    live = [found["nodegroup"] for name in every(eks, "list_nodegroups", "nodegroups", clusterName=cluster)
            if (found := read(eks, "describe_nodegroup", clusterName=cluster, nodegroupName=name)) is not None]
    for group in groups:
        node_group = _match(group, live)
        if node_group is None:
            yield Finding("aws", f"node group {group.group} ({group.logical_name})",
                          f"an EKS managed node group {group.logical_name}-<7 characters> in cluster {cluster}",
                          "none", f"aws eks list-nodegroups --cluster-name {cluster} --region {region} lists them; "
                          "`pulumi up` makes it again")
            continue
        name, status = node_group["nodegroupName"], node_group.get("status")
        subject = f"node group {group.group} ({name})"
        describe = (f"aws eks describe-nodegroup --cluster-name {cluster} --nodegroup-name {name} --region {region} "
                    "--query nodegroup.health")
        issues = (node_group.get("health") or {}).get("issues") or []
        for issue in issues:
            yield Finding("aws", subject, "no health issues", f"{status}: {_issue(issue)}", describe)
        if not issues and status != "ACTIVE":
            yield Finding("aws", subject, "ACTIVE", f"{status}", describe)


def _match(group: ManagedGroup, live: list[dict[str, Any]]) -> Optional[dict[str, Any]]:
    """The live node group of a planned one: by its tag, else by the name Pulumi made of its logical name (a
    7-character hex suffix, pulumi-terraform-bridge's AutoName)."""
    named = re.compile(re.escape(group.logical_name) + "-[0-9a-f]{7}")
    for node_group in live:
        if (node_group.get("tags") or {}).get(NODE_GROUP_TAG) == group.logical_name:
            return node_group
    return next((node_group for node_group in live if named.fullmatch(node_group.get("nodegroupName", ""))), None)


def _addons(addons: dict[str, Optional[str]], cluster: str, eks: Any, region: str) -> Iterator[Finding]:
    for name, pin in addons.items():
        subject = f"EKS add-on {name}"
        found = read(eks, "describe_addon", clusterName=cluster, addonName=name)
        if found is None:
            yield Finding("aws", subject, f"installed in cluster {cluster}", "not installed",
                          f"`pulumi up` installs it (aws eks list-addons --cluster-name {cluster} --region {region} "
                          "lists what is there)")
            continue
        addon = found["addon"]
        status, version = addon.get("status"), addon.get("addonVersion")
        describe = f"aws eks describe-addon --cluster-name {cluster} --addon-name {name} --region {region}"
        if status != "ACTIVE":
            issues = "; ".join(_issue(issue) for issue in (addon.get("health") or {}).get("issues") or [])
            yield Finding("aws", subject, "ACTIVE", f"{status}{': ' + issues if issues else ''}", describe)
        if pin is not None and version != pin:
            yield Finding("aws", subject, f"version {pin} (eks.addonVersions)", f"version {version}",
                          f"aws eks update-addon --cluster-name {cluster} --addon-name {name} --addon-version {pin} "
                          f"--region {region}")


def _insights(cluster: str, eks: Any, region: str) -> Iterator[Finding]:
    for summary in every(eks, "list_insights", "insights", clusterName=cluster,
                         filter={"categories": ["UPGRADE_READINESS"], "statuses": list(PROBLEM_STATUSES)}):
        status = (summary.get("insightStatus") or {}).get("status")
        if status not in PROBLEM_STATUSES:
            continue
        described = read(eks, "describe_insight", clusterName=cluster, id=summary["id"])
        insight = (described or {}).get("insight") or summary
        said = [f"{status}: {str((insight.get('insightStatus') or {}).get('reason', '')).rstrip('.')}"]
        if insight.get("resources"):
            said.append(f"{len(insight['resources'])} resource{'s' if len(insight['resources']) != 1 else ''} "
                        "affected")
        if insight.get("recommendation"):
            said.append(str(insight["recommendation"]).rstrip("."))
        yield Finding("aws", f"EKS cluster {cluster}: upgrade insight '{insight.get('name')}' (Kubernetes "
                      f"{insight.get('kubernetesVersion')})", "PASSING", "; ".join(said),
                      f"aws eks describe-insight --cluster-name {cluster} --id {summary['id']} --region {region}")


def _issue(issue: dict[str, Any]) -> str:
    resources = issue.get("resourceIds") or []
    shown = f" ({', '.join(resources[:5])}{' ...' if len(resources) > 5 else ''})" if resources else ""
    return f"{issue.get('code')}: {str(issue.get('message', '')).rstrip('.')}{shown}"
