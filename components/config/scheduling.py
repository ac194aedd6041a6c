"""Scheduling: which teams share the accelerated groups through Kueue, and on what terms.

Each team gets a LocalQueue in its namespace, in front of its own ClusterQueue. A team's
ClusterQueue holds the nodes guaranteed to it (``guaranteedNodes``); the rest of each
group's capacity belongs to the team's cohort and is lent to whichever team of the cohort
queues first. Together they always add up to the capacity the stack owns (the groups'
maxSize, bounded by their reservations): the quotas are derived, never typed twice.
"""

from __future__ import annotations

import re
from typing import Literal, Optional

from pydantic import Field, field_validator

from .base import ConfigModel, ConfigValueError
from .principals import ACCESS_ENTRY_ARN

KUBERNETES_NAME = r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"
# Namespaces a team cannot own: Kubernetes' and EKS's own, where trainstack neither labels nor isolates, and the
# platform's own (storage/lustre_directories.py: the FSx root and the Job that makes the teams' directories).
SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease", "trainstack-system")


class TeamQuotaConfig(ConfigModel):
    """What a team's namespace may hold beyond the accelerators (Kueue's quota keeps those): each unset key is
    derived from the node groups the team's queue can reach (``tenancy/quotas.py``)."""

    cpu: Optional[int] = Field(default=None, ge=1)
    """Cores all the team's pods may request together."""
    memory_gib: Optional[int] = Field(default=None, alias="memoryGiB", ge=1)
    """Memory all the team's pods may request together, in GiB."""
    pods: Optional[int] = Field(default=None, ge=1)
    """Pods in the namespace at once (running or pending)."""
    persistent_volume_claims: Optional[int] = Field(default=None, ge=0)
    """PersistentVolumeClaims in the namespace, the stack's own claims included."""


def _principals(arns: list[str]) -> list[str]:
    for index, arn in enumerate(arns):
        if not re.match(ACCESS_ENTRY_ARN, arn):
            raise ConfigValueError(
                f"'{arn}' is not an IAM role or user ARN; an EKS access entry names one of those (not an "
                "assumed-role session).", fix="use arn:aws:iam::<12-digit account>:role/<name> (or :user/<name>).",
                path=(index,), value=arn)
    return arns


class TeamConfig(ConfigModel):
    """A team that submits jobs: a namespace, a LocalQueue in it and a ClusterQueue behind it."""

    name: str = Field(pattern=KUBERNETES_NAME)
    """The team; names its ClusterQueue and LocalQueue."""
    namespace: str = Field(pattern=KUBERNETES_NAME)
    """The namespace the team's jobs run in (its LocalQueue lives there)."""
    cohort: str = Field(default="trainstack", pattern=KUBERNETES_NAME)
    """The cohort whose spare capacity the team borrows and lends."""
    guaranteed_nodes: dict[str, int] = {}
    """Nodes of each node group the team always gets (node group name -> nodes); the rest of the
    group's capacity is shared by the cohort."""
    borrowing: bool = True
    """Use the cohort's spare capacity beyond the guarantee (false: the guarantee is the limit)."""
    members: list[str] = Field(default=[], json_schema_extra={"items": {"pattern": ACCESS_ENTRY_ARN}})
    """IAM role or user ARNs that submit the team's jobs: each gets an EKS access entry in the Kubernetes group
    bound to the team's Role, which reaches the team's namespace and nothing else (docs/adr/0016-teams-as-tenants.md).
    Prefer roles (an IAM Identity Center permission set is one): a user's access keys live until someone rotates
    them, a role's session expires within hours."""
    quota: TeamQuotaConfig = TeamQuotaConfig()
    """The namespace's ResourceQuota beyond the accelerators; unset keys follow from the groups the team reaches."""

    @field_validator("namespace")
    @classmethod
    def _own_namespace(cls, namespace: str) -> str:
        if namespace in SYSTEM_NAMESPACES:
            raise ConfigValueError(
                f"'{namespace}' is Kubernetes' or the platform's own namespace: a team there would share it with "
                "system pods, and trainstack cannot fence it (Pod Security level, network policy, quota) without "
                "fencing those too.",
                fix="give the team a namespace of its own (its name, say).", path=(), value=namespace)
        return namespace

    @field_validator("members")
    @classmethod
    def _members(cls, members: list[str]) -> list[str]:
        return _principals(members)


