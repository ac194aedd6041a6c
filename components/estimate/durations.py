"""Typical creation times, in minutes, per resource type.

A planning model built from AWS documentation (EKS user guide @4d52b4d, create-cluster.adoc,
troubleshooting.adoc, fsx-csi.adoc; aws-samples/awsome-distributed-training @7217859 for HyperPod),
terraform-provider-aws' default timeouts, and observed provider logs (2023-2026): EKS control
plane about 10 minutes (AWS: "about 15"), accelerated managed node groups 5-10 (no
direct timing published; 8 taken), CPU node groups about 2, FSx for Lustre 6-10,
HyperPod 10-20 plus at least 45 minutes of deep health checks (DCGM level 4) when
they are on, managed add-ons and Helm releases about a minute.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..plan import ResourceRecord

MINUTES = {
    "aws:ec2/vpc:Vpc": 0.27,
    "aws:ec2/subnet:Subnet": 0.05,
    "aws:ec2/internetGateway:InternetGateway": 0.05,
    "aws:ec2/routeTable:RouteTable": 0.05,
    "aws:ec2/routeTableAssociation:RouteTableAssociation": 0.02,
    "aws:ec2/eip:Eip": 0.05,
    "aws:ec2/natGateway:NatGateway": 2.0,
    "aws:ec2/securityGroup:SecurityGroup": 0.05,
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": 0.02,
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": 0.02,
    "aws:ec2/launchTemplate:LaunchTemplate": 0.05,
    "aws:ec2/placementGroup:PlacementGroup": 0.05,
    "aws:iam/role:Role": 0.05,
    "aws:iam/rolePolicy:RolePolicy": 0.02,
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": 0.02,
    "aws:kms/key:Key": 0.35,
    "aws:kms/alias:Alias": 0.02,
    "eks:index:Cluster": 10.0,
    "aws:eks/addon:Addon": 1.0,
    "aws:eks/podIdentityAssociation:PodIdentityAssociation": 0.05,
    "aws:autoscaling/tag:Tag": 0.02,
    "aws:fsx/lustreFileSystem:LustreFileSystem": 8.0,
    "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation": 12.0,
    "aws:s3/bucket:Bucket": 0.05,
    "aws:ecr/repository:Repository": 0.05,
    "kubernetes:helm.sh/v3:Release": 1.5,
    "kubernetes:kustomize/v2:Directory": 1.0,
    "aws-native:sagemaker:Cluster": 15.0,
}
ACCELERATED_NODE_GROUP = 8.0
CPU_NODE_GROUP = 2.0
INTERFACE_ENDPOINT = 2.0
GATEWAY_ENDPOINT = 0.1
DEEP_HEALTH_CHECKS = 45.0
KUBERNETES_OBJECT = 0.1
OTHER = 0.05


def minutes(resource: ResourceRecord) -> float:
    """Creation time of one recorded resource; components take none of their own."""
    kind = resource.type
    if not resource.custom and not resource.remote:
        return 0.0
    if kind.startswith("pulumi:providers:"):
        return 0.0
    if kind == "aws:eks/nodeGroup:NodeGroup":
        ami = resource.inputs.get("amiType") or ""
        return ACCELERATED_NODE_GROUP if ("NVIDIA" in ami or "NEURON" in ami) else CPU_NODE_GROUP
    if kind == "aws:ec2/vpcEndpoint:VpcEndpoint":
        return INTERFACE_ENDPOINT if resource.inputs.get("vpcEndpointType") == "Interface" else GATEWAY_ENDPOINT
    if kind == "kubernetes:helm.sh/v3:Release" and resource.inputs.get("chart") == "kube-prometheus-stack":
        return 2.3
    if kind == "aws-native:sagemaker:Cluster":
        checks = any(g.get("onStartDeepHealthChecks") for g in resource.inputs.get("instanceGroups") or [])
        return MINUTES[kind] + (DEEP_HEALTH_CHECKS if checks else 0.0)
    if kind in MINUTES:
        return MINUTES[kind]
    if kind.startswith("kubernetes:"):
        return KUBERNETES_OBJECT
    return OTHER
