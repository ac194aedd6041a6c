"""IAM roles for nodes and for pods (EKS Pod Identity)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Optional

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


def pod_identity_role(
    name: str, *, cluster_name: pulumi.Input[str], namespace: str, service_account: str,
    parent: pulumi.Resource, depends_on: list[pulumi.Resource], policy: Optional[pulumi.Input[str]] = None,
    managed_policy_arns: Sequence[str] = (),
) -> aws.eks.PodIdentityAssociation:
    """A role only ``namespace/service_account`` pods of this cluster receive, through EKS Pod Identity:
    an inline ``policy`` and/or AWS managed policies."""
    child = pulumi.ResourceOptions(parent=parent)
    role = aws.iam.Role(autonamed(name, IAM_ROLE_MAX),
                        assume_role_policy=_trust("pods.eks.amazonaws.com", ["sts:AssumeRole", "sts:TagSession"]),
                        description=f"Pod Identity for {namespace}/{service_account}", opts=child)
    if policy is not None:
        aws.iam.RolePolicy(name, role=role.id, policy=policy, opts=child)
    for arn in managed_policy_arns:
        aws.iam.RolePolicyAttachment(f"{name}-{arn.rsplit('/', 1)[1]}", role=role.name, policy_arn=arn, opts=child)
    return aws.eks.PodIdentityAssociation(
        name, cluster_name=cluster_name, namespace=namespace, service_account=service_account, role_arn=role.arn,
        opts=pulumi.ResourceOptions(parent=parent, depends_on=depends_on))
