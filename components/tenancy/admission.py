"""The API server's own refusal of a team member's job that names no Kueue queue.

Kueue manages every job in a team namespace, with or without a queue name (``addons/kueue.py``,
``manageJobsWithoutQueueName`` and ``managedJobsNamespaceSelector``): its webhook suspends a job it manages until a
queue admits it. That holds only while Kueue's webhook and controller run. This ValidatingAdmissionPolicy is the
backstop the API server enforces on its own: in a namespace labelled with a team, a request from a member of a team
(the groups ``trainstack:team:<team>``, ``model.TEAM_GROUP_PREFIX``) to create or update a job kind Kueue queues is
refused unless the job carries ``kueue.x-k8s.io/queue-name``. A job that names a queue its namespace has no
LocalQueue for is still Kueue's: it stays suspended (``pkg/controller/jobframework/utils.go``,
``WorkloadShouldBeSuspended``, at Kueue v0.19.2).

Why a policy and not an accelerator quota in the team's ResourceQuota: a quota is enforced at the pods, on what a
team holds at once, so it would have to allow the most the team can reach by borrowing from its cohort, and an
unlabelled job could then still take, outside Kueue, the nodes another team's admitted gang is waiting for. A quota
of the team's guarantee alone would forbid the borrowing Kueue allows. The label is what puts a job in front of the
quotas Kueue keeps, so the label is what the API server requires.

Only members' requests are matched (``matchConditions``): the controllers create unlabelled jobs of a job that is
already queued (JobSet's Jobs under a TrainJob, the MPI operator's launcher Job), and Kueue finds the queued
ancestor of those (``FindAncestorJobManagedByKueue``, ``pkg/controller/jobframework/reconciler.go`` at v0.19.2).
Platform admins keep cluster-admin, this policy included.

API: ``admissionregistration.k8s.io/v1``, GA since Kubernetes 1.30 (Kubernetes docs, "Validating Admission Policy",
https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/), older than every minor
EKS offers (catalog/eks_versions.json).
"""

from __future__ import annotations

from typing import Any

from .model import TEAM_GROUP_PREFIX, TEAM_LABEL

POLICY = "trainstack-team-jobs-queued"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
API_VERSION = "admissionregistration.k8s.io/v1"

# (API group, resources) a member may create (rbac.JOB_KINDS) whose pods Kueue admits: its integrations'
# frameworks (addons/kueue.py FRAMEWORKS). tests/tenancy/test_unqueued_jobs.py holds every member kind to one of
# these two lists.
QUEUED_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("batch", ("jobs",)),
    ("kubeflow.org", ("pytorchjobs", "mpijobs")),
    ("trainer.kubeflow.org", ("trainjobs",)),
)
NOT_WORKLOADS: dict[tuple[str, str], str] = {
    ("trainer.kubeflow.org", "trainingruntimes"): "a template a TrainJob names; it runs nothing by itself",
    ("resource.k8s.io", "resourceclaimtemplates"): "the claims a queued job's pods make; no pod of its own",
    ("resource.nvidia.com", "computedomains"): "the IMEX domain a queued TrainJob spans; no pod a member sets",
}
"""Kinds a member may create that run no pod of their own, each with the reason."""

MEMBER = f"request.userInfo.groups.exists(g, g.startsWith('{TEAM_GROUP_PREFIX}'))"
HAS_QUEUE = (f"has(object.metadata.labels) && '{QUEUE_LABEL}' in object.metadata.labels"
             f" && object.metadata.labels['{QUEUE_LABEL}'] != ''")
# The message names the key, the namespace and the fix; a team's LocalQueue is named as the team
# (addons/kueue.py queue_name), which is the namespace's team label.
MESSAGE = (f"'a ' + object.kind + ' in team namespace ' + request.namespace + ' must name its team\\'s Kueue queue: "
           f"set the label {QUEUE_LABEL}: ' + namespaceObject.metadata.labels['{TEAM_LABEL}'] + ' (trainstack "
           f"launch sets it); a job without one would run outside every quota'")


def team_namespaces() -> dict[str, Any]:
    """Every namespace that carries a team's label (``isolation.namespace_labels``), and no other."""
    return {"matchExpressions": [{"key": TEAM_LABEL, "operator": "Exists"}]}


def objects() -> list[dict[str, Any]]:
    """The cluster's ValidatingAdmissionPolicy and its Binding (Deny): one for every team."""
    rules = [{"apiGroups": [group], "apiVersions": ["*"], "operations": ["CREATE", "UPDATE"],
              "resources": list(resources)} for group, resources in QUEUED_KINDS]
    policy = {"apiVersion": API_VERSION, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": POLICY},
              "spec": {"failurePolicy": "Fail",
                       "matchConstraints": {"namespaceSelector": team_namespaces(), "resourceRules": rules},
                       "matchConditions": [{"name": "team-member", "expression": MEMBER}],
                       "validations": [{"expression": HAS_QUEUE, "messageExpression": MESSAGE,
                                        "reason": "Forbidden"}]}}
    binding = {"apiVersion": API_VERSION, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": POLICY},
               "spec": {"policyName": POLICY, "validationActions": ["Deny"]}}
    return [policy, binding]
