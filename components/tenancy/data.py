"""A team's data, as its Pod Identity role's policy: its own checkpoints, the datasets it is given.

Every job the launchers render for a team runs as the team's ServiceAccount, and EKS Pod Identity gives that
account's pods the team's role (EKS user guide, pod-identities.html). Mountpoint for S3 mounts a team's datasets
with the same credentials (``authenticationSource: pod``, mountpoint-s3-csi-driver v2.3.0 docs/CONFIGURATION.md,
"Pod-Level Credentials"), so what a team's pods read from S3 is decided by this policy alone, not by the
driver's role, which every pod on the node would share.

    checkpoints   list the bucket under ``teams/<team>/``; read, write and delete objects there (a checkpoint
                  manager rotates old ones out; the bucket's versioning keeps what is deleted)
    datasets      those the team is given (``datasets[].teams``): list and read; write new objects where a
                  dataset is not read-only; never delete (storage/s3_datasets.py's rules)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from ..config import DatasetConfig
from ..storage.s3_datasets import bucket_policy
from .model import Tenant

CHECKPOINT_ACTIONS = ("s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload")
# SSE-KMS with a customer key: writing needs a data key, reading needs it decrypted (S3 User Guide,
# UsingKMSEncryption.html, "Permissions").
KMS_ACTIONS = ("kms:GenerateDataKey", "kms:Decrypt")


def team_policy(tenant: Tenant, *, checkpoint_bucket: Optional[str], datasets: Sequence[DatasetConfig],
                kms_key_arn: Optional[str] = None) -> dict[str, Any]:
    """The IAM policy of the team's Pod Identity role. ``checkpoint_bucket``: the bucket's name (none: the stack
    has no checkpoint bucket); ``datasets``: the stack's datasets, of which the team's are read from
    ``tenant.datasets``."""
    statements: list[dict[str, Any]] = []
    if checkpoint_bucket is not None:
        bucket = f"arn:aws:s3:::{checkpoint_bucket}"
        statements += [
            {"Sid": "ListOwnCheckpoints", "Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": [bucket],
             "Condition": {"StringLike": {"s3:prefix": [f"{tenant.checkpoint_prefix}*"]}}},
            {"Sid": "OwnCheckpoints", "Effect": "Allow", "Action": list(CHECKPOINT_ACTIONS),
             "Resource": [f"{bucket}/{tenant.checkpoint_prefix}*"]},
        ]
        if kms_key_arn is not None:
            statements.append({"Sid": "CheckpointKey", "Effect": "Allow", "Action": list(KMS_ACTIONS),
                               "Resource": [kms_key_arn]})
    given = [d for d in datasets if d.name in tenant.datasets]
    statements += bucket_policy(given)["Statement"] if given else []
    return {"Version": "2012-10-17", "Statement": statements}
