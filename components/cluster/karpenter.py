"""The Karpenter controller, for node groups with ``autoscaler: karpenter``.

    node role (EKS node policies) + EKS access entry (EC2_LINUX): Karpenter's nodes join
    interruption queue (SQS, SSE) + the EventBridge rules that feed it: Karpenter drains a node
        before a spot interruption, a scheduled health event or a reservation interruption
    controller role (EKS Pod Identity) with the controller policy
    chart oci://public.ecr.aws/karpenter/karpenter 1.14.1 on the system nodes

Everything follows the getting-started CloudFormation template of aws/karpenter-provider-aws
at tag v1.14.1 (``website/content/en/docs/getting-started/getting-started-with-karpenter/
cloudformation.yaml``): the node role's managed policies, the controller's statements (the
node-lifecycle, IAM-integration, EKS-integration, interruption and resource-discovery
policies; its zonal-shift policy is left out, as trainstack turns no zonal shift on), the
queue and its five rules. The chart's values are ``settings.clusterName`` and
``settings.interruptionQueue`` (``charts/karpenter/values.yaml`` at v1.14.1).
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from ..catalog.addons import KARPENTER
from ..config.resource_names import EVENT_RULE_MAX, SQS_QUEUE_MAX, autonamed, fit
from ..helm import helm_release
from .iam import node_role, pod_identity_role

NAMESPACE = "kube-system"
SERVICE_ACCOUNT = "karpenter"
# The events Karpenter acts on (cloudformation.yaml at v1.14.1, the *Rule resources).
INTERRUPTION_EVENTS = {
    "scheduled-change": ("aws.health", "AWS Health Event"),
    "spot-interruption": ("aws.ec2", "EC2 Spot Instance Interruption Warning"),
    "rebalance": ("aws.ec2", "EC2 Instance Rebalance Recommendation"),
    "instance-state-change": ("aws.ec2", "EC2 Instance State-change Notification"),
    "reservation-interruption": ("aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning"),
}
_NO_RESOURCE_TYPES = "the Service Authorization Reference lists no resource types for it: only '*' matches"
_REGIONAL_READ = ("ec2:DescribeCapacityReservations", "ec2:DescribeImages", "ec2:DescribeInstances",
                  "ec2:DescribeInstanceStatus", "ec2:DescribeInstanceTypeOfferings", "ec2:DescribeInstanceTypes",
                  "ec2:DescribeLaunchTemplates", "ec2:DescribePlacementGroups", "ec2:DescribeSecurityGroups",
                  "ec2:DescribeSpotPriceHistory", "ec2:DescribeSubnets")
UNSCOPED_ACTIONS: dict[str, str] = {
    **{action: _NO_RESOURCE_TYPES for action in _REGIONAL_READ},
    "pricing:GetProducts": _NO_RESOURCE_TYPES,
    "iam:ListInstanceProfiles": _NO_RESOURCE_TYPES,
}
"""What the Karpenter controller is granted on '*', with the reason."""


def _arns(region: str, types: list[str]) -> list[str]:
    """EC2 resource ARNs of these types in the region; images and snapshots have no account field."""
    return [f"arn:aws:ec2:{region}:{'' if t in ('image', 'snapshot') else '*'}:{t}/*" for t in types]


def _tagged(*keys: tuple[str, str], cluster: str) -> dict[str, Any]:
    return {"StringEquals": {f"aws:{kind}/kubernetes.io/cluster/{cluster}": "owned" for kind, _ in keys},
            "StringLike": {f"aws:{kind}/{tag}": "*" for kind, tag in keys}}


def controller_statements(*, region: str, account: str, cluster: str, node_role_arn: str,
                          queue_arn: str) -> list[dict[str, Any]]:
    """The controller policy of cloudformation.yaml at v1.14.1, statement by statement (Sids kept)."""
    return [*_ec2_statements(region, cluster), *_instance_profile_statements(region, account, cluster, node_role_arn),
            *_read_statements(region, account, cluster, queue_arn)]


def _owned_request(cluster: str) -> dict[str, str]:
    """The tags every resource Karpenter creates must carry."""
    return {f"aws:RequestTag/kubernetes.io/cluster/{cluster}": "owned", "aws:RequestTag/eks:eks-cluster-name": cluster}


def _ec2_statements(region: str, cluster: str) -> list[dict[str, Any]]:
    """Launching, tagging and terminating the instances and launch templates of its NodeClaims."""
    ec2 = f"arn:aws:ec2:{region}"
    launched = [f"{ec2}:*:{r}/*" for r in ("fleet", "instance", "volume", "network-interface", "launch-template",
                                           "spot-instances-request")]
    request = _owned_request(cluster)
    # The template grants RunInstances, CreateFleet and CreateLaunchTemplate on one list of resource
    # types; IAM's Service Authorization Reference gives each action fewer (CreateFleet takes no
    # security group, snapshot, network interface or spot request; RunInstances no fleet;
    # CreateLaunchTemplate only launch templates), so each statement is split per action onto the
    # types it takes, with the template's conditions.
    run = ["image", "snapshot", "security-group", "subnet", "capacity-reservation", "placement-group"]
    fleet = ["image", "subnet", "capacity-reservation", "placement-group"]
    tagged_run = ["instance", "volume", "network-interface", "launch-template", "spot-instances-request"]
    tagged_fleet = ["fleet", "instance", "volume", "launch-template"]
    with_tags = {"StringEquals": request, "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"}}
    owned = _tagged(("ResourceTag", "karpenter.sh/nodepool"), cluster=cluster)
    return [
        {"Sid": "AllowScopedEC2InstanceAccessActions", "Effect": "Allow", "Action": "ec2:RunInstances",
         "Resource": _arns(region, run)},
        {"Sid": "AllowScopedEC2FleetAccessActions", "Effect": "Allow", "Action": "ec2:CreateFleet",
         "Resource": _arns(region, fleet)},
        {"Sid": "AllowScopedEC2LaunchTemplateAccessActions", "Effect": "Allow",
         "Action": ["ec2:RunInstances", "ec2:CreateFleet"], "Resource": f"{ec2}:*:launch-template/*",
         "Condition": owned},
        {"Sid": "AllowScopedEC2InstanceActionsWithTags", "Effect": "Allow", "Action": "ec2:RunInstances",
         "Resource": _arns(region, tagged_run), "Condition": with_tags},
        {"Sid": "AllowScopedEC2FleetActionsWithTags", "Effect": "Allow", "Action": "ec2:CreateFleet",
         "Resource": _arns(region, tagged_fleet), "Condition": with_tags},
        {"Sid": "AllowScopedEC2LaunchTemplateCreation", "Effect": "Allow", "Action": "ec2:CreateLaunchTemplate",
         "Resource": f"{ec2}:*:launch-template/*", "Condition": with_tags},
        {"Sid": "AllowScopedResourceCreationTagging", "Effect": "Allow", "Action": "ec2:CreateTags",
         "Resource": launched,
         "Condition": {"StringEquals": {**request, "ec2:CreateAction": ["RunInstances", "CreateFleet",
                                                                        "CreateLaunchTemplate"]},
                       "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"}}},
        {"Sid": "AllowScopedResourceTagging", "Effect": "Allow", "Action": "ec2:CreateTags",
         "Resource": f"{ec2}:*:instance/*",
         "Condition": {**owned,
                       "StringEqualsIfExists": {"aws:RequestTag/eks:eks-cluster-name": cluster},
                       "ForAllValues:StringEquals": {"aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim",
                                                                     "Name"]}}},
        {"Sid": "AllowScopedDeletion", "Effect": "Allow", "Action": "ec2:TerminateInstances",
         "Resource": f"{ec2}:*:instance/*", "Condition": owned},
        {"Sid": "AllowScopedLaunchTemplateDeletion", "Effect": "Allow", "Action": "ec2:DeleteLaunchTemplate",
         "Resource": f"{ec2}:*:launch-template/*", "Condition": owned},
    ]


def _instance_profile_statements(region: str, account: str, cluster: str, node_role_arn: str) -> list[dict[str, Any]]:
    """Passing the node role, and the instance profiles it makes for each EC2NodeClass."""
    request = _owned_request(cluster)
    profile = f"arn:aws:iam::{account}:instance-profile/*"
    profile_tags = {f"aws:ResourceTag/kubernetes.io/cluster/{cluster}": "owned",
                    "aws:ResourceTag/topology.kubernetes.io/region": region}
    return [
        {"Sid": "AllowPassingInstanceRole", "Effect": "Allow", "Action": "iam:PassRole", "Resource": node_role_arn,
         "Condition": {"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com"]}}},
        {"Sid": "AllowScopedInstanceProfileCreationActions", "Effect": "Allow", "Action": ["iam:CreateInstanceProfile"],
         "Resource": profile,
         "Condition": {"StringEquals": {**request, "aws:RequestTag/topology.kubernetes.io/region": region},
                       "StringLike": {"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"}}},
        {"Sid": "AllowScopedInstanceProfileTagActions", "Effect": "Allow", "Action": ["iam:TagInstanceProfile"],
         "Resource": profile,
         "Condition": {"StringEquals": {**profile_tags, **request,
                                        "aws:RequestTag/topology.kubernetes.io/region": region},
                       "StringLike": {"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*",
                                      "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"}}},
        {"Sid": "AllowScopedInstanceProfileActions", "Effect": "Allow",
         "Action": ["iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"],
         "Resource": profile,
         "Condition": {"StringEquals": profile_tags,
                       "StringLike": {"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*"}}},
    ]


def _read_statements(region: str, account: str, cluster: str, queue_arn: str) -> list[dict[str, Any]]:
    """The cluster's endpoint, the interruption queue, and what it reads to pick instances."""
    return [
        {"Sid": "AllowAPIServerEndpointDiscovery", "Effect": "Allow", "Action": "eks:DescribeCluster",
         "Resource": f"arn:aws:eks:{region}:{account}:cluster/{cluster}"},
        {"Sid": "AllowInterruptionQueueActions", "Effect": "Allow", "Resource": queue_arn,
         "Action": ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"]},
        {"Sid": "AllowRegionalReadActions", "Effect": "Allow", "Resource": "*", "Action": list(_REGIONAL_READ),
         "Condition": {"StringEquals": {"aws:RequestedRegion": region}}},
        {"Sid": "AllowSSMReadActions", "Effect": "Allow", "Action": "ssm:GetParameter",
         "Resource": f"arn:aws:ssm:{region}::parameter/aws/service/*"},
        {"Sid": "AllowPricingReadActions", "Effect": "Allow", "Resource": "*", "Action": "pricing:GetProducts"},
        {"Sid": "AllowUnscopedInstanceProfileListAction", "Effect": "Allow", "Resource": "*",
         "Action": "iam:ListInstanceProfiles"},
        {"Sid": "AllowInstanceProfileReadActions", "Effect": "Allow", "Action": "iam:GetInstanceProfile",
         "Resource": f"arn:aws:iam::{account}:instance-profile/*"},
    ]


def _interruption_queue(name: str, cluster_name: str, parent: pulumi.Resource) -> aws.sqs.Queue:
    child = pulumi.ResourceOptions(parent=parent)
    # The queue is named for its cluster as Karpenter's getting-started template names it; an EKS name holds 100
    # characters, a queue's 80.
    queue = aws.sqs.Queue(f"{name}-karpenter", name=fit(cluster_name, SQS_QUEUE_MAX), message_retention_seconds=300,
                          sqs_managed_sse_enabled=True, opts=child)
    aws.sqs.QueuePolicy(f"{name}-karpenter", queue_url=queue.url, policy=queue.arn.apply(lambda arn: json.dumps({
        "Version": "2012-10-17", "Id": "EC2InterruptionPolicy", "Statement": [
            {"Effect": "Allow", "Principal": {"Service": ["events.amazonaws.com", "sqs.amazonaws.com"]},
             "Action": "sqs:SendMessage", "Resource": arn},
            {"Sid": "DenyHTTP", "Effect": "Deny", "Action": "sqs:*", "Resource": arn, "Principal": "*",
             "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]})), opts=child)
    for rule_name, (source, detail_type) in INTERRUPTION_EVENTS.items():
        # Pulumi names a rule '<logical name>-<7 random>': the logical name is fitted to EventBridge's 64.
        rule = aws.cloudwatch.EventRule(autonamed(f"{name}-karpenter-{rule_name}", EVENT_RULE_MAX),
                                        event_pattern=json.dumps({"source": [source], "detail-type": [detail_type]}),
                                        opts=child)
        aws.cloudwatch.EventTarget(f"{name}-karpenter-{rule_name}", rule=rule.name, arn=queue.arn,
                                   target_id="KarpenterInterruptionQueueTarget", opts=child)
    return queue


def karpenter(name: str, *, cluster_name: str, region: str, system_node_selector: dict[str, str],
              provider: k8s.Provider, parent: pulumi.Resource,
              depends_on: list[pulumi.Resource]) -> tuple[k8s.helm.v3.Release, aws.iam.Role]:
    """The controller and the node role its nodes run under (with its access entry)."""
    nodes = node_role(f"{name}-karpenter-nodes", parent=parent)
    access = aws.eks.AccessEntry(f"{name}-karpenter-nodes", cluster_name=cluster_name, principal_arn=nodes.arn,
                                 type="EC2_LINUX", opts=pulumi.ResourceOptions(parent=parent, depends_on=depends_on))
    queue = _interruption_queue(name, cluster_name, parent)
    account = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=parent)).account_id
    policy = pulumi.Output.all(account, nodes.arn, queue.arn).apply(lambda values: json.dumps({
        "Version": "2012-10-17", "Statement": controller_statements(
            region=region, account=values[0], cluster=cluster_name, node_role_arn=values[1], queue_arn=values[2])}))
    association = pod_identity_role(
        f"{name}-karpenter", cluster_name=cluster_name, namespace=NAMESPACE, service_account=SERVICE_ACCOUNT,
        policy=policy, parent=parent, depends_on=depends_on)
    release = helm_release(
        f"{name}-karpenter", KARPENTER, namespace=NAMESPACE, provider=provider, parent=parent,
        depends_on=[association, access, *depends_on],
        values={"settings": {"clusterName": cluster_name, "interruptionQueue": queue.name},
                "serviceAccount": {"create": True, "name": SERVICE_ACCOUNT},
                "nodeSelector": system_node_selector})
    return release, nodes
