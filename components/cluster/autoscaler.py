"""The Cluster Autoscaler, from its official chart at a version pinned to the
Kubernetes minor version, with IAM through EKS Pod Identity.

It discovers the managed node groups' Auto Scaling groups by the tags EKS puts
on them; it may only resize groups tagged as owned by this cluster. It handles DRA
claims on both pinned versions: where the chart leaves that off (9.52.0 for Kubernetes
1.34), the flag and the read-only ``resource.k8s.io`` rules are supplied
(catalog/autoscaler_dra.py says why and where each version was read).
"""

from __future__ import annotations

from typing import Any, Optional

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from ..catalog import autoscaler_dra
from ..catalog.addons import CLUSTER_AUTOSCALER as CHARTS
from ..config.controller_resources import cluster_autoscaler_resources
from ..helm import helm_release
from .iam import pod_identity_role

NAMESPACE = "kube-system"
SERVICE_ACCOUNT = "cluster-autoscaler"


# The autoscaler README's recommended policy, each grant as narrow as IAM allows: what stays
# on "*" is listed here with the reason (tests check it against IAM's Service Authorization
# Reference and against the rendered policy).
_NO_RESOURCE_TYPES = "the Service Authorization Reference lists no resource types for it: only '*' matches"
_GENERATED_GROUPS = ("EKS creates one Auto Scaling group per managed node group with a generated name, unknown "
                     "before it exists; the aws:ResourceTag condition (a key of the autoScalingGroup resource "
                     "type) limits the grant to the groups tagged as owned by this cluster")
UNSCOPED_ACTIONS: dict[str, str] = {
    "autoscaling:DescribeAutoScalingGroups": _NO_RESOURCE_TYPES,
    "autoscaling:DescribeAutoScalingInstances": _NO_RESOURCE_TYPES,
    "autoscaling:DescribeLaunchConfigurations": _NO_RESOURCE_TYPES,
    "autoscaling:DescribeScalingActivities": _NO_RESOURCE_TYPES,
    "ec2:DescribeImages": _NO_RESOURCE_TYPES,
    "ec2:DescribeInstanceTypes": _NO_RESOURCE_TYPES,
    "ec2:DescribeLaunchTemplateVersions": _NO_RESOURCE_TYPES,
    "ec2:GetInstanceTypesFromInstanceRequirements": _NO_RESOURCE_TYPES,
    "autoscaling:SetDesiredCapacity": _GENERATED_GROUPS,
    "autoscaling:TerminateInstanceInAutoScalingGroup": _GENERATED_GROUPS,
}
_DISCOVER = [a for a, reason in UNSCOPED_ACTIONS.items() if reason == _NO_RESOURCE_TYPES]
_RESIZE = [a for a, reason in UNSCOPED_ACTIONS.items() if reason == _GENERATED_GROUPS]


def _statements(account: str, region: str, cluster_name: str) -> list[aws.iam.GetPolicyDocumentStatementArgsDict]:
    return [
        {"sid": "Discover", "actions": _DISCOVER, "resources": ["*"]},
        # eks:DescribeNodegroup takes the nodegroup resource type: this cluster's groups only.
        {"sid": "DescribeThisClustersNodegroups", "actions": ["eks:DescribeNodegroup"],
         "resources": [f"arn:aws:eks:{region}:{account}:nodegroup/{cluster_name}/*/*"]},
        {"sid": "ResizeThisClustersGroups", "actions": _RESIZE, "resources": ["*"],
         "conditions": [{"test": "StringEquals", "values": ["owned"],
                         "variable": f"aws:ResourceTag/k8s.io/cluster-autoscaler/{cluster_name}"}]},
    ]


def cluster_autoscaler(name: str, *, cluster_name: str, kubernetes_version: str, region: str,
                       system_node_selector: dict[str, str], provider: k8s.Provider, parent: pulumi.Resource,
                       depends_on: list[pulumi.Resource],
                       resources: Optional[dict[str, Any]] = None) -> k8s.helm.v3.Release:
    """The autoscaler's release on the system nodes. ``resources``: its pod's, as the stack's size sets them
    (config/controller_resources.py, ``cluster_autoscaler_resources``); without them, a small stack's."""
    account = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=parent)).account_id
    policy = aws.iam.get_policy_document_output(
        statements=account.apply(lambda account_id: _statements(account_id, region, cluster_name)),
        opts=pulumi.InvokeOutputOptions(parent=parent))
    association = pod_identity_role(
        f"{name}-autoscaler", cluster_name=cluster_name, namespace=NAMESPACE, service_account=SERVICE_ACCOUNT,
        policy=policy.json, parent=parent, depends_on=depends_on)
    chart = CHARTS[kubernetes_version]
    # Pods on DRA groups claim devices; the autoscaler must simulate those claims to add or keep their nodes.
    dra_rules = autoscaler_dra.additional_rules(chart.version)
    return helm_release(
        f"{name}-autoscaler", chart, namespace=NAMESPACE, provider=provider, parent=parent,
        depends_on=[association, *depends_on],
        values={
            "cloudProvider": "aws",
            "awsRegion": region,
            "autoDiscovery": {"clusterName": cluster_name},
            "rbac": {"serviceAccount": {"create": True, "name": SERVICE_ACCOUNT},
                     **({"additionalRules": dra_rules} if dra_rules else {})},
            "nodeSelector": system_node_selector,
            "extraArgs": {
                "balance-similar-node-groups": True,
                # Training pods often use emptyDir scratch space; it must not pin idle nodes.
                "skip-nodes-with-local-storage": False,
                "expander": "least-waste",
                **autoscaler_dra.extra_args(chart.version),
            },
            "resources": resources if resources is not None else cluster_autoscaler_resources(None),
            # A minor whose release no chart ships runs the newest chart with that release's image
            # (catalog/addons.py CLUSTER_AUTOSCALER says what was read for it).
            **({"image": {"tag": chart.image_tag}} if chart.image_tag else {}),
        })
