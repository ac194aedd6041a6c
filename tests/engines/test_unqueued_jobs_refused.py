"""A team member's job that names no Kueue queue is refused by the real kube-apiserver (issue 64, class 3), with
Kueue not running at all: the backstop is the API server's own ValidatingAdmissionPolicy (tenancy/admission.py).

kueue-p5's team namespaces, Roles, RoleBindings and the policy with its binding are applied as its plan records
them; then every kind a member may create that runs pods (Job, PyTorchJob, MPIJob, TrainJob, each as a launcher
renders it) is sent as the team's member by impersonation, as EKS names the member's group, once with its queue
label and once without. What a controller creates (an unlabelled Job of a queued TrainJob's JobSet) is not a
member's, and is admitted."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from support.control_plane import ApiError, Cluster
from support.rendered_jobs import jobs_for, outputs_of, planned_record, variant_outputs
from trainstack.plan import Plan
from trainstack.rehearsal import engines
from trainstack.rehearsal.stack_objects import stack_objects
from trainstack.tenancy.admission import QUEUE_LABEL
from trainstack.tenancy.model import TEAM_GROUP_PREFIX, TEAM_LABEL

pytestmark = pytest.mark.engines(engines.KUBERNETES)

STACK, TEAM, NAMESPACE = "kueue-p5", "llm", "llm"
MEMBER = ("arn:aws:sts::123456789012:assumed-role/llm-researchers/rehearsal", (TEAM_GROUP_PREFIX + TEAM,))
APPLIED = ("Namespace", "Role", "RoleBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")


def _one_job_of_each_kind() -> dict[str, dict[str, Any]]:
    """A launcher's job of each kind, in the team's namespace, with its queue label: kueue-p5's (Job, TrainJob),
    its training-operator variant's (PyTorchJob) and trn1's MPIJob."""
    rendered = [*jobs_for(outputs_of(STACK)), *jobs_for(variant_outputs("kueue-v1")), *jobs_for(outputs_of("trn1"))]
    found: dict[str, dict[str, Any]] = {}
    for job in rendered:
        if isinstance(job.document, dict) and job.document["kind"] not in found:
            document = copy.deepcopy(job.document)
            document["metadata"]["namespace"] = NAMESPACE
            document["metadata"].setdefault("labels", {})[QUEUE_LABEL] = TEAM
            found[document["kind"]] = document
    return found


@pytest.fixture(scope="module")
def member(cluster: Cluster) -> Cluster:
    """The API server, asked as a member of kueue-p5's team llm, once the stack's policy is in force."""
    applied = [obj for obj in stack_objects(Plan.from_dict(planned_record(STACK))).apply if obj["kind"] in APPLIED]
    for obj in applied:
        cluster.apply(obj)
    as_member = cluster.as_user(*MEMBER)
    unlabelled = {"apiVersion": "batch/v1", "kind": "Job",
                  "metadata": {"generateName": "probe-", "namespace": NAMESPACE},
                  "spec": {"template": {"spec": {"restartPolicy": "Never",
                                                 "containers": [{"name": "main", "image": "busybox"}]}}}}

    def refused() -> bool:
        try:
            as_member.create(unlabelled, dry_run=True)
        except ApiError as error:
            return QUEUE_LABEL in str(error)
        return False

    # The server compiles a new policy and its binding before it enforces them. A plan without the policy is
    # not waited for: its members' unlabelled jobs are admitted, which the tests below then say.
    if any(obj["kind"] == "ValidatingAdmissionPolicyBinding" for obj in applied):
        cluster.wait_for("the queue label's admission policy to be in force", refused, timeout=60)
    return as_member


JOBS = _one_job_of_each_kind()


def test_every_kind_a_member_runs_pods_with_is_here() -> None:
    assert set(JOBS) == {"Job", "PyTorchJob", "MPIJob", "TrainJob"}


@pytest.mark.parametrize("kind", sorted(JOBS))
def test_a_members_job_without_a_queue_name_is_refused_by_the_api_server(member: Cluster, kind: str) -> None:
    job = copy.deepcopy(JOBS[kind])
    del job["metadata"]["labels"][QUEUE_LABEL]
    with pytest.raises(ApiError) as refused:
        member.create(job, dry_run=True)
    assert refused.value.status == 403
    words = str(refused.value)
    assert "ValidatingAdmissionPolicy 'trainstack-team-jobs-queued'" in words
    assert f"a {kind} in team namespace {NAMESPACE} must name its team's Kueue queue" in words
    assert f"set the label {QUEUE_LABEL}: {TEAM}" in words


@pytest.mark.parametrize("kind", sorted(JOBS))
def test_a_members_job_with_its_queue_name_is_admitted(member: Cluster, kind: str) -> None:
    admitted = member.create(JOBS[kind], dry_run=True)
    assert admitted["metadata"]["labels"][QUEUE_LABEL] == TEAM


@pytest.mark.parametrize("empty", ["", None])
def test_an_empty_queue_name_is_no_queue_name(member: Cluster, empty: str | None) -> None:
    job = copy.deepcopy(JOBS["Job"])
    if empty is None:
        del job["metadata"]["labels"]
    else:
        job["metadata"]["labels"][QUEUE_LABEL] = empty
    with pytest.raises(ApiError, match=QUEUE_LABEL):
        member.create(job, dry_run=True)


def test_an_unlabelled_job_from_anyone_but_a_member_is_admitted(member: Cluster, cluster: Cluster) -> None:
    """The controllers' Jobs (JobSet's under a TrainJob, the MPI operator's launcher) carry no queue label; Kueue
    finds their queued owner. Here the rehearsal's admin (system:masters) stands for them: RBAC lets it create."""
    job = copy.deepcopy(JOBS["Job"])
    del job["metadata"]["labels"][QUEUE_LABEL]
    assert cluster.create(job, dry_run=True)["kind"] == "Job"
    assert cluster.get(f"/api/v1/namespaces/{NAMESPACE}")["metadata"]["labels"][TEAM_LABEL] == TEAM
