"""S3Datasets: datasets streamed from S3 into training pods by Mountpoint for Amazon S3.

    Pod Identity role for the driver (kube-system/s3-csi-driver-sa), scoped to the named
                    buckets and prefixes: list and read; write new objects only where a
                    dataset is not read-only; never delete (none where the readers' pods
                    mount with their own credentials, below)
    EKS managed add-on aws-mountpoint-s3-csi-driver
    per dataset and job namespace: a static PersistentVolume (bucket, prefix, mount options,
                 NVMe cache) and the claim jobs mount it by; on a stack with teams, only in
                 the namespaces of the teams given the dataset, mounted with the pod's own
                 credentials (``authenticationSource: pod``)

Sources: EKS User Guide, "Mountpoint for Amazon S3 CSI driver" (add-on name, static
provisioning only); mountpoint-s3-csi-driver v2.3.0 docs/CONFIGURATION.md (driver-level
credentials with EKS Pod Identity on ``s3-csi-driver-sa``; static provisioning with
``storageClassName: ""`` and a ``claimRef``; a unique ``volumeHandle`` per volume) and
docs/CACHING.md (``metadata-ttl``; ``cache: emptyDir`` with ``cacheEmptyDirSizeLimit``);
Mountpoint's doc/CONFIGURATION.md (the IAM actions it needs, ``--read-only``,
``--prefix``, ``--region``).

Teams (``readers``): mountpoint-s3-csi-driver v2.3.0 docs/CONFIGURATION.md, "Pod-Level Credentials": a volume
with the ``volumeAttributes`` key ``authenticationSource: pod`` is mounted with the credentials of the mounting
pod's service account, by EKS Pod Identity or IRSA, and any driver-level credential source is then ignored. EKS
Pod Identity at pod level came with v2 (v1.15.0's page: "Only IRSA is supported with Pod-Level credentials"), and
v2.3.0's chart asks the kubelet for the pod's token with the ``pods.eks.amazonaws.com`` audience
(charts/aws-mountpoint-s3-csi-driver/templates/csidriver.yaml). ``stsRegion`` is read only for IRSA, so it is not
set. What a team's pods read is then its own role's policy (tenancy/data.py), and the driver has no role. The
add-on is left at EKS's default for the minor, so ``trainstack preflight nodes`` checks that the live driver requests
that audience, v2 or later (preflight/volume_drivers.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from ..cluster.iam import pod_identity_role
from ..config import ConfigError, ConfigIssue, DatasetConfig, validate
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
    readers: NotRequired[Mapping[str, Sequence[str]]]
    """Dataset name -> the namespaces of ``namespaces`` whose pods read it with their own credentials (a stack
    with teams: each team given the dataset, ``datasets[].teams``). Set, every dataset is mounted with the
    pod's credentials and has a volume and claim only in its readers' namespaces (none for a dataset not
    named), and the driver gets no role. Unset: every namespace, with the driver's role."""


