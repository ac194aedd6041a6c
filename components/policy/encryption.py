"""Encryption at rest, judged by what AWS encrypts on its own today.

- S3: since 2023-01-05 every bucket applies SSE-S3 to every new object and it cannot be
  turned off (Amazon S3 User Guide, "Setting default server-side encryption behavior for
  Amazon S3 buckets"). A bucket without an encryption configuration is encrypted, so no
  rule fails it.
- FSx for Lustre: every file system is encrypted at rest, with an AWS managed key unless a
  customer key is given (FSx for Lustre User Guide, "Encrypting data at rest").
- EKS: clusters on Kubernetes 1.28 or later envelope-encrypt all Kubernetes API data with
  an AWS owned KMS key by default (EKS User Guide, "Default envelope encryption for all
  Kubernetes API data"); only older clusters without a key store secrets unencrypted
  at the envelope layer.
- EBS: encryption by default is an opt-in account setting per region (EC2 User Guide,
  "Amazon EBS encryption by default"); a volume the launch template does not encrypt is
  written in plain text in every account that has not opted in.

Customer managed keys are a stance, not a fault: ``kms-customer-keys`` requires them,
for the resources and stack profiles a team names (by default, none).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Optional

from ..names import BUCKET, BUCKET_ENCRYPTION, EKS_CLUSTER, EKS_COMPONENT_CLUSTER, LAUNCH_TEMPLATE, LUSTRE_FILE_SYSTEM
from .model import Resource, Rule, Stack, Violation, eks_components_seen_by_inputs, is_unknown, truthy

DEFAULT_ENVELOPE_ENCRYPTION = (1, 28)
CUSTOMER_KEY_RESOURCES = ("ebs", "eks-secrets", "fsx", "s3")


def _version(value: object) -> Optional[tuple[int, int]]:
    try:
        major, minor = str(value).split(".")[:2]
        return int(major), int(minor)
    except ValueError:
        return None


def _set(resource: Resource, prop: str) -> bool:
    """Set in the inputs, or computed from another resource (unknown until it exists)."""
    return not is_unknown(resource.props.get(prop)) or prop in resource.property_dependencies


def ebs_encrypted(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    for template in stack.of_type(LAUNCH_TEMPLATE):
        for mapping in template.props.get("blockDeviceMappings") or []:
            ebs = mapping.get("ebs")
            if ebs is not None and not truthy(ebs.get("encrypted")):
                yield Violation(template.urn, f"launch template {template.name} does not encrypt its EBS volume "
                                              f"{mapping.get('deviceName')}; it is written unencrypted unless the "
                                              "account opted in to EBS encryption by default. Set ebs.encrypted.")


def eks_secrets_encrypted(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    """Only clusters older than 1.28 lack envelope encryption; an unset version is EKS's default (newer)."""
    for cluster in [*eks_components_seen_by_inputs(stack), *stack.of_type(EKS_CLUSTER)]:
        version = _version(cluster.props.get("version"))
        if version is None or version >= DEFAULT_ENVELOPE_ENCRYPTION or _has_secrets_key(cluster):
            continue
        yield Violation(cluster.urn, f"EKS cluster {cluster.name} runs Kubernetes {cluster.props.get('version')}, "
                                     "before EKS's default envelope encryption (1.28), with no KMS key for "
                                     "secrets; set a key or upgrade.")


def _has_secrets_key(cluster: Resource) -> bool:
    if cluster.type == EKS_COMPONENT_CLUSTER:
        return _set(cluster, "encryptionConfigKeyArn")
    encryption = cluster.props.get("encryptionConfig") or {}
    return "secrets" in (encryption.get("resources") or []) or "encryptionConfig" in cluster.property_dependencies


def _bucket_customer_key(stack: Stack, bucket: Resource) -> bool:
    configurations = [bucket.props.get("serverSideEncryptionConfiguration") or {}]
    configurations += [c.props for c in stack.referencing(bucket, "bucket", BUCKET_ENCRYPTION)]
    for configuration in configurations:
        rules = configuration.get("rules") or ([configuration["rule"]] if configuration.get("rule") else [])
        for rule in rules:
            default = rule.get("applyServerSideEncryptionByDefault") or {}
            if str(default.get("sseAlgorithm", "")).startswith("aws:kms") and not is_unknown(
                    default.get("kmsMasterKeyId")):
                return True
    return False


def kms_customer_keys(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    wanted = set(config.get("requireCustomerKeyFor") or [])
    profiles = config.get("profiles") or []
    if not wanted or (profiles and stack.profile(config) not in profiles):
        return
    if "fsx" in wanted:
        for file_system in stack.of_type(LUSTRE_FILE_SYSTEM):
            if not _set(file_system, "kmsKeyId"):
                yield Violation(file_system.urn, f"FSx {file_system.name} uses the AWS managed key; set kmsKeyId "
                                                 "(fsx.kmsKeyArn).")
    if "s3" in wanted:
        for bucket in stack.of_type(BUCKET):
            if not _bucket_customer_key(stack, bucket):
                yield Violation(bucket.urn, f"bucket {bucket.name} is not encrypted with a customer managed KMS key; "
                                            "set SSE-KMS with kmsMasterKeyId.")
    if "eks-secrets" in wanted:
        for cluster in stack.of_type(EKS_COMPONENT_CLUSTER, EKS_CLUSTER):
            if not _has_secrets_key(cluster):
                yield Violation(cluster.urn, f"EKS cluster {cluster.name} encrypts secrets with the AWS owned key "
                                             "only; set a customer managed KMS key.")
    if "ebs" in wanted:
        for template in stack.of_type(LAUNCH_TEMPLATE):
            for mapping in template.props.get("blockDeviceMappings") or []:
                ebs = mapping.get("ebs")
                if ebs is not None and is_unknown(ebs.get("kmsKeyId")):
                    yield Violation(template.urn, f"launch template {template.name} encrypts "
                                                  f"{mapping.get('deviceName')} with the default EBS key; set "
                                                  "ebs.kmsKeyId.")


RULES = [
    Rule("eks-secrets-encrypted", "EKS clusters older than Kubernetes 1.28 (no default envelope encryption) "
         "encrypt secrets with a KMS key.", "mandatory", eks_secrets_encrypted,
         source="EKS User Guide, Default envelope encryption for all Kubernetes API data (1.28 and later)"),
    Rule("ebs-encrypted", "Launch templates encrypt their EBS volumes.", "mandatory", ebs_encrypted,
         source="EC2 User Guide, Amazon EBS encryption by default (an opt-in account setting per region)"),
    Rule("kms-customer-keys", "Named resources use customer managed KMS keys, in the named stack profiles "
         "(by default: none required).", "mandatory", kms_customer_keys,
         config={"requireCustomerKeyFor": {"type": "array", "items": {"type": "string",
                                                                      "enum": list(CUSTOMER_KEY_RESOURCES)},
                                           "default": []},
                 "profiles": {"type": "array", "items": {"type": "string", "enum": ["dev", "production"]},
                              "default": ["production"]}},
         needs=("requireCustomerKeyFor",),
         source="a team's stance: AWS encrypts S3, FSx and EKS API data with its own keys by default"),
]
