"""Each team of a stack as a tenant: who it is, where it runs, what it may read and write, and how much.

Everything here follows from the stack's config; nothing is typed twice. The components render it
(``teams.py``, ``storage/``), the plan shows it as the access table, the outputs contract hands the service
account to the launchers, and the tests check the rendered objects against the real API server and IAM.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config import StackConfig, TeamConfig, cohort_of_groups

TEAM_GROUP_PREFIX = "trainstack:team:"
"""A team's Kubernetes group is this prefix and its name. EKS refuses groups that start with ``system:``,
``eks:``, ``aws:``, ``amazon:`` or ``iam:`` (EKS API reference, CreateAccessEntry, ``kubernetesGroups``)."""
TEAM_LABEL = "trainstack.io/team"
"""Every team namespace carries this label, its value the team: what Kueue's managed namespaces and the queue
label's admission policy select (``addons/kueue.py``, ``admission.py``)."""
VIEWER_GROUP = "trainstack:queue-viewers"
"""The group of ``scheduling.viewers``: every team's queue status, read only."""
CHECKPOINT_PREFIX = "teams/{team}/"
"""A team's checkpoints in the checkpoint bucket: the prefix its Pod Identity role may write."""
FSX_DIRECTORY = "teams/{team}"
"""A team's directory on the FSx file system, which its claim mounts as its root."""

# The Pod Security Admission level of every team namespace, and the pod field that decides it. A launcher's MPI
# workers run sshd as root (catalog/mpi_ssh.py ROOT, runAsUser: 0), and the NGC and Neuron images the torch
# launchers run start as root; `restricted` requires runAsNonRoot, a RuntimeDefault seccomp profile,
# allowPrivilegeEscalation: false and every capability dropped (Kubernetes docs, Pod Security Standards,
# "Restricted"). Nothing a launcher renders needs more than `baseline`: EFA interfaces, GPUs and Neuron devices
# come from device plugins or DRA claims (no hostPath, no privileged container), huge pages are a resource,
# /dev/shm is an emptyDir in memory. tests/rehearsal/test_tenancy.py asks the real API server for every
# launcher's pods in every multi-team stack.
POD_SECURITY_LEVEL = "baseline"
POD_SECURITY_WARN = "restricted"
"""Warned and audited, not enforced: a member sees what `restricted` would refuse in their pods."""

# What a namespace holds beyond its nodes' own pods, on top of the quota derived from the nodes: each job adds at
# most one pod that takes no whole node (an MPIJob's launcher: 1 CPU, 2 GiB), and a member runs a few small
# pods of their own (a debug shell, a notebook).
EXTRA_PODS = 10
EXTRA_CPU = 10
EXTRA_MEMORY_GIB = 20
EXTRA_CLAIMS = 10
# A pod without requests gets these, so that the quota can count it (a ResourceQuota on requests.cpu refuses a
# pod that names none: Kubernetes docs, Resource Quotas, "Compute Resource Quota").
DEFAULT_REQUEST = {"cpu": "250m", "memory": "512Mi"}


@dataclass(frozen=True)
class Tenant:
    """One team of a stack, as a tenant of its cluster."""

    team: str
    """The team's name (``scheduling.teams[].name``)."""
    namespace: str
    """The one namespace its jobs run in, where its LocalQueue lives."""
    members: tuple[str, ...]
    """IAM role or user ARNs that reach the namespace through EKS access entries."""
    group: str
    """The Kubernetes group its members are put in, bound to the team's Role."""
    service_account: str
    """The ServiceAccount every job the launchers render for the team runs as; its Pod Identity role holds the
    team's data."""
    checkpoint_prefix: str
    """Where in the checkpoint bucket the team may write."""
    datasets: tuple[str, ...]
    """The datasets (``datasets[].name``) the team may read."""
    fsx_directory: str | None
    """The team's directory on FSx, its claim's root; None without FSx."""
    reach: dict[str, int]
    """Node group -> the most nodes of it the team's queue can be given (guarantee, plus borrowing)."""
    quota: dict[str, str]
    """The namespace's ResourceQuota ``hard``: CPU, memory, pods and claims, not the accelerators."""
    pod_security: str = POD_SECURITY_LEVEL
    """The namespace's enforced Pod Security level."""


def team_group(team: str) -> str:
    return f"{TEAM_GROUP_PREFIX}{team}"


def service_account(team: str) -> str:
    return f"{team}-jobs"


def tenants(config: StackConfig) -> list[Tenant]:
    """The stack's teams as tenants, in the order of ``scheduling.teams``; none without scheduling."""
    scheduling = config.scheduling
    if scheduling is None:
        return []
    cohorts = cohort_of_groups(scheduling, {g.name: g.owned_nodes for g in config.node_groups})
    result = []
    for team in scheduling.teams:
        reach = {g.name: (g.owned_nodes if team.borrowing else team.guaranteed_nodes.get(g.name, 0))
                 for g in config.node_groups if cohorts[g.name] == team.cohort}
        datasets = tuple(d.name for d in config.datasets if d.teams is None or team.name in d.teams)
        claims = len(datasets) + (1 if config.fsx is not None or _existing_fsx(config) else 0)
        result.append(Tenant(
            team=team.name, namespace=team.namespace, members=tuple(team.members), group=team_group(team.name),
            service_account=service_account(team.name), checkpoint_prefix=CHECKPOINT_PREFIX.format(team=team.name),
            datasets=datasets,
            fsx_directory=FSX_DIRECTORY.format(team=team.name) if config.fsx is not None or _existing_fsx(config)
            else None,
            reach=reach, quota=_quota(config, team, reach, claims)))
    return result


def _existing_fsx(config: StackConfig) -> bool:
    return config.existing_cluster is not None and config.existing_cluster.file_system is not None


def _quota(config: StackConfig, team: TeamConfig, reach: dict[str, int], claims: int) -> dict[str, str]:
    """CPU and memory of every node the team can reach, and room for the pods and claims that take no node."""
    groups = {g.name: g for g in config.node_groups}
    cpu = sum(nodes * (groups[name].instance.vcpus or 0) for name, nodes in reach.items()) + EXTRA_CPU
    memory = sum(nodes * (groups[name].instance.memory_gib or 0) for name, nodes in reach.items()) + EXTRA_MEMORY_GIB
    # One whole-node pod per node, and at most one more per job, so per node.
    pods = 2 * sum(reach.values()) + EXTRA_PODS
    given = team.quota
    return {
        "requests.cpu": str(given.cpu if given.cpu is not None else cpu),
        "requests.memory": f"{given.memory_gib if given.memory_gib is not None else memory}Gi",
        "pods": str(given.pods if given.pods is not None else pods),
        "persistentvolumeclaims": str(given.persistent_volume_claims
                                      if given.persistent_volume_claims is not None else claims + EXTRA_CLAIMS),
    }