class S3Datasets(pulumi.ComponentResource):
    """Mountpoint for S3 on EKS: the add-on, its Pod Identity role, a volume and claim per dataset."""

    claims: dict[str, str]
    """Claim name per dataset name."""

    def __init__(self, name: str, args: S3DatasetsArgs, opts: Optional[pulumi.ResourceOptions] = None):
        check_args(f"S3Datasets({name})", S3DatasetsArgs, args)
        datasets = [validate(DatasetConfig, d, prefix=f"S3Datasets({name})", at=("datasets", i))
                    for i, d in enumerate(args["datasets"])]
        readers = _readers(f"S3Datasets({name})", datasets, args["namespaces"], args.get("readers"))
        super().__init__(S3_DATASETS_COMPONENT, name, {}, opts)
        driver = aws.eks.Addon(
            f"{name}-driver", cluster_name=args["cluster_name"], addon_name=ADDON,
            resolve_conflicts_on_create="OVERWRITE", resolve_conflicts_on_update="OVERWRITE",
            opts=pulumi.ResourceOptions(parent=self, depends_on=[*args["depends_on"],
                                                                 *self._driver_role(name, args, datasets, readers)],
                                        custom_timeouts=pulumi.CustomTimeouts(create="20m", update="20m")))
        self.driver: aws.eks.Addon = driver
        """The Mountpoint for S3 CSI driver, an EKS add-on (with its Pod Identity role where it mounts with its
        own credentials)."""
        in_cluster = pulumi.ResourceOptions(parent=self, provider=args["provider"], depends_on=[driver])
        self.claims = {}
        for dataset in datasets:
            claim = f"{dataset.name}-dataset"
            for index, namespace in enumerate(args["namespaces"]):
                if readers is not None and namespace not in readers.get(dataset.name, ()):
                    continue
                # Named by the namespace's place among all job namespaces, so a team given or denied a
                # dataset later leaves the other teams' volumes where they are.
                resource = f"{name}-{dataset.name}" + ("" if index == 0 else f"-{namespace}")
                k8s.core.v1.PersistentVolume(
                    resource, metadata={"name": f"{claim}-{namespace}"},
                    spec=volume_spec(dataset, args["region"], claim, namespace, pod_credentials=readers is not None),
                    opts=in_cluster)
                k8s.core.v1.PersistentVolumeClaim(
                    resource, metadata={"name": claim, "namespace": namespace},
                    spec={"accessModes": [_access(dataset)], "storageClassName": "",
                          "volumeName": f"{claim}-{namespace}", "resources": {"requests": {"storage": "1Gi"}}},
                    opts=in_cluster)
            self.claims[dataset.name] = claim
        self.register_outputs({"claims": self.claims})

    def _driver_role(self, name: str, args: S3DatasetsArgs, datasets: Sequence[DatasetConfig],
                     readers: Optional[Mapping[str, Sequence[str]]]) -> list[pulumi.Resource]:
        """The driver's own Pod Identity role, where it mounts with its own credentials. Where every volume is
        mounted with the pod's (``readers``), the driver ignores any credentials of its own (CONFIGURATION.md,
        "Pod-Level Credentials") and signs no AWS call for itself (v2.3.0's only AWS SDK use besides the
        credential providers is IMDS's region, pkg/driver/node/credentialprovider/sts_region.go), so a role
        would only be a second, wider way into every team's datasets: it gets none."""
        if readers is not None:
            return []
        namespace, account = SERVICE_ACCOUNT
        return [pod_identity_role(f"{name}-driver", cluster_name=args["cluster_name"], namespace=namespace,
                                  service_account=account, parent=self, depends_on=args["depends_on"],
                                  policy=json.dumps(bucket_policy(datasets)))]


def _readers(component: str, datasets: Sequence[DatasetConfig], namespaces: Sequence[str],
             readers: Optional[Mapping[str, Sequence[str]]]) -> Optional[Mapping[str, Sequence[str]]]:
    """``readers`` checked before anything is registered: each key a dataset, each namespace one of
    ``namespaces``."""
    if readers is None:
        return None
    names = [d.name for d in datasets]
    issues = [ConfigIssue(f"{component}:readers.{key}", key, f"names no dataset (datasets: {', '.join(names)}).",
                          "name a dataset of datasets, or leave it out.") for key in readers if key not in names]
    issues += [ConfigIssue(f"{component}:readers.{key}", namespace,
                           f"namespace {namespace} is not one of namespaces ({', '.join(namespaces)}).",
                           "add it to namespaces, or name one of them.")
               for key, given in readers.items() for namespace in given if namespace not in namespaces]
    if issues:
        raise ConfigError(issues, f"{component} arguments")
    return readers


def _access(dataset: DatasetConfig) -> str:
    return "ReadOnlyMany" if dataset.read_only else "ReadWriteMany"


def volume_spec(dataset: DatasetConfig, region: str, claim: str, namespace: str, *,
                pod_credentials: bool = False) -> dict:
    """The PersistentVolume of one dataset. Capacity is required by Kubernetes and ignored by
    the driver (an S3 bucket has none). ``pod_credentials``: mounted with the credentials of the pod that
    mounts it (its service account's Pod Identity role), not the driver's."""
    options = [f"region {region}", f"metadata-ttl {dataset.metadata_ttl}"]
    if dataset.prefix:
        options.append(f"prefix {dataset.prefix}")
    if dataset.read_only:
        options.append("read-only")
    attributes = {"bucketName": dataset.bucket}
    if pod_credentials:
        attributes["authenticationSource"] = "pod"
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
