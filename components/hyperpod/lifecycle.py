"""Lifecycle scripts in S3, addressed by their content.

HyperPod reads ``SourceS3Uri`` when nodes are created; the managed instance
policy only lets nodes read buckets named ``sagemaker-*``. The scripts live
under a prefix named after the hash of their content, so changing a script (or
its settings) changes the URI and so updates the cluster, instead of leaving
old nodes and new nodes with different setups under one unchanged URI.
"""

from __future__ import annotations

import hashlib
import shlex
from importlib import resources
from typing import Optional

import pulumi
import pulumi_aws as aws

from .. import catalog
from ..config import HyperPodConfig
from ..config.resource_names import S3_BUCKET_PREFIX_MAX
from ..nodegroups.lustre_efa_client import lustre_efa_client_script

ENTRYPOINT = "on_init_complete.sh"
PARAMS = "trainstack-params.env"
LUSTRE_EFA_PREFIX = "lustre-efa-client-"
"""``lustre-efa-client-<instance type>.sh``: LNet over EFA for the nodes of that type (the entrypoint
picks its own by the instance type the node reports)."""
DEFAULT_USER = "ubuntu"
"""The HyperPod Slurm AMI's login user."""


def script_text() -> str:
    return resources.files("trainstack.hyperpod").joinpath("scripts", ENTRYPOINT).read_text()


def params_text(settings: HyperPodConfig, fsx_mount_path: Optional[str], lustre_over_efa: bool = False) -> str:
    """The script's settings as shell assignments, each value quoted for the shell."""
    values = {
        "TRAINSTACK_FSX_MOUNT_PATH": fsx_mount_path or "",
        "TRAINSTACK_LUSTRE_EFA": "1" if lustre_over_efa and fsx_mount_path else "",
        "TRAINSTACK_USERS": " ".join(f"{user.name}:{user.uid}" for user in settings.users),
        "TRAINSTACK_SSH_PUBLIC_KEY": settings.ssh_public_key or "",
        "TRAINSTACK_DEFAULT_USER": DEFAULT_USER,
    }
    return "".join(f"{key}={shlex.quote(value)}\n" for key, value in values.items())


def lifecycle_files(settings: HyperPodConfig, fsx_mount_path: Optional[str],
                    lustre_over_efa: bool = False) -> dict[str, str]:
    """The files under the lifecycle prefix: the entrypoint, its settings and, when the file system is
    EFA-enabled, the Lustre-over-EFA client script of each instance type with EFA, the same text EKS
    node groups boot with (nodegroups.lustre_efa_client)."""
    files = {ENTRYPOINT: script_text(), PARAMS: params_text(settings, fsx_mount_path, lustre_over_efa)}
    if lustre_over_efa and fsx_mount_path:
        for group in settings.groups:
            instance = catalog.get_hyperpod(group.instance_type)
            if instance.efa.supported:
                files[f"{LUSTRE_EFA_PREFIX}{instance.name}.sh"] = lustre_efa_client_script(instance)
    return files


def upload_lifecycle(name: str, settings: HyperPodConfig, fsx_mount_path: Optional[str],
                     parent: pulumi.Resource, lustre_over_efa: bool = False) -> pulumi.Output[str]:
    """Upload the scripts; return the ``s3://sagemaker-…/lifecycle/<hash>/`` URI."""
    child = pulumi.ResourceOptions(parent=parent)
    files = lifecycle_files(settings, fsx_mount_path, lustre_over_efa)
    digest = hashlib.sha256("".join(f"{k}\0{v}\0" for k, v in sorted(files.items())).encode()).hexdigest()[:16]
    # A prefix holds 37 characters with its '-' (the provider appends 26 unique ones, S3 takes 63): cut at 36,
    # where [:37] and the '-' made 38 and a 64-character name S3 refuses. The unique suffix keeps cut prefixes apart.
    prefix = f"sagemaker-{name}"[:S3_BUCKET_PREFIX_MAX - 1].rstrip("-") + "-"
    bucket = aws.s3.Bucket(f"{name}-lifecycle", bucket_prefix=prefix, force_destroy=True, opts=child)
    aws.s3.BucketPublicAccessBlock(f"{name}-lifecycle", bucket=bucket.id, block_public_acls=True,
                                   block_public_policy=True, ignore_public_acls=True, restrict_public_buckets=True,
                                   opts=child)
    aws.s3.BucketServerSideEncryptionConfiguration(
        f"{name}-lifecycle", bucket=bucket.id,
        rules=[{"apply_server_side_encryption_by_default": {"sse_algorithm": "AES256"}}], opts=child)
    prefix = f"lifecycle/{digest}"
    objects = [aws.s3.BucketObjectv2(f"{name}-lifecycle-{file_name}", bucket=bucket.id, key=f"{prefix}/{file_name}",
                                     content=content, opts=child)
               for file_name, content in files.items()]
    # The URI only resolves once the objects are there, so the cluster waits for them.
    return pulumi.Output.all(bucket.bucket, *[o.key for o in objects]).apply(
        lambda values: f"s3://{values[0]}/{prefix}/")
