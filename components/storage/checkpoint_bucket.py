"""CheckpointBucket: the S3 bucket that keeps training checkpoints safe.

Versioned (an overwritten or deleted checkpoint can be restored), encrypted
with SSE-KMS, closed to the public, owned by the bucket owner, and protected:
Pulumi refuses to delete or replace it until ``protect`` is turned off.
"""

from __future__ import annotations

import re
from typing import Optional, TypedDict

import pulumi
import pulumi_aws as aws

from ..config import CheckpointBucketConfig, validate
from ..config.component_args import check_args
from ..names import CHECKPOINT_BUCKET_COMPONENT, PURPOSE_TAG


class CheckpointBucketArgs(TypedDict, total=False):
    """The ``checkpointBucket`` config block."""

    settings: CheckpointBucketConfig | dict
    """The ``checkpointBucket`` config block (protect, version retention, KMS key)."""


class CheckpointBucket(pulumi.ComponentResource):
    """A versioned, encrypted S3 bucket for checkpoints, protected from deletion by default."""

    bucket_name: pulumi.Output[str]
    """The bucket's name (``s3://<bucket_name>/``)."""
    arn: pulumi.Output[str]

    def __init__(self, name: str, args: CheckpointBucketArgs, opts: Optional[pulumi.ResourceOptions] = None):
        check_args(f"CheckpointBucket({name})", CheckpointBucketArgs, args)
        settings = validate(CheckpointBucketConfig, args.get("settings", {}),
                            prefix=f"CheckpointBucket({name})", at=("settings",))
        super().__init__(CHECKPOINT_BUCKET_COMPONENT, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)

        bucket = aws.s3.Bucket(
            name,
            bucket_prefix=_bucket_prefix(name),
            force_destroy=False,
            # Policies find checkpoint buckets by this tag (versioning, protection).
            tags={PURPOSE_TAG: "checkpoints"},
            opts=pulumi.ResourceOptions(parent=self, protect=settings.protect),
        )
        aws.s3.BucketOwnershipControls(
            f"{name}-ownership", bucket=bucket.id,
            rule={"object_ownership": "BucketOwnerEnforced"}, opts=child)
        aws.s3.BucketPublicAccessBlock(
            f"{name}-public-access", bucket=bucket.id, block_public_acls=True, block_public_policy=True,
            ignore_public_acls=True, restrict_public_buckets=True, opts=child)
        aws.s3.BucketServerSideEncryptionConfiguration(
            f"{name}-encryption", bucket=bucket.id,
            rules=[{
                "apply_server_side_encryption_by_default": {
                    "sse_algorithm": "aws:kms", "kms_master_key_id": settings.kms_key_arn},
                # Bucket keys cut KMS requests (and cost) for the many objects of a checkpoint.
                "bucket_key_enabled": True,
            }], opts=child)
        versioning = aws.s3.BucketVersioning(
            f"{name}-versioning", bucket=bucket.id,
            versioning_configuration={"status": "Enabled"}, opts=child)
        aws.s3.BucketLifecycleConfiguration(
            f"{name}-lifecycle", bucket=bucket.id,
            rules=[{
                "id": "expire-old-checkpoint-versions",
                "status": "Enabled",
                "filter": {},
                "noncurrent_version_expiration": {"noncurrent_days": settings.noncurrent_version_days},
                "abort_incomplete_multipart_upload": {"days_after_initiation": 7},
            }],
            # S3 rejects lifecycle rules on noncurrent versions until versioning is on.
            opts=pulumi.ResourceOptions(parent=self, depends_on=[versioning]))

        self.bucket: aws.s3.Bucket = bucket
        """The S3 bucket (``aws.s3.Bucket``), versioned, encrypted and protected unless ``settings.protect`` is off."""
        self.bucket_name = bucket.bucket
        self.arn = bucket.arn
        self.register_outputs({"bucketName": self.bucket_name, "arn": self.arn})


def _bucket_prefix(name: str) -> str:
    """S3 prefixes are lower case, at most 37 characters (Pulumi appends 26)."""
    prefix = re.sub(r"[^a-z0-9-]", "-", name.lower()).strip("-")[:36]
    return prefix + "-"
