"""Every EKS Pod Identity role a stack makes trusts only the pods it was made for (issue 64, class 4).

EKS Pod Identity assumes a role for a pod with session tags naming the pod's cluster, namespace and service account
(EKS user guide, pod-id-role.html "Setting Conditions" and pod-id-abac.html). Without a condition on them, any Pod
Identity association in the account, on any cluster, may name a team's role and hand its data to other pods. The
roles are read from the offline plan of kueue-p5 (two teams, the Cluster Autoscaler, the EBS CSI driver), each
paired with the association that names it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from support import plan_records
from trainstack.cluster.iam import CLUSTER_ARN_TAG, NAMESPACE_TAG, SERVICE_ACCOUNT_TAG
from trainstack.plan import Plan, run_program
from trainstack.plan.fixtures import ACCOUNT_ID
from trainstack.policy.iam_conformance import document_findings
from trainstack.training_stack import TrainingStack

STACK = "kueue-p5"
ASSOCIATION = "aws:eks/podIdentityAssociation:PodIdentityAssociation"
ROLE = "aws:iam/role:Role"


@pytest.fixture(scope="module")
def plan() -> Plan:
    config = {k.removeprefix("trainstack:"): v for k, v in plan_records.stack_config(STACK).items()}
    return run_program(lambda: TrainingStack(STACK, config), project="trainstack", stack=STACK)


def trusts(plan: Plan) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(association inputs, its role's trust policy) for every Pod Identity association of the plan."""
    roles = {r.outputs["arn"]: json.loads(r.inputs["assumeRolePolicy"]) for r in plan.resources if r.type == ROLE}
    return [(r.inputs, roles[r.inputs["roleArn"]]) for r in plan.resources if r.type == ASSOCIATION]


def test_each_pod_identity_role_trusts_only_its_clusters_pods_of_its_namespace_and_service_account(plan):
    pairs = trusts(plan)
    namespaces = {association["namespace"] for association, _ in pairs}
    assert {"llm", "vision", "kube-system"} <= namespaces  # the teams' roles, and the controllers' (autoscaler)
    region = plan_records.stack_config(STACK)["trainstack:region"]
    for association, trust in pairs:
        cluster_arn = f"arn:aws:eks:{region}:{ACCOUNT_ID}:cluster/{association['clusterName']}"
        [statement] = trust["Statement"]
        assert statement["Principal"] == {"Service": "pods.eks.amazonaws.com"}
        assert statement["Action"] == ["sts:AssumeRole", "sts:TagSession"]
        assert statement["Condition"] == {"StringEquals": {
            CLUSTER_ARN_TAG: cluster_arn, NAMESPACE_TAG: association["namespace"],
            SERVICE_ACCOUNT_TAG: association["serviceAccount"]}}, association
        # The conditions name the tags as EKS documents them (pod-id-role.html), and pass the conformance check.
        assert {CLUSTER_ARN_TAG, NAMESPACE_TAG, SERVICE_ACCOUNT_TAG} == {
            "aws:RequestTag/eks-cluster-arn", "aws:RequestTag/kubernetes-namespace",
            "aws:RequestTag/kubernetes-service-account"}
        assert document_findings(trust, trust=True) == []


def test_no_two_teams_roles_trust_the_same_pods(plan):
    conditions = [json.dumps(trust["Statement"][0]["Condition"], sort_keys=True) for _, trust in trusts(plan)]
    assert len(conditions) == len(set(conditions))
