"""IAM roles for nodes and for pods (EKS Pod Identity)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Optional

import pulumi
import pulumi_aws as aws

from ..catalog.managed_policies import ECR_PULL_ONLY, EKS_CNI, EKS_WORKER_NODE, SSM_MANAGED_INSTANCE
from ..config.resource_names import IAM_ROLE_MAX, autonamed

# What every EKS node needs: join the cluster, pull images (pull only: catalog.managed_policies),
# let the VPC CNI manage ENIs (attached to the node role, the CNI's documented default), and SSM
# for shell access without SSH keys.
NODE_POLICIES = (EKS_WORKER_NODE, ECR_PULL_ONLY, EKS_CNI, SSM_MANAGED_INSTANCE)


def _trust(service: str, actions: list[str]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": service}, "Action": actions}]})


def node_role(name: str, parent: pulumi.Resource) -> aws.iam.Role:
    child = pulumi.ResourceOptions(parent=parent)
    # Pulumi names the role '<logical name>-<7 random>': the logical name is fitted to IAM's 64 characters.
    role = aws.iam.Role(autonamed(name, IAM_ROLE_MAX),
                        assume_role_policy=_trust("ec2.amazonaws.com", ["sts:AssumeRole"]),
                        description="EKS nodes", opts=child)
    for policy_arn in NODE_POLICIES:
        aws.iam.RolePolicyAttachment(f"{name}-{policy_arn.rsplit('/', 1)[1]}", role=role.name,
                                     policy_arn=policy_arn, opts=child)
    return role


# The session tags EKS Pod Identity puts on every AssumeRole it makes for a pod (EKS user guide, pod-id-role.html,
# "Setting Conditions", and pod-id-abac.html, "Enable or disable session tags"; awsdocs/amazon-eks-user-guide
# latest/ug/manage-access/aws-access/pod-id-role.adoc @2edffcb1): the trust policy is conditioned on them.
CLUSTER_ARN_TAG = "aws:RequestTag/eks-cluster-arn"
NAMESPACE_TAG = "aws:RequestTag/kubernetes-namespace"
SERVICE_ACCOUNT_TAG = "aws:RequestTag/kubernetes-service-account"


def pod_identity_trust(cluster_arn: str, namespace: str, service_account: str) -> dict[str, Any]:
    """The trust policy of a Pod Identity role: the EKS Pod Identity service may assume it, and only for a pod of
    ``namespace/service_account`` on the cluster ``cluster_arn``.

    Without a condition any Pod Identity association in the account, on any cluster, may name the role and hand it
    to its pods: the association checks ``iam:PassRole`` on its creator, not who the role was made for. The
    conditions are the session tags EKS documents for exactly this ("to restrict which service accounts,
    namespaces, and clusters can use this role", pod-id-role.html); the cluster's ARN holds its account, region and
    name, so no other cluster, in this account or another, matches it.

    Not ``aws:SourceArn``/``aws:SourceAccount``: EKS documents those against the confused deputy for its cluster
    role (cross-service-confused-deputy-prevention.html), not for ``pods.eks.amazonaws.com``, and a condition on a
    key the service does not send fails every AssumeRole (a key absent from the request matches no value: IAM User
    Guide, reference_policies_elements_condition_operators.html), which would take every pod's
    credentials. The session tags are sent unless an association turns them off (``disableSessionTags``); trainstack
    makes every association these roles serve and never does, and a role given to an association that did would
    refuse it, which is the safe side."""
    return {"Version": "2012-10-17", "Statement": [{
        "Sid": "AllowEksAuthToAssumeRoleForPodIdentity", "Effect": "Allow",
        "Principal": {"Service": "pods.eks.amazonaws.com"}, "Action": ["sts:AssumeRole", "sts:TagSession"],
        "Condition": {"StringEquals": {CLUSTER_ARN_TAG: cluster_arn, NAMESPACE_TAG: namespace,
                                       SERVICE_ACCOUNT_TAG: service_account}}}]}


def _cluster_arn(cluster_name: pulumi.Input[str], parent: pulumi.Resource) -> pulumi.Output[str]:
    """The ARN of the cluster named ``cluster_name`` in the account and region of ``parent``'s AWS provider, as EKS
    writes it (``arn:<partition>:eks:<region>:<account>:cluster/<name>``; Service Authorization Reference, Amazon
    Elastic Kubernetes Service, resource type ``cluster``)."""
    invoke = pulumi.InvokeOutputOptions(parent=parent)
    return pulumi.Output.all(aws.get_partition_output(opts=invoke).partition, aws.get_region_output(opts=invoke).region,
                             aws.get_caller_identity_output(opts=invoke).account_id, cluster_name).apply(
        lambda parts: f"arn:{parts[0]}:eks:{parts[1]}:{parts[2]}:cluster/{parts[3]}")


def pod_identity_role(
    name: str, *, cluster_name: pulumi.Input[str], namespace: str, service_account: str,
    parent: pulumi.Resource, depends_on: list[pulumi.Resource], policy: Optional[pulumi.Input[str]] = None,
    managed_policy_arns: Sequence[str] = (),
) -> aws.eks.PodIdentityAssociation:
    """A role only ``namespace/service_account`` pods of this cluster receive, through EKS Pod Identity:
    an inline ``policy`` and/or AWS managed policies. Its trust policy says so (:func:`pod_identity_trust`)."""
    child = pulumi.ResourceOptions(parent=parent)
    trust = _cluster_arn(cluster_name, parent).apply(
        lambda arn: json.dumps(pod_identity_trust(arn, namespace, service_account)))
    role = aws.iam.Role(autonamed(name, IAM_ROLE_MAX), assume_role_policy=trust,
                        description=f"Pod Identity for {namespace}/{service_account}", opts=child)
    if policy is not None:
        aws.iam.RolePolicy(name, role=role.id, policy=policy, opts=child)
    for arn in managed_policy_arns:
        aws.iam.RolePolicyAttachment(f"{name}-{arn.rsplit('/', 1)[1]}", role=role.name, policy_arn=arn, opts=child)
    return aws.eks.PodIdentityAssociation(
        name, cluster_name=cluster_name, namespace=namespace, service_account=service_account, role_arn=role.arn,
        opts=pulumi.ResourceOptions(parent=parent, depends_on=depends_on))
