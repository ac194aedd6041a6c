"""Security rules: IMDSv2, no internet ingress, encryption, private endpoints, IAM actions."""

from __future__ import annotations

import json
from collections.abc import Iterator

from .model import Rule, Stack, Violation, is_unknown, truthy

LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
INGRESS_RULE = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
LEGACY_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
EKS_COMPONENT, EKS_CLUSTER = "eks:index:Cluster", "aws:eks/cluster:Cluster"
FSX_LUSTRE = "aws:fsx/lustreFileSystem:LustreFileSystem"
BUCKET = "aws:s3/bucket:Bucket"
BUCKET_SSE = "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
IAM_POLICIES = ("aws:iam/policy:Policy", "aws:iam/rolePolicy:RolePolicy")
OPEN = ("0.0.0.0/0", "::/0")


def imdsv2_required(stack: Stack, config: dict) -> Iterator[Violation]:
    for template in stack.of_type(LAUNCH_TEMPLATE):
        tokens = (template.props.get("metadataOptions") or {}).get("httpTokens")
        if tokens != "required":
            yield Violation(template.urn, f"launch template {template.name} allows IMDSv1 (httpTokens={tokens!r}); "
                                          "set metadataOptions.httpTokens to 'required'.")


def _open_ingress(stack: Stack) -> Iterator[tuple]:
    """(resource, from port, to port, protocol, cidr) for every ingress open to the internet."""
    for rule in stack.of_type(INGRESS_RULE):
        cidr = rule.props.get("cidrIpv4") or rule.props.get("cidrIpv6")
        if cidr in OPEN:
            yield rule, rule.props.get("fromPort"), rule.props.get("toPort"), rule.props.get("ipProtocol"), cidr
    for rule in stack.of_type(LEGACY_RULE):
        if rule.props.get("type") == "ingress":
            for cidr in (rule.props.get("cidrBlocks") or []) + (rule.props.get("ipv6CidrBlocks") or []):
                if cidr in OPEN:
                    yield rule, rule.props.get("fromPort"), rule.props.get("toPort"), rule.props.get("protocol"), cidr
    for group in stack.of_type(SECURITY_GROUP):
        for inline in group.props.get("ingress") or []:
            for cidr in (inline.get("cidrBlocks") or []) + (inline.get("ipv6CidrBlocks") or []):
                if cidr in OPEN:
                    yield group, inline.get("fromPort"), inline.get("toPort"), inline.get("protocol"), cidr


def no_public_ingress(stack: Stack, config: dict) -> Iterator[Violation]:
    for resource, low, high, protocol, cidr in _open_ingress(stack):
        yield Violation(resource.urn, f"{resource.name} admits {cidr} ({protocol} {low}-{high}); "
                                      "reference a security group or a narrow CIDR instead.")


def no_ssh_from_internet(stack: Stack, config: dict) -> Iterator[Violation]:
    for resource, low, high, protocol, cidr in _open_ingress(stack):
        everything = str(protocol) in ("-1", "all")
        if everything or (str(protocol) in ("tcp", "6") and (low or 0) <= 22 <= (high if high is not None else 65535)):
            yield Violation(resource.urn, f"{resource.name} opens SSH (port 22) to {cidr}; use SSM Session "
                                          "Manager or a bastion reached through a narrow range.")


def eks_secrets_encrypted(stack: Stack, config: dict) -> Iterator[Violation]:
    for cluster in stack.of_type(EKS_COMPONENT):
        if is_unknown(cluster.props.get("encryptionConfigKeyArn")) and "encryptionConfigKeyArn" not in \
                cluster.property_dependencies:
            yield Violation(cluster.urn, f"EKS cluster {cluster.name} has no KMS key for secrets; set "
                                         "encryptionConfigKeyArn.")
    for cluster in stack.of_type(EKS_CLUSTER):
        config_ = cluster.props.get("encryptionConfig") or {}
        if "secrets" not in (config_.get("resources") or []):
            yield Violation(cluster.urn, f"EKS cluster {cluster.name} does not encrypt secrets with a KMS key.")