class PriorityClassConfig(ConfigModel):
    """A Kueue WorkloadPriorityClass: a higher value is admitted first and may preempt a lower one."""

    name: str = Field(pattern=KUBERNETES_NAME)
    """What jobs name in ``kueue.x-k8s.io/priority-class``."""
    value: int = Field(ge=-(2**31), le=2**31 - 1)
    """Kueue's priority: an int32."""
    description: str = ""
    """Why a job would pick it."""


class SchedulingConfig(ConfigModel):
    """Kueue queues, quotas, priorities and topology-aware placement for the accelerated groups."""

    teams: list[TeamConfig] = Field(min_length=1)
    """The teams sharing the groups; each gets a queue."""
    priorities: list[PriorityClassConfig] = []
    """WorkloadPriorityClasses."""
    topology_aware: bool = True
    """A Kueue Topology over the EC2 network-node labels, on the groups whose type has them and that run on device
    plugins: a DRA group's jobs are queued by quota alone, since Kueue's topology-aware scheduling does not count
    claimed devices (addons/kueue.py)."""
    pods_ready_timeout_minutes: int = Field(default=10, ge=1, le=1440)
    """waitForPodsReady: an admitted job whose pods are not all running by then is evicted and
    requeued, giving its nodes back, instead of holding half of them while waiting for the rest."""
    preemption: Literal["Never", "LowerPriority"] = "LowerPriority"
    """Whether a team's job may preempt lower-priority jobs to reclaim its guaranteed nodes."""
    viewers: list[str] = Field(default=[], json_schema_extra={"items": {"pattern": ACCESS_ENTRY_ARN}})
    """IAM role or user ARNs that may read every team's queue status (ClusterQueues, LocalQueues, Workloads) and
    nothing else: an access entry in the cluster-wide viewer group."""

    @field_validator("viewers")
    @classmethod
    def _viewers(cls, viewers: list[str]) -> list[str]:
        return _principals(viewers)

    def team(self, name: str) -> Optional[TeamConfig]:
        return next((t for t in self.teams if t.name == name), None)


def cohort_of_groups(scheduling: SchedulingConfig, groups: dict[str, int]) -> dict[str, str]:
    """Node group -> the cohort its shared capacity belongs to; ``groups`` maps each accelerated
    group to the nodes it owns. Raises ConfigValueError (paths relative to ``scheduling``) when a
    guarantee names no group, the guarantees exceed what a group owns, or a group's cohort is unclear."""
    cohorts: dict[str, str] = {}
    guaranteed: dict[str, int] = dict.fromkeys(groups, 0)
    for index, team in enumerate(scheduling.teams):
        for group, nodes in team.guaranteed_nodes.items():
            path = ("teams", index, "guaranteedNodes", group)
            if group not in groups:
                raise ConfigValueError(f"team '{team.name}' is guaranteed nodes of '{group}', which is no node group "
                                       f"(groups: {', '.join(groups) or 'none'}).",
                                       fix="name one of the stack's nodeGroups.", path=path, value=nodes)
            if nodes < 0:
                raise ConfigValueError("a guarantee is a number of nodes, 0 or more.", fix="use 0 or more.",
                                       path=path, value=nodes)
            if cohorts.setdefault(group, team.cohort) != team.cohort:
                raise ConfigValueError(
                    f"teams of cohorts '{cohorts[group]}' and '{team.cohort}' both hold guarantees on '{group}'; "
                    "a group's spare capacity is lent within one cohort.",
                    fix="put the teams sharing the group in one cohort.", path=("teams", index, "cohort"),
                    value=team.cohort)
            guaranteed[group] += nodes
    for group, owned in groups.items():
        if guaranteed[group] > owned:
            raise ConfigValueError(
                f"the teams are guaranteed {guaranteed[group]} nodes of '{group}', which owns {owned} "
                "(its maxSize, within its reservation).",
                fix=f"lower the guarantees on '{group}' to {owned} nodes in all, or grow the group.",
                path=("teams",), value=guaranteed[group])
    only = {t.cohort for t in scheduling.teams}
    for group in groups:
        if group not in cohorts:
            if len(only) != 1:
                raise ConfigValueError(
                    f"no team names node group '{group}', and the teams are in several cohorts "
                    f"({', '.join(sorted(only))}): which one shares it is unclear.",
                    fix=f"give a team of the cohort that shares it guaranteedNodes: {{{group}: 0}} (or more).",
                    path=("teams",), value=sorted(only))
            cohorts[group] = next(iter(only))
    return cohorts
