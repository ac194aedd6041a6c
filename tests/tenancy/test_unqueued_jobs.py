"""No team member's job runs around Kueue (issue 64, class 3), read from the plan of every shipped stack with teams:

* Kueue manages every job in a team namespace, queue name or not (``manageJobsWithoutQueueName`` with
  ``managedJobsNamespaceSelector`` on the team label, Kueue v0.19.2 ``apis/config/v1beta2/configuration_types.go``),
  and no platform namespace;
* the API server's own ValidatingAdmissionPolicy, bound with Deny, refuses a member's job that names no queue, for
  every job kind a member may create that runs pods.

The real API server's answer to a member's unlabelled job is tests/engines/test_unqueued_jobs_refused.py."""

from __future__ import annotations

import pytest
import yaml
from support import plan_records
from support.rendered_jobs import SHIPPED_STACKS, planned_record
from trainstack.addons.kueue import FRAMEWORKS
from trainstack.plan import Plan
from trainstack.rehearsal.stack_objects import stack_objects
from trainstack.tenancy import admission, rbac
from trainstack.tenancy.flows import selects
from trainstack.tenancy.model import TEAM_GROUP_PREFIX

TEAM_STACKS = tuple(s for s in SHIPPED_STACKS if "trainstack:scheduling" in plan_records.stack_config(s))
PLATFORM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease", "kueue-system",
                       "trainstack-system")


def test_the_shipped_stacks_with_teams_are_there_to_check() -> None:
    assert {"kueue-p5", "byo-p5", "frontier-p5"} <= set(TEAM_STACKS)


def _objects(stack: str) -> list[dict]:
    return stack_objects(Plan.from_dict(planned_record(stack))).apply


def _kueue_configuration(stack: str) -> dict:
    release = next(r for r in planned_record(stack)["resources"]
                   if r["type"] == "kubernetes:helm.sh/v3:Release" and r["name"].endswith("-kueue"))
    return yaml.safe_load(release["inputs"]["values"]["managerConfig"]["controllerManagerConfigYaml"])


def _namespace_labels(stack: str) -> dict[str, dict[str, str]]:
    """Each namespace the plan makes -> its labels, with the name label the API server adds to every namespace."""
    return {o["metadata"]["name"]: {**(o["metadata"].get("labels") or {}),
                                    "kubernetes.io/metadata.name": o["metadata"]["name"]}
            for o in _objects(stack) if o["kind"] == "Namespace"}


@pytest.mark.parametrize("stack", TEAM_STACKS)
def test_kueue_manages_every_job_in_each_team_namespace_and_none_in_the_platforms(stack: str) -> None:
    configuration = _kueue_configuration(stack)
    assert configuration["manageJobsWithoutQueueName"] is True
    selector = configuration["managedJobsNamespaceSelector"]
    config = plan_records.stack_config(stack)["trainstack:scheduling"]
    labels = _namespace_labels(stack)
    teams = {team["namespace"] for team in config["teams"]}
    assert teams <= set(labels), "every team namespace is made by the stack, with its labels"
    assert {ns for ns in teams if selects(selector, labels[ns])} == teams
    for namespace in PLATFORM_NAMESPACES:
        assert not selects(selector, {"kubernetes.io/metadata.name": namespace}), namespace
    assert not [ns for ns, given in labels.items() if ns not in teams and selects(selector, given)]


@pytest.mark.parametrize("stack", TEAM_STACKS)
def test_the_api_server_refuses_a_members_job_without_a_queue_in_every_team_namespace(stack: str) -> None:
    policies = {o["kind"]: o for o in _objects(stack) if o["kind"].startswith("ValidatingAdmissionPolicy")}
    policy, binding = policies["ValidatingAdmissionPolicy"], policies["ValidatingAdmissionPolicyBinding"]
    assert binding["spec"] == {"policyName": policy["metadata"]["name"], "validationActions": ["Deny"]}
    spec = policy["spec"]
    assert spec["failurePolicy"] == "Fail"
    labels = _namespace_labels(stack)
    for team in plan_records.stack_config(stack)["trainstack:scheduling"]["teams"]:
        assert selects(spec["matchConstraints"]["namespaceSelector"], labels[team["namespace"]])
    for namespace in PLATFORM_NAMESPACES:
        assert not selects(spec["matchConstraints"]["namespaceSelector"], {"kubernetes.io/metadata.name": namespace})
    covered = {(group, resource) for rule in spec["matchConstraints"]["resourceRules"]
               for group in rule["apiGroups"] for resource in rule["resources"]
               if "CREATE" in rule["operations"]}
    assert covered == {(g, r) for g, resources in admission.QUEUED_KINDS for r in resources}
    assert TEAM_GROUP_PREFIX in spec["matchConditions"][0]["expression"]
    assert admission.QUEUE_LABEL in spec["validations"][0]["expression"]


def test_every_kind_a_member_may_create_is_queued_or_runs_no_pod_of_its_own() -> None:
    """A new launcher kind in the team's Role (rbac.JOB_KINDS) must be sorted here: a kind that runs pods goes
    through the policy (and Kueue's integrations), or it is a template, with the reason."""
    member = {(group, resource) for group, resources in rbac.JOB_KINDS for resource in resources}
    queued = {(group, resource) for group, resources in admission.QUEUED_KINDS for resource in resources}
    assert not queued & set(admission.NOT_WORKLOADS)
    assert member == queued | set(admission.NOT_WORKLOADS)


def test_every_queued_kind_is_one_of_kueues_integrations() -> None:
    """The policy sends a job to Kueue; Kueue must be managing its kind (a framework is ``group/kind``)."""
    for group, resources in admission.QUEUED_KINDS:
        for resource in resources:
            assert f"{group}/{resource.removesuffix('s')}" in FRAMEWORKS
