"""Every name a recorded plan gives a cloud or cluster object, judged by the rule of the service that owns it,
written here from the owners' own sources and never read from trainstack (an oracle independent of
``trainstack.config.stack_names``).

Where AWS publishes the rule in its API model, the rule is botocore's shape (``min``, ``max``, ``pattern``) for
the parameter that carries the name; where the model says nothing (S3 buckets, SQS queues, EKS node groups, EC2
launch templates, placement and security groups), the service's documentation, quoted below. Helm's release
names follow helm/helm pkg/chartutil/validate_name.go @ 05b356ac (``ValidateReleaseName``); Kubernetes object
names follow apimachinery's ``IsDNS1123Subdomain``, ``IsDNS1123Label`` and ``IsDNS1035Label``
(https://kubernetes.io/docs/concepts/overview/working-with-objects/names/).

Names that Pulumi makes (auto-naming: ``<logical name>-<7 random characters>``, pulumi/pulumi-terraform-bridge
``AutoName``) are made here the same way from the recorded logical name, not read from the offline plan's fixtures;
a ``bucketPrefix`` is judged with the 26 characters the provider appends (hashicorp/terraform-plugin-sdk helper/id
``PrefixedUniqueId``: an 18-character timestamp and an 8-character counter).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any, Optional

import botocore.session
from trainstack.plan import Plan

UNIQUE_SUFFIX = 26
"""What Terraform's ``PrefixedUniqueId`` appends to a prefix (the S3 bucket's ``bucketPrefix``)."""
PULUMI_AUTONAME_SUFFIX = 8
"""'-' and the 7 random characters Pulumi appends to a logical name (pulumi-terraform-bridge's AutoName)."""


@dataclass(frozen=True)
class Rule:
    owner: str
    max_length: int
    pattern: str
    min_length: int = 1
    source: str = ""

    def problem(self, name: str) -> Optional[str]:
        if not self.min_length <= len(name) <= self.max_length:
            return f"{len(name)} characters, outside {self.min_length}..{self.max_length}"
        return self.character_problem(name)

    def character_problem(self, name: str) -> Optional[str]:
        """The rule's characters alone: what no cut to length can mend."""
        return None if re.fullmatch(self.pattern, name, flags=re.ASCII) else f"does not match {self.pattern}"


@cache
def aws_rule(service: str, operation: str, member: str, owner: str) -> Rule:
    """The rule botocore's API model gives the member that names the object."""
    shape = botocore.session.get_session().get_service_model(service).operation_model(operation) \
        .input_shape.members[member]
    meta = shape.metadata
    return Rule(owner, meta["max"], meta["pattern"].strip("^$"), meta.get("min", 1),
                f"botocore {service} {operation}.{member}")


def iam_role() -> Rule:
    return aws_rule("iam", "CreateRole", "RoleName", "IAM role name")


def iam_inline_policy() -> Rule:
    return aws_rule("iam", "PutRolePolicy", "PolicyName", "IAM inline policy name")


def eks_cluster() -> Rule:
    return aws_rule("eks", "CreateCluster", "name", "EKS cluster name")


def kms_alias() -> Rule:
    return aws_rule("kms", "CreateAlias", "AliasName", "KMS alias")


def ecr_repository() -> Rule:
    return aws_rule("ecr", "CreateRepository", "repositoryName", "ECR repository name")


def event_rule() -> Rule:
    return aws_rule("events", "PutRule", "Name", "EventBridge rule name")


def sagemaker_cluster() -> Rule:
    return aws_rule("sagemaker", "CreateCluster", "ClusterName", "SageMaker HyperPod cluster name")


EKS_NODEGROUP = Rule("EKS node group name", 63, r"[0-9A-Za-z][A-Za-z0-9_-]*",
                     source="EKS User Guide, create-managed-node-group: 'can't be longer than 63 characters. It must "
                            "start with letter or digit, but can also include hyphens and underscores'")
LAUNCH_TEMPLATE = Rule("EC2 launch template name", 128, r"[a-zA-Z0-9().\-/_]+", 3,
                       "EC2 API Reference, CreateLaunchTemplate: LaunchTemplateName")
SQS_QUEUE = Rule("SQS queue name", 80, r"[A-Za-z0-9_-]+",
                 source="SQS API Reference, CreateQueue: QueueName, up to 80 alphanumerics, hyphens, underscores")
S3_BUCKET = Rule("S3 bucket name", 63, r"[a-z0-9][a-z0-9.-]*[a-z0-9]", 3,
                 "S3 User Guide, bucketnamingrules")
EC2_GROUP_NAME = Rule("EC2 group name", 255, r"[\x20-\x7e]+",
                      source="EC2 API Reference: CreatePlacementGroup, CreateSecurityGroup (up to 255 ASCII)")
HELM_RELEASE = Rule("Helm release name", 53, r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
                    source="helm/helm pkg/chartutil/validate_name.go @ 05b356ac")
DNS1123_SUBDOMAIN = Rule("Kubernetes object name (DNS-1123 subdomain)", 253,
                         r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*", source="apimachinery")
DNS1123_LABEL = Rule("Kubernetes object name (DNS-1123 label)", 63, r"[a-z0-9]([-a-z0-9]*[a-z0-9])?",
                     source="apimachinery")
DNS1035_LABEL = Rule("Kubernetes Service name (RFC 1035 label)", 63, r"[a-z]([-a-z0-9]*[a-z0-9])?",
                     source="apimachinery")
LABEL_KINDS = {"Namespace": DNS1123_LABEL, "Service": DNS1035_LABEL}
"""Kinds whose names are labels, not subdomains (the API server's validation of each kind)."""

PULUMI_EKS_SERVICE_ROLE = "-eksRole-role"
"""pulumi-eks names the cluster's service role ``<cluster logical name>-eksRole-role`` and lets Pulumi auto-name
it (pulumi/pulumi-eks nodejs/eks/cluster/cluster.ts and servicerole.ts @ 7bf0c1b1): offline it is unseen, so the
oracle derives it."""


@dataclass(frozen=True)
class Derived:
    rule: Rule
    name: str
    scope: str
    """Where the name must be unique (an account and region, a namespace ...)."""
    resource: str


def derived_names(plan: Plan) -> Iterator[Derived]:
    for resource in plan.resources:
        yield from _names_of(resource.type, resource.name, resource.inputs, resource.urn)


def _given_or_made(inputs: dict[str, Any], key: str, logical: str, urn: str) -> str:
    """The name the program gives, or the one the provider makes: a prefix and 26 unique characters, or the
    logical name, '-' and 7 random characters (here a hash of the URN, so two resources never share them)."""
    if inputs.get(key):
        return str(inputs[key])
    if inputs.get(key + "Prefix"):
        return str(inputs[key + "Prefix"]) + "0" * UNIQUE_SUFFIX
    return f"{logical}-{hashlib.sha256(urn.encode()).hexdigest()[:PULUMI_AUTONAME_SUFFIX - 1]}"


def _names_of(kind: str, logical: str, inputs: dict[str, Any], urn: str) -> Iterator[Derived]:
    where = f"{kind} {logical}"
    simple = {
        "aws:iam/role:Role": (iam_role, "name", "account"),
        "aws:iam/rolePolicy:RolePolicy": (iam_inline_policy, "name", inputs.get("role")),
        "aws:kms/alias:Alias": (kms_alias, "name", "region"),
        "aws:ecr/repository:Repository": (ecr_repository, "name", "region"),
        "aws:cloudwatch/eventRule:EventRule": (event_rule, "name", "region"),
        "aws:eks/nodeGroup:NodeGroup": (lambda: EKS_NODEGROUP, "nodeGroupName", inputs.get("clusterName")),
        "aws:ec2/launchTemplate:LaunchTemplate": (lambda: LAUNCH_TEMPLATE, "name", "region"),
        "aws:sqs/queue:Queue": (lambda: SQS_QUEUE, "name", "region"),
        "aws:ec2/placementGroup:PlacementGroup": (lambda: EC2_GROUP_NAME, "name", "region"),
        "aws:ec2/securityGroup:SecurityGroup": (lambda: EC2_GROUP_NAME, "name", inputs.get("vpcId")),
        "aws:s3/bucket:Bucket": (lambda: S3_BUCKET, "bucket", "S3"),
        "aws-native:sagemaker:Cluster": (sagemaker_cluster, "clusterName", "region"),
    }
    if kind in simple:
        rule, key, scope = simple[kind]
        yield Derived(rule(), _given_or_made(inputs, key, logical, urn), f"{kind} {scope}", where)
    elif kind in ("eks:index:Cluster", "aws:eks/cluster:Cluster"):
        yield Derived(eks_cluster(), str(inputs["name"]), "EKS clusters", where)
        if kind == "eks:index:Cluster" and not inputs.get("serviceRole"):
            role = logical + PULUMI_EKS_SERVICE_ROLE + "-" + "x" * (PULUMI_AUTONAME_SUFFIX - 1)
            yield Derived(iam_role(), role, "aws:iam/role:Role account", f"{where} (pulumi-eks service role)")
    elif kind == "kubernetes:helm.sh/v3:Release":
        yield Derived(HELM_RELEASE, str(inputs.get("name") or logical), f"Helm releases in {inputs.get('namespace')}",
                      where)
    elif kind.startswith("kubernetes:") and not kind.startswith("kubernetes:kustomize"):
        metadata = inputs.get("metadata") or {}
        name = metadata.get("name")
        if isinstance(name, str):
            object_kind = kind.rsplit(":", 1)[-1]
            yield Derived(LABEL_KINDS.get(object_kind, DNS1123_SUBDOMAIN), name,
                          f"{kind} in {metadata.get('namespace')}", where)


def name_problems(plan: Plan) -> list[str]:
    """Each derived name its owner would refuse, and each name two objects of one scope share."""
    derived = list(derived_names(plan))
    problems = [f"{d.resource}: {d.rule.owner} '{d.name}' {problem} ({d.rule.source})"
                for d in derived if (problem := d.rule.problem(d.name)) is not None]
    shared = Counter((d.scope, d.name) for d in derived)
    problems += [f"{scope}: '{name}' is given to {count} objects" for (scope, name), count in shared.items()
                 if count > 1]
    urns = Counter(resource.urn for resource in plan.resources)
    problems += [f"URN {urn} is registered {count} times" for urn, count in urns.items() if count > 1]
    return problems
