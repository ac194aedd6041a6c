"""The HyperPod execution role: what every cluster node runs as.

AWS's managed ``AmazonSageMakerClusterInstanceRolePolicy`` covers logs, metrics,
SSM sessions and reading ``sagemaker-*`` buckets. Nodes in a VPC also need to
manage their network interfaces; those grants are scoped to this VPC's subnets,
security groups and to network interfaces. Detaching an interface is checked
against the interface and the instance it leaves, so that grant names both; the
instances run in SageMaker's service account, not this one, so the instance ARN
leaves the account open. Image pulls from ECR are scoped to repositories in this
account and region. What stays on ``*`` is listed in ``UNSCOPED_ACTIONS`` with the
reason; tests check every statement against IAM's Service Authorization Reference.

With EKS orchestration the nodes are EKS nodes, and this role is their node role: the VPC
CNI's ipamd runs on them with it, assigning pod IPs as secondary addresses of the node's
interface, and the Pod Identity agent exchanges pods' tokens with it. So the role also gets
AWS's ``AmazonEKS_CNI_Policy`` (the CNI's documented policy, maintained by AWS with the
CNI; AWS's own HyperPod EKS template attaches it too: aws-samples/awsome-distributed-training
``1.architectures/7.sagemaker-hyperpod-eks/cfn-templates/nested-stacks/sagemaker-iam-role-stack.yaml``
@ 7217859f) and ``eks-auth:AssumeRoleForPodIdentity`` on its own cluster only (EKS user guide,
pod-id-agent-setup: the node role needs that action; the template grants it on "*").
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Optional

import pulumi
import pulumi_aws as aws

from ..catalog.managed_policies import EKS_CNI, HYPERPOD_INSTANCE
from ..config.resource_names import IAM_ROLE_MAX, autonamed

MANAGED_POLICY = HYPERPOD_INSTANCE
CNI_POLICY = EKS_CNI
POD_IDENTITY = "eks-auth:AssumeRoleForPodIdentity"

_NO_RESOURCE_TYPES = "the Service Authorization Reference lists no resource types for it: only '*' matches"
# Actions this role is granted on "*", each with the reason nothing narrower works.
UNSCOPED_ACTIONS: dict[str, str] = {
    "ec2:DescribeNetworkInterfaces": _NO_RESOURCE_TYPES,
    "ec2:DescribeVpcs": _NO_RESOURCE_TYPES,
    "ec2:DescribeDhcpOptions": _NO_RESOURCE_TYPES,
    "ec2:DescribeSubnets": _NO_RESOURCE_TYPES,
    "ec2:DescribeSecurityGroups": _NO_RESOURCE_TYPES,
    "ecr:GetAuthorizationToken": _NO_RESOURCE_TYPES + " (the token is for the whole registry)",
}
DESCRIBE = [a for a in UNSCOPED_ACTIONS if a.startswith("ec2:")]
ENI = ["ec2:DeleteNetworkInterface", "ec2:CreateNetworkInterfacePermission", "ec2:DeleteNetworkInterfacePermission"]
ECR_PULL = ["ecr:BatchCheckLayerAvailability", "ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer"]


def policy_document(*, region: str, account: str, subnet_ids: Sequence[str], security_group_ids: Sequence[str],
                    eks_cluster_arn: Optional[str] = None) -> str:
    """``eks_cluster_arn``: the orchestrating EKS cluster, whose Pod Identity the nodes serve."""
    ec2 = f"arn:aws:ec2:{region}:{account}"
    interfaces = f"{ec2}:network-interface/*"
    statements = [
        {"Sid": "DescribeNetwork", "Effect": "Allow", "Action": DESCRIBE, "Resource": "*"},
        {"Sid": "CreateInterfacesInThisNetwork", "Effect": "Allow", "Action": "ec2:CreateNetworkInterface",
         "Resource": [interfaces, *(f"{ec2}:subnet/{s}" for s in subnet_ids),
                      *(f"{ec2}:security-group/{g}" for g in security_group_ids)]},
        {"Sid": "ManageInterfaces", "Effect": "Allow", "Action": ENI, "Resource": interfaces},
        # Checked against the interface and the instance it is attached to (both required
        # resource types); HyperPod instances live in SageMaker's account, hence account "*".
        {"Sid": "DetachInterfaces", "Effect": "Allow", "Action": "ec2:DetachNetworkInterface",
         "Resource": [interfaces, f"arn:aws:ec2:{region}:*:instance/*"]},
        {"Sid": "TagNewInterfaces", "Effect": "Allow", "Action": "ec2:CreateTags", "Resource": interfaces,
         "Condition": {"StringEquals": {"ec2:CreateAction": "CreateNetworkInterface"}}},
        {"Sid": "EcrToken", "Effect": "Allow", "Action": "ecr:GetAuthorizationToken", "Resource": "*"},
        {"Sid": "EcrPull", "Effect": "Allow", "Action": ECR_PULL,
         "Resource": f"arn:aws:ecr:{region}:{account}:repository/*"},
    ]
    if eks_cluster_arn is not None:
        statements.append({"Sid": "PodIdentity", "Effect": "Allow", "Action": POD_IDENTITY,
                           "Resource": eks_cluster_arn})
    return json.dumps({"Version": "2012-10-17", "Statement": statements}, indent=2)


def execution_role(name: str, *, region: str, subnet_ids: Sequence[pulumi.Input[str]],
                   security_group_ids: Sequence[pulumi.Input[str]], parent: pulumi.Resource,
                   eks_cluster_arn: Optional[pulumi.Input[str]] = None) -> aws.iam.Role:
    """``eks_cluster_arn``: with EKS orchestration, the cluster the nodes join (VPC CNI and Pod Identity grants)."""
    child = pulumi.ResourceOptions(parent=parent)
    role = aws.iam.Role(autonamed(name, IAM_ROLE_MAX), description="SageMaker HyperPod cluster nodes",
                        assume_role_policy=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "sagemaker.amazonaws.com"},
                                                "Action": "sts:AssumeRole"}]}), opts=child)
    aws.iam.RolePolicyAttachment(f"{name}-managed", role=role.name, policy_arn=MANAGED_POLICY, opts=child)
    if eks_cluster_arn is not None:
        aws.iam.RolePolicyAttachment(f"{name}-vpc-cni", role=role.name, policy_arn=CNI_POLICY, opts=child)
    account = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=parent)).account_id
    policy = pulumi.Output.all(account, pulumi.Output.all(*subnet_ids), pulumi.Output.all(*security_group_ids),
                               eks_cluster_arn).apply(
        lambda values: policy_document(region=region, account=values[0], subnet_ids=values[1],
                                       security_group_ids=values[2], eks_cluster_arn=values[3]))
    aws.iam.RolePolicy(f"{name}-network", role=role.id, policy=policy, opts=child)
    return role
