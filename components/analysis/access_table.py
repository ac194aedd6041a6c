"""The plan's access table (the ``access`` section): what each team can reach, as the plan would deploy it.

Read from the plan's record (``review/access.py``: the Teams component's access entries, the Roles and bindings,
the Pod Identity roles' policies, the team namespaces' labels, NetworkPolicies, quotas and FSx claims), not from
the config, so the table and the diff's security findings say the same thing. The config adds one thing the record
cannot hold: on a cluster made elsewhere (``existingCluster``) the stack makes no access entry, so the members it
names are listed with the group the cluster's owner must map each to (EKS user guide, access-entries.html:
``kubernetesGroups``), and the cluster's own access entries are said to be left alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Optional

from ..config import StackConfig
from ..plan import Plan
from ..review.access import Allow, StackAccess, TeamAccess, grants_said, read_access
from ..review.access_words import EXISTING_CLUSTER, team_rows

READ = {"s3:GetObject", "s3:ListBucket"}
WRITE = {"s3:PutObject", "s3:AbortMultipartUpload"}
DELETE = {"s3:DeleteObject"}


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
            "ingressEnforced": access.network_policy,
            "quota": team.quota,
            "reach": {group: {"guaranteedNodes": guaranteed, "maxNodes": most}
                      for group, (guaranteed, most) in team.reach.items()},
        }

    def render(self) -> str:
        data = self.as_dict()
        lines = ["Team access (as the plan deploys it: access entries, Roles and bindings, Pod Identity policies, "
                 "namespace labels and NetworkPolicies):"]
        if data["existingCluster"]:
            lines.append(f"  {EXISTING_CLUSTER[0].lower()}{EXISTING_CLUSTER[1:]}")
        for team in data["teams"]:
            lines += [f"  {team['team']}"] + [f"    {label:<12} {value}" for label, value in team_rows(team)]
        for viewer in data["viewers"]:
            lines.append(f"  viewer {viewer['principal']} -> {', '.join(viewer['groups'])}: "
                         + ("; ".join(viewer["kubernetes"]) or "nothing bound"))
        return "\n".join(lines)


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