def eks_endpoint_private_in_production(stack: Stack, config: dict) -> Iterator[Violation]:
    if stack.profile(config) != "production":
        return
    for cluster in stack.of_type(EKS_COMPONENT):
        # pulumi-eks makes the endpoint public unless told otherwise.
        if cluster.props.get("endpointPublicAccess", True) is not False:
            yield Violation(cluster.urn, f"EKS cluster {cluster.name} has a public API endpoint in a "
                                         "production stack; set endpointPublicAccess false.")
    for cluster in stack.of_type(EKS_CLUSTER):
        if (cluster.props.get("vpcConfig") or {}).get("endpointPublicAccess", True) is not False:
            yield Violation(cluster.urn, f"EKS cluster {cluster.name} has a public API endpoint in a "
                                         "production stack.")


def ebs_encrypted(stack: Stack, config: dict) -> Iterator[Violation]:
    for template in stack.of_type(LAUNCH_TEMPLATE):
        for mapping in template.props.get("blockDeviceMappings") or []:
            ebs = mapping.get("ebs")
            if ebs is not None and not truthy(ebs.get("encrypted")):
                yield Violation(template.urn, f"launch template {template.name} has an unencrypted EBS volume "
                                              f"({mapping.get('deviceName')}); set ebs.encrypted.")


def fsx_encrypted(stack: Stack, config: dict) -> Iterator[Violation]:
    """FSx for Lustre always encrypts at rest; teams may require their own key."""
    if not config.get("requireCustomerKey"):
        return
    for file_system in stack.of_type(FSX_LUSTRE):
        if is_unknown(file_system.props.get("kmsKeyId")) and "kmsKeyId" not in file_system.property_dependencies:
            yield Violation(file_system.urn, f"FSx {file_system.name} uses the AWS managed key; set kmsKeyId.")


def s3_encrypted(stack: Stack, config: dict) -> Iterator[Violation]:
    for bucket in stack.of_type(BUCKET):
        inline = bucket.props.get("serverSideEncryptionConfiguration")
        if not inline and not stack.referencing(bucket, "bucket", BUCKET_SSE):
            yield Violation(bucket.urn, f"bucket {bucket.name} has no server-side encryption configuration.")


def _actions(document: dict) -> Iterator[str]:
    for statement in document.get("Statement") or []:
        if statement.get("Effect", "Allow") != "Allow":
            continue
        actions = statement.get("Action") or []
        yield from ([actions] if isinstance(actions, str) else actions)


def iam_no_wildcard_actions(stack: Stack, config: dict) -> Iterator[Violation]:
    allowed = set(config.get("allowedActions") or [])
    for policy in stack.of_type(*IAM_POLICIES):
        text = policy.props.get("policy")
        if is_unknown(text) or not isinstance(text, str):
            continue
        wildcards = sorted({a for a in _actions(json.loads(text)) if "*" in a} - allowed)
        if wildcards:
            yield Violation(policy.urn, f"IAM policy {policy.name} grants wildcard actions {wildcards}; list the "
                                        "actions, or allow-list an AWS-required one in allowedActions.")


RULES = [
    Rule("imdsv2-required", "Launch templates require IMDSv2 (httpTokens required).", "mandatory",
         imdsv2_required),
    Rule("no-public-ingress", "No security group admits 0.0.0.0/0 or ::/0.", "mandatory", no_public_ingress),
    Rule("no-ssh-from-internet", "No security group opens SSH to the internet.", "mandatory", no_ssh_from_internet),
    Rule("eks-secrets-encrypted", "EKS clusters encrypt Kubernetes secrets with a KMS key.", "mandatory",
         eks_secrets_encrypted),
    Rule("eks-endpoint-private-in-production", "Production-profile EKS clusters have no public API endpoint.",
         "mandatory", eks_endpoint_private_in_production,
         config={"profile": {"type": "string", "enum": ["dev", "production"]}}),
    Rule("ebs-encrypted", "Launch templates encrypt their EBS volumes.", "mandatory", ebs_encrypted),
    Rule("fsx-encrypted", "FSx file systems are encrypted (with a customer key when required).", "mandatory",
         fsx_encrypted, config={"requireCustomerKey": {"type": "boolean", "default": False}}),
    Rule("s3-encrypted", "S3 buckets have server-side encryption.", "mandatory", s3_encrypted),
    Rule("iam-no-wildcard-actions", "IAM policies name their actions; no '*' in actions.", "mandatory",
         iam_no_wildcard_actions,
         config={"allowedActions": {"type": "array", "items": {"type": "string"}, "default": []}}),
]
