"""The Cluster Autoscaler, from its official chart at a version pinned to the
Kubernetes minor version, with IAM through EKS Pod Identity.

It discovers the managed node groups' Auto Scaling groups by the tags EKS puts
on them; it may only resize groups tagged as owned by this cluster.
"""

from __future__ import annotations

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from ..helm import Chart, helm_release
from .iam import pod_identity_role

NAMESPACE = "kube-system"
SERVICE_ACCOUNT = "cluster-autoscaler"

# The autoscaler's minor version must match the cluster's (kubernetes/autoscaler
# tags cluster-autoscaler-chart-9.59.0 and -9.52.0, read 2026-11).
CHARTS = {
    "1.35": Chart("cluster-autoscaler", "9.59.0", "https://kubernetes.github.io/autoscaler",
                  "kubernetes/autoscaler cluster-autoscaler-chart-9.59.0 (appVersion 1.35.0)"),
    "1.34": Chart("cluster-autoscaler", "9.52.0", "https://kubernetes.github.io/autoscaler",
                  "kubernetes/autoscaler cluster-autoscaler-chart-9.52.0 (appVersion 1.34.1)"),
}

# The README's recommended policy; the two write actions are limited to this cluster's groups.
_DESCRIBE = [
    "autoscaling:DescribeAutoScalingGroups", "autoscaling:DescribeAutoScalingInstances",
    "autoscaling:DescribeLaunchConfigurations", "autoscaling:DescribeScalingActivities",
    "ec2:DescribeImages", "ec2:DescribeInstanceTypes", "ec2:DescribeLaunchTemplateVersions",
    "ec2:GetInstanceTypesFromInstanceRequirements", "eks:DescribeNodegroup",
]
_RESIZE = ["autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"]


def cluster_autoscaler(name: str, *, cluster_name: str, kubernetes_version: str, region: str,
                       system_node_selector: dict[str, str], provider: k8s.Provider, parent: pulumi.Resource,
                       depends_on: list[pulumi.Resource]) -> k8s.helm.v3.Release:
    policy = aws.iam.get_policy_document_output(statements=[
        # Describe calls do not support resource-level permissions.
        {"sid": "Discover", "actions": _DESCRIBE, "resources": ["*"]},
        {"sid": "ResizeThisClustersGroups", "actions": _RESIZE, "resources": ["*"],
         "conditions": [{"test": "StringEquals",
                         "variable": f"aws:ResourceTag/k8s.io/cluster-autoscaler/{cluster_name}",
                         "values": ["owned"]}]},
    ], opts=pulumi.InvokeOutputOptions(parent=parent))
    association = pod_identity_role(
        f"{name}-autoscaler", cluster_name=cluster_name, namespace=NAMESPACE, service_account=SERVICE_ACCOUNT,
        policy=policy.json, parent=parent, depends_on=depends_on)
    return helm_release(
        f"{name}-autoscaler"[:53], CHARTS[kubernetes_version], namespace=NAMESPACE, provider=provider, parent=parent,
        depends_on=[association, *depends_on],
        values={
            "cloudProvider": "aws",
            "awsRegion": region,
            "autoDiscovery": {"clusterName": cluster_name},
            "rbac": {"serviceAccount": {"create": True, "name": SERVICE_ACCOUNT}},
            "nodeSelector": system_node_selector,
            "extraArgs": {
                "balance-similar-node-groups": True,
                # Training pods often use emptyDir scratch space; it must not pin idle nodes.
                "skip-nodes-with-local-storage": False,
                "expander": "least-waste",
            },
            "resources": {"requests": {"cpu": "100m", "memory": "300Mi"}},
        })
