"""What a team's members may do, as Kubernetes RBAC: a Role in the team's namespace bound to the team's group.

EKS puts each member's IAM principal in the team's group through its access entry (``teams.py``); the API
server's RBAC authorizer then decides every request. Why groups and a rendered Role rather than EKS's access
policies scoped to namespaces: docs/adr/0016-teams-as-tenants.md.

A member creates, watches and deletes the job kinds the launchers render, with the objects a job on a DRA group
brings (its ResourceClaimTemplates, its own TrainingRuntime, a ComputeDomain across GB200 instances:
launch/claims.py); reads its pods, their logs and events; and sees its LocalQueue and Workloads. Nothing else:
no Secret, no ClusterQueue, ResourceFlavor or Cohort, no node, nothing in another namespace. Platform admins
keep cluster-admin (``eks.adminPrincipals``).
"""

from __future__ import annotations

from typing import Any

from .model import VIEWER_GROUP, Tenant

ROLE = "trainstack-team"
VIEWER_ROLE = "trainstack-queue-viewer"
MANAGE = ["create", "get", "list", "watch", "delete"]
READ = ["get", "list", "watch"]

# (API group, resources) a member manages in its namespace: every kind a launcher renders (launch/).
JOB_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("batch", ("jobs",)),
    ("kubeflow.org", ("pytorchjobs", "mpijobs")),
    ("trainer.kubeflow.org", ("trainjobs", "trainingruntimes")),
    ("resource.k8s.io", ("resourceclaimtemplates",)),
    ("resource.nvidia.com", ("computedomains",)),
)
# (API group, resources) a member reads in its namespace.
READABLE: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("", ("pods", "pods/log", "events", "services", "persistentvolumeclaims")),
    ("events.k8s.io", ("events",)),
    ("kueue.x-k8s.io", ("localqueues", "workloads")),
    ("resource.k8s.io", ("resourceclaims",)),
    ("jobset.x-k8s.io", ("jobsets",)),
)
# What a viewer reads across the cluster: the queues and what waits in them.
QUEUE_STATUS = ("clusterqueues", "localqueues", "workloads", "cohorts", "resourceflavors")


def _rules(kinds: tuple[tuple[str, tuple[str, ...]], ...], verbs: list[str]) -> list[dict[str, Any]]:
    return [{"apiGroups": [group], "resources": list(resources), "verbs": list(verbs)} for group, resources in kinds]


def team_objects(tenant: Tenant) -> list[dict[str, Any]]:
    """The team's Role and the RoleBinding that gives it to the team's group, in the team's namespace."""
    metadata = {"name": ROLE, "namespace": tenant.namespace, "labels": {"trainstack.io/team": tenant.team}}
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": metadata,
            "rules": _rules(JOB_KINDS, MANAGE) + _rules(READABLE, READ)}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": dict(metadata),
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": ROLE},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": tenant.group}]}
    return [role, binding]


def viewer_objects() -> list[dict[str, Any]]:
    """The cluster-wide queue viewer: a ClusterRole reading Kueue's queues and Workloads, bound to its group."""
    metadata = {"name": VIEWER_ROLE}
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": metadata,
            "rules": [{"apiGroups": ["kueue.x-k8s.io"], "resources": list(QUEUE_STATUS), "verbs": list(READ)}]}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": dict(metadata),
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": VIEWER_ROLE},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": VIEWER_GROUP}]}
    return [role, binding]
