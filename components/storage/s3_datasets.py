"""S3Datasets: datasets streamed from S3 into training pods by Mountpoint for Amazon S3.

    Pod Identity role for the driver (kube-system/s3-csi-driver-sa), scoped to the named
                    buckets and prefixes: list and read; write new objects only where a
                    dataset is not read-only; never delete
    EKS managed add-on aws-mountpoint-s3-csi-driver
    per dataset and job namespace: a static PersistentVolume (bucket, prefix, mount options,
                 NVMe cache) and the claim jobs mount it by

Sources: EKS User Guide, "Mountpoint for Amazon S3 CSI driver" (add-on name, static
provisioning only); mountpoint-s3-csi-driver v2.3.0 docs/CONFIGURATION.md (driver-level
credentials with EKS Pod Identity on ``s3-csi-driver-sa``; static provisioning with
``storageClassName: ""`` and a ``claimRef``; a unique ``volumeHandle`` per volume) and
docs/CACHING.md (``metadata-ttl``; ``cache: emptyDir`` with ``cacheEmptyDirSizeLimit``);
Mountpoint's doc/CONFIGURATION.md (the IAM actions it needs, ``--read-only``,
``--prefix``, ``--region``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Optional, TypedDict

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from ..cluster.iam import pod_identity_role
from ..config import DatasetConfig, validate
from ..config.component_args import check_args
from ..names import S3_DATASETS_COMPONENT

CSI_DRIVER = "s3.csi.aws.com"
ADDON = "aws-mountpoint-s3-csi-driver"
SERVICE_ACCOUNT = ("kube-system", "s3-csi-driver-sa")
READ_ACTIONS = ("s3:GetObject",)
# Mountpoint writes new objects by multipart upload; deletion (allow-delete) is never granted,
# so a job cannot remove the data it trains on.
WRITE_ACTIONS = ("s3:PutObject", "s3:AbortMultipartUpload")


class S3DatasetsArgs(TypedDict):
    """The ``datasets`` config list and the EKS cluster that mounts them."""

    datasets: Sequence[DatasetConfig | dict]
    """The ``datasets`` config list."""
    region: str
    """The stack's region (Mountpoint's ``--region``)."""
    namespaces: list[str]
    """Where the claims go: every namespace jobs run in (the FSx claim's first, then each team's);
    a claim is namespaced, so each gets its own volume and claim."""
    cluster_name: pulumi.Input[str]
    """The EKS cluster that gets the Mountpoint for S3 add-on and its Pod Identity association."""
    provider: k8s.Provider
    """The cluster's Kubernetes provider."""
    depends_on: list[pulumi.Resource]
    """What must exist before the add-on can become healthy (nodes)."""


class S3Datasets(pulumi.ComponentResource):
    """Mountpoint for S3 on EKS: the add-on, its Pod Identity role, a volume and claim per dataset."""

    claims: dict[str, str]
    """Claim name per dataset name."""

    def __init__(self, name: str, args: S3DatasetsArgs, opts: Optional[pulumi.ResourceOptions] = None):
        check_args(f"S3Datasets({name})", S3DatasetsArgs, args)
        datasets = [validate(DatasetConfig, d, prefix=f"S3Datasets({name}).datasets[{i}]")
                    for i, d in enumerate(args["datasets"])]
        super().__init__(S3_DATASETS_COMPONENT, name, {}, opts)
        namespace, account = SERVICE_ACCOUNT
        identity = pod_identity_role(f"{name}-driver", cluster_name=args["cluster_name"], namespace=namespace,
                                     service_account=account, parent=self, depends_on=args["depends_on"],
                                     policy=json.dumps(bucket_policy(datasets)))
        driver = aws.eks.Addon(
            f"{name}-driver", cluster_name=args["cluster_name"], addon_name=ADDON,
            resolve_conflicts_on_create="OVERWRITE", resolve_conflicts_on_update="OVERWRITE",
            opts=pulumi.ResourceOptions(parent=self, depends_on=[*args["depends_on"], identity],
                                        custom_timeouts=pulumi.CustomTimeouts(create="20m", update="20m")))
        self.driver: aws.eks.Addon = driver
        """The Mountpoint for S3 CSI driver, an EKS add-on with its Pod Identity role."""
        in_cluster = pulumi.ResourceOptions(parent=self, provider=args["provider"], depends_on=[driver])
        self.claims = {}
        for dataset in datasets:
            claim = f"{dataset.name}-dataset"
            for index, namespace in enumerate(args["namespaces"]):
                resource = f"{name}-{dataset.name}" + ("" if index == 0 else f"-{namespace}")
                k8s.core.v1.PersistentVolume(resource, metadata={"name": f"{claim}-{namespace}"},
                                             spec=volume_spec(dataset, args["region"], claim, namespace),
                                             opts=in_cluster)
                k8s.core.v1.PersistentVolumeClaim(
                    resource, metadata={"name": claim, "namespace": namespace},
                    spec={"accessModes": [_access(dataset)], "storageClassName": "",
                          "volumeName": f"{claim}-{namespace}", "resources": {"requests": {"storage": "1Gi"}}},
                    opts=in_cluster)
            self.claims[dataset.name] = claim
        self.register_outputs({"claims": self.claims})


def _access(dataset: DatasetConfig) -> str:
    return "ReadOnlyMany" if dataset.read_only else "ReadWriteMany"


def volume_spec(dataset: DatasetConfig, region: str, claim: str, namespace: str) -> dict:
    """The PersistentVolume of one dataset. Capacity is required by Kubernetes and ignored by
    the driver (an S3 bucket has none)."""
    options = [f"region {region}", f"metadata-ttl {dataset.metadata_ttl}"]
    if dataset.prefix:
        options.append(f"prefix {dataset.prefix}")
    if dataset.read_only:
        options.append("read-only")
    attributes = {"bucketName": dataset.bucket}
    if dataset.cache_gib is not None:
        # emptyDir lives on the kubelet's disk, which nodeadm puts on the RAID0 of the instance
        # store (nodegroups.launch_template); the limit keeps Mountpoint's pod from being evicted.
        attributes.update(cache="emptyDir", cacheEmptyDirSizeLimit=f"{dataset.cache_gib}Gi")
    return {
        "capacity": {"storage": "1Gi"},
        "accessModes": [_access(dataset)],
        "persistentVolumeReclaimPolicy": "Retain",
        "storageClassName": "",
        "claimRef": {"namespace": namespace, "name": claim},
        "mountOptions": options,
        "csi": {"driver": CSI_DRIVER, "volumeHandle": f"{claim}-{namespace}", "volumeAttributes": attributes},
    }


def bucket_policy(datasets: Sequence[DatasetConfig]) -> dict:
    """List each bucket (only under its prefix where one is set), read its objects, write only where a
    dataset is not read-only (Mountpoint's doc/CONFIGURATION.md, IAM permissions)."""
    statements = []
    for dataset in datasets:
        bucket = f"arn:aws:s3:::{dataset.bucket}"
        listing: dict = {"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": [bucket]}
        if dataset.prefix:
            listing["Condition"] = {"StringLike": {"s3:prefix": [f"{dataset.prefix}*"]}}
        actions = [*READ_ACTIONS, *(() if dataset.read_only else WRITE_ACTIONS)]
        statements += [listing, {"Effect": "Allow", "Action": actions,
                                 "Resource": [f"{bucket}/{dataset.prefix or ''}*"]}]
    return {"Version": "2012-10-17", "Statement": statements}
