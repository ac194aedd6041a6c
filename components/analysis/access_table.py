"""The plan's access table (the ``access`` section): what each team can reach, as the plan would deploy it.

Read from the plan's record (``review/access.py``: the Teams component's access entries, the Roles and bindings,
the Pod Identity roles' policies, the team namespaces' labels, NetworkPolicies, quotas and FSx claims), not from
the config, so the table and the diff's security findings say the same thing. The config adds one thing the record
cannot hold: on a cluster made elsewhere (``existingCluster``) the stack makes no access entry, so the members it
names are listed with the group the cluster's owner must map each to (EKS user guide, access-entries.html:
``kubernetesGroups``), and the cluster's own access entries are said to be left alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar, Optional

from ..config import StackConfig
from ..plan import Plan
from ..review.access import Allow, StackAccess, TeamAccess, grants_said, read_access

READ = {"s3:GetObject", "s3:ListBucket"}
WRITE = {"s3:PutObject", "s3:AbortMultipartUpload"}
DELETE = {"s3:DeleteObject"}
NAMESPACE_NAME = "kubernetes.io/metadata.name"
"""The label the API server sets on every namespace to its name (Kubernetes docs, Well-Known Labels)."""


@dataclass(frozen=True)
class AccessTable:
    """Each team's access (the ``access`` section)."""

    key: ClassVar[str] = "access"
    access: StackAccess
    named_members: dict[str, tuple[str, ...]]
    """Team -> the members the stack file names (``scheduling.teams[].members``): on a cluster made elsewhere,
    the principals its owner must map."""

    def as_dict(self) -> dict[str, Any]:
        return {"existingCluster": self.access.existing_cluster,
                "teams": [self._team(team) for team in self.access.teams.values()],
                "viewers": [{"principal": principal, "groups": list(groups),
                             "kubernetes": grants_said(self.access.of_principal(principal))}
                            for principal, groups in sorted(self.access.viewers.items())]}

    def _team(self, team: TeamAccess) -> dict[str, Any]:
        access = self.access
        group_grants = frozenset().union(*(access.grants.get(g, frozenset()) for g in team.groups))
        checkpoints, datasets, other = _data(team.allows, access.checkpoint_bucket, access.datasets)
        return {
            "team": team.team, "namespace": team.namespace, "queue": team.queue,
            "members": [{"principal": m, "groups": list(access.entries[m])} for m in team.members],
            "unmapped": [m for m in self.named_members.get(team.team, ()) if m not in access.entries]
            if access.existing_cluster else [],
            "groups": list(team.groups), "kubernetes": grants_said(group_grants),
            "serviceAccounts": list(team.service_accounts), "roles": list(team.roles),
            "checkpoints": checkpoints, "datasets": datasets, "otherAws": other,
            "fsx": team.fsx, "podSecurity": team.pod_security,
            "ingress": None if team.ingress is None else sorted(team.ingress),
            "quota": team.quota,
            "reach": {group: {"guaranteedNodes": guaranteed, "maxNodes": most}
                      for group, (guaranteed, most) in team.reach.items()},
        }

    def render(self) -> str:
        data = self.as_dict()
        lines = ["Team access (as the plan deploys it: access entries, Roles and bindings, Pod Identity policies, "
                 "namespace labels and NetworkPolicies):"]
        if data["existingCluster"]:
            lines.append("  the cluster was made elsewhere: its own access entries are left alone, and this stack "
                         "makes none; its owner maps each member to the team's group")
        for team in data["teams"]:
            lines += [f"  {team['team']}"] + [f"    {label:<12} {value}" for label, value in _rows(team)]
        for viewer in data["viewers"]:
            lines.append(f"  viewer {viewer['principal']} -> {', '.join(viewer['groups'])}: "
                         + ("; ".join(viewer["kubernetes"]) or "nothing bound"))
        return "\n".join(lines)


