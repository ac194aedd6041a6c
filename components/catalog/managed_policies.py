"""The AWS managed IAM policies trainstack attaches, each with the AWS page that recommends it for
that role, and those AWS has superseded (with their replacement). One home: the components attach
these constants, and ``tests/catalog/test_managed_policies.py`` holds every attachment in every
planned stack to this table.

ECR: the EKS node role (managed node groups, system nodes, Karpenter's nodes) pulls images and
nothing else, so it gets ``AmazonEC2ContainerRegistryPullOnly``, which AWS now names for node roles
in place of ``AmazonEC2ContainerRegistryReadOnly`` (that one also lists and describes every
repository and image of the account): EKS User Guide, "Amazon EKS node IAM role",
https://docs.aws.amazon.com/eks/latest/userguide/create-node-role.html ; Karpenter's own node role
(getting-started ``cloudformation.yaml``, KarpenterNodeRole ManagedPolicyArns,
https://karpenter.sh/docs/getting-started/getting-started-with-karpenter/); the policy itself:
https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AmazonEC2ContainerRegistryPullOnly.html .
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

_ARN = "arn:aws:iam::aws:policy/"

EKS_WORKER_NODE = _ARN + "AmazonEKSWorkerNodePolicy"
ECR_PULL_ONLY = _ARN + "AmazonEC2ContainerRegistryPullOnly"
EKS_CNI = _ARN + "AmazonEKS_CNI_Policy"
SSM_MANAGED_INSTANCE = _ARN + "AmazonSSMManagedInstanceCore"
HYPERPOD_INSTANCE = _ARN + "AmazonSageMakerClusterInstanceRolePolicy"
HYPERPOD_TRAINING_OPERATOR = _ARN + "AmazonSageMakerHyperPodTrainingOperatorAccess"
CLOUDWATCH_AGENT = _ARN + "CloudWatchAgentServerPolicy"
EBS_CSI_DRIVER = _ARN + "service-role/AmazonEBSCSIDriverPolicy"

RECOMMENDED: Mapping[str, str] = MappingProxyType({
    EKS_WORKER_NODE: "https://docs.aws.amazon.com/eks/latest/userguide/create-node-role.html (node role)",
    ECR_PULL_ONLY: "https://docs.aws.amazon.com/eks/latest/userguide/create-node-role.html (node role: "
                   "image pulls only)",
    EKS_CNI: "https://docs.aws.amazon.com/eks/latest/userguide/cni-iam-role.html (the VPC CNI's role; on the "
             "node role, its documented default)",
    SSM_MANAGED_INSTANCE: "https://docs.aws.amazon.com/systems-manager/latest/userguide/setup-instance-"
                          "permissions.html (Session Manager on the nodes)",
    HYPERPOD_INSTANCE: "https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-prerequisites-iam.html "
                       "(HyperPod instance groups' execution role)",
    HYPERPOD_TRAINING_OPERATOR: "https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-eks-operator-install."
                                "html (the HyperPod training operator's Pod Identity role)",
    CLOUDWATCH_AGENT: "https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/install-CloudWatch-"
                      "Observability-EKS-addon.html (the add-on's agent role)",
    EBS_CSI_DRIVER: "https://docs.aws.amazon.com/eks/latest/userguide/ebs-csi.html (the driver's role)",
})
"""Each managed policy trainstack attaches, and where AWS recommends it for the role it is on."""

SUPERSEDED: Mapping[str, str] = MappingProxyType({
    _ARN + "AmazonEC2ContainerRegistryReadOnly": ECR_PULL_ONLY,
})
"""Managed policies AWS has replaced for trainstack's roles, and the replacement."""