def _rows(team: dict[str, Any]) -> list[tuple[str, str]]:
    """The table's rows for one team: (label, value in words)."""
    groups = ", ".join(team["groups"]) or "none bound"
    members = [f"{m['principal']} (access entry -> {', '.join(m['groups'])})" for m in team["members"]]
    members += [f"{m}: no access entry here; map it to {groups} in the cluster's own access entries"
                for m in team["unmapped"]]
    rows = [("members", "; ".join(members) or "none"), ("group", groups),
            ("namespace", f"{team['namespace']} (Pod Security: enforce {team['podSecurity'] or 'not labelled'})"),
            ("queue", f"LocalQueue {team['queue']}" if team["queue"] else "none"),
            ("reaches", "; ".join(f"{g}: up to {r['maxNodes']} nodes ({r['guaranteedNodes']} guaranteed)"
                                  for g, r in team["reach"].items()) or "no node group"),
            ("kubernetes", "; ".join(team["kubernetes"]) or "nothing bound"),
            ("ingress", "from any pod of the cluster (no NetworkPolicy selects all its pods)"
             if team["ingress"] is None else "; ".join(_peer(p) for p in team["ingress"]) or "from nowhere"),
            ("runs as", ", ".join(f"{team['namespace']}/{sa}" for sa in team["serviceAccounts"])
             + (f" -> IAM role {', '.join(team['roles'])} (Pod Identity)" if team["roles"] else "")
             or "no Pod Identity role in this stack"),
            ("checkpoints", "; ".join(team["checkpoints"]) or "none"),
            ("datasets", "; ".join(team["datasets"]) or "none"),
            ("fsx", _fsx(team["fsx"], team["team"])),
            ("quota", ", ".join(f"{k} {v}" for k, v in sorted(team["quota"].items())) or "none")]
    if team["otherAws"]:
        rows.append(("other AWS", "; ".join(team["otherAws"])))
    return rows


def _peer(peer: str) -> str:
    """A NetworkPolicy peer in words: its own pods, a namespace by name, or as written."""
    rule = json.loads(peer)
    source, ports = rule["from"], rule.get("ports")
    labels = (source.get("namespaceSelector") or {}).get("matchLabels") if isinstance(source, dict) else None
    if source == {"podSelector": {}}:
        said = "its own pods"
    elif source == "any":
        said = "anywhere"
    elif isinstance(labels, dict) and set(source) == {"namespaceSelector"} and list(labels) == [NAMESPACE_NAME]:
        said = f"namespace {labels[NAMESPACE_NAME]}"
    else:
        said = json.dumps(source, sort_keys=True)
    return said + (f" (ports {json.dumps(ports, sort_keys=True)})" if ports else "")


def _fsx(mounted: Optional[str], team: str) -> str:
    if mounted is None:
        return "none"
    # A mount name with no directory after it is the file system's root: every team's claim reaches every file.
    root = "/" not in mounted.split(":/", 1)[1]
    return mounted + (" (the whole file system: no directory of its own)" if root else "")


def _data(allows: frozenset[Allow], bucket: Optional[str],
          datasets: tuple[dict[str, Any], ...]) -> tuple[list[str], list[str], list[str]]:
    """The IAM statements in words: the checkpoint bucket's prefixes, each dataset reached, and the rest."""
    checkpoints: dict[str, set[str]] = {}
    reached: dict[str, set[str]] = {}
    other = []
    for allow in sorted(allows):
        target = allow.resource.removeprefix("arn:aws:s3:::")
        dataset = next((d for d in datasets if target == d.get("bucket") or target.startswith(f"{d.get('bucket')}/")),
                       None)
        if bucket is not None and target.startswith(f"{bucket}/"):
            checkpoints.setdefault(f"s3://{target.removesuffix('*')}", set()).add(allow.action)
        elif dataset is not None:
            reached.setdefault(str(dataset.get("name")), set()).add(allow.action)
        elif not (bucket is not None and target == bucket and allow.action == "s3:ListBucket"):
            other.append(allow.said)
    return ([f"{prefix} ({_verbs(actions)})" for prefix, actions in checkpoints.items()],
            [f"{name} ({_verbs(actions)})" for name, actions in reached.items()], other)


def _verbs(actions: set[str]) -> str:
    said = [word for word, needed in (("read", READ), ("write", WRITE), ("delete", DELETE)) if actions & needed]
    unknown = sorted(actions - READ - WRITE - DELETE)
    return ", ".join(said + unknown)


def access_table(plan: Plan, config: Optional[StackConfig]) -> Optional[AccessTable]:
    """The plan's access table; None on a plan without teams."""
    access = read_access(plan)
    if access is None:
        return None
    teams = config.scheduling.teams if config is not None and config.scheduling is not None else []
    return AccessTable(access, {team.name: tuple(team.members) for team in teams})
