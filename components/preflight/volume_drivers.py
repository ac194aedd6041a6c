"""The volume check of ``trainstack preflight nodes``: does the cluster run the CSI driver each of the stack's claims
needs?

A claim of a StorageClass is provisioned by the CSI driver the class names as its ``provisioner``; without that
driver the claim stays Pending, and so does every pod that mounts it. A CSIDriver object (``storage.k8s.io/v1``)
describes a CSI driver deployed on the cluster and is named as the driver (Kubernetes API reference, https://kubernetes.io/docs/reference/kubernetes-api/config-and-storage-resources/
csi-driver-v1/). A driver need not make one, but the Amazon EBS CSI driver's install makes ``ebs.csi.aws.com``
(names.EBS_CSI_PROVISIONER; its chart's csidriver.yaml, left out only for a node-only install): no such object, no
EBS driver to provision a claim. A stack that installs etcd (``operators.etcd``) gives it a claim of
``trainstack-gp3``, an EBS class. On a cluster trainstack makes, the stack installs the EBS CSI add-on itself; on one
made elsewhere (``existingCluster``) the driver is the cluster owner's, and trainstack adds the class alone
(addons/persistent_volumes.py). Without the driver etcd never starts, and every job launched with ``--rendezvous
etcd`` fails at rendezvous.

The class is read from the cluster where it is there (its provisioner as deployed); before ``trainstack up`` has made
it, the provisioner is the one the stack will give it. Reads only (StorageClasses and CSIDrivers); changes nothing.

Datasets a team's pods mount with their own credentials (storage/s3_datasets.py, ``authenticationSource: pod``) need
the Mountpoint for S3 CSI driver at v2 or later: its CSIDriver asks the kubelet for each pod's service account token
with the EKS Pod Identity audience ``pods.eks.amazonaws.com`` (awslabs/mountpoint-s3-csi-driver
charts/aws-mountpoint-s3-csi-driver/templates/csidriver.yaml@v2.0.0, ``tokenRequests``). v1.15.0's chart asks for
that audience only with its experimental pod mounter turned on (same file @v1.15.0), and its docs say only IRSA
works with pod-level credentials. Without it a team's dataset mount has no credentials the pod's role gives. The
add-on is unpinned (EKS's default for the minor, docs/addons.md), and a cluster made earlier keeps the version it was
given, so the check reads the capability itself from the live CSIDriver, on any cluster, trainstack's or not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from ..kube.client import Cluster
from ..names import EBS_CSI_ADDON, EBS_CSI_PROVISIONER, GP3_STORAGE_CLASS
from ..outputs import StackOutputs
from .check import Check

CHECK = "volume CSI driver"
STORAGE_API = "storage.k8s.io/v1"
S3_CSI_DRIVER = "s3.csi.aws.com"
S3_CSI_ADDON = "aws-mountpoint-s3-csi-driver"
POD_IDENTITY_AUDIENCE = "pods.eks.amazonaws.com"
"""The audience of the token EKS Pod Identity exchanges (EKS User Guide, pod-id-how-it-works)."""


@dataclass(frozen=True)
class VolumeNeed:
    """A claim the stack makes, the StorageClass it names, and the provisioner the stack gives that class."""

    user: str
    claim: str
    storage_class: str
    """Empty for a static volume: no class, the driver named by ``provisioner`` mounts it."""
    provisioner: str
    audience: Optional[str] = None
    """A token audience the driver's CSIDriver must request for the pod (``spec.tokenRequests``)."""


def volume_needs(outputs: StackOutputs) -> list[VolumeNeed]:
    """The claims of ``outputs``' stack whose class a CSI driver must provision: etcd's, where the stack runs it
    (its StatefulSet's claim template ``data``, addons/operators.py); and the datasets teams mount with their own
    credentials (a dataset with ``namespaces``: a stack with teams), whose driver must request the Pod Identity
    token."""
    needs = []
    if outputs.operators.etcd_endpoint:
        needs.append(VolumeNeed("etcd (the elastic rendezvous of --rendezvous etcd)", "etcd/data-etcd-0",
                                GP3_STORAGE_CLASS, EBS_CSI_PROVISIONER))
    claims = sorted(f"{namespace}/{d.claim_name}" for d in outputs.datasets for namespace in d.namespaces)
    if claims:
        needs.append(VolumeNeed("datasets mounted with each team's own credentials", ", ".join(claims), "",
                                S3_CSI_DRIVER, audience=POD_IDENTITY_AUDIENCE))
    return needs


def subject(need: VolumeNeed) -> str:
    if not need.storage_class:
        return f"{need.claim} (static volumes of {need.provisioner})"
    return f"{need.claim} (StorageClass {need.storage_class})"


def read_volume_drivers(cluster: Cluster, needs: list[VolumeNeed]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The cluster's StorageClasses and CSIDrivers, one list each (none read when nothing needs them)."""
    if not needs:
        return [], []
    return cluster.list(STORAGE_API, "StorageClass"), cluster.list(STORAGE_API, "CSIDriver")


def check_volume_drivers(needs: list[VolumeNeed], storage_classes: list[dict[str, Any]],
                         csi_drivers: list[dict[str, Any]], cluster_name: Optional[str]) -> list[Check]:
    """One check per claim: pass when a CSIDriver named as its class's provisioner is registered, fail naming the
    class, the provisioner, the drivers the cluster has and how to install the missing one."""
    classes = {_name(c): c for c in storage_classes}
    drivers = sorted(_name(d) for d in csi_drivers)
    by_name = {_name(d): d for d in csi_drivers}
    return [_token(need, by_name.get(need.provisioner), drivers, cluster_name) if need.audience is not None
            else _claim(need, classes.get(need.storage_class), drivers, cluster_name) for need in needs]


def _token(need: VolumeNeed, driver: Optional[Mapping[str, Any]], drivers: list[str],
           cluster_name: Optional[str]) -> Check:
    """A static volume mounted with the pod's credentials: its driver's CSIDriver must request ``need.audience``."""
    cluster = cluster_name or "<cluster>"
    update = (f"update the EKS add-on {S3_CSI_ADDON} to v2 or later: `aws eks describe-addon-versions --addon-name "
              f"{S3_CSI_ADDON} --kubernetes-version <minor>` lists them, then `aws eks update-addon --cluster-name "
              f"{cluster} --addon-name {S3_CSI_ADDON} --addon-version <v2 version>`")
    if driver is None:
        has = ", ".join(drivers) if drivers else "none"
        return Check(CHECK, subject(need), "fail",
                     f"the cluster has no CSIDriver {need.provisioner} (it has: {has}): the {need.user} cannot mount. "
                     f"Fix: {update.replace('update the', 'install the')}")
    audiences = sorted(str(r.get("audience")) for r in (driver.get("spec") or {}).get("tokenRequests") or [])
    if need.audience in audiences:
        return Check(CHECK, subject(need), "pass",
                     f"CSIDriver {need.provisioner} requests the pod's token for {need.audience}")
    return Check(CHECK, subject(need), "fail",
                 f"CSIDriver {need.provisioner} requests the pod's token for {', '.join(audiences) or 'no audience'}, "
                 f"not {need.audience} (EKS Pod Identity): a Mountpoint for S3 driver older than v2, which cannot "
                 f"mount the {need.user}. Fix: {update}")


def _claim(need: VolumeNeed, live_class: Optional[Mapping[str, Any]], drivers: list[str],
           cluster_name: Optional[str]) -> Check:
    if live_class is not None:
        provisioner = str(live_class.get("provisioner"))
        named = f"StorageClass {need.storage_class} names provisioner {provisioner}"
    else:
        provisioner = need.provisioner
        named = (f"StorageClass {need.storage_class} (not in the cluster yet: the stack makes it at up) will name "
                 f"provisioner {provisioner}")
    if provisioner in drivers:
        return Check(CHECK, subject(need), "pass", f"{named}, and CSIDriver {provisioner} is registered")
    has = ", ".join(drivers) if drivers else "none"
    return Check(CHECK, subject(need), "fail",
                 f"{named}, and the cluster has no CSIDriver {provisioner} (it has: {has}): the claim of {need.user} "
                 f"stays Pending, and so does its pod. Fix: {_install(provisioner, cluster_name)}")


def _install(provisioner: str, cluster_name: Optional[str]) -> str:
    if provisioner != EBS_CSI_PROVISIONER:
        return f"install the CSI driver {provisioner} on the cluster, or turn off operators.etcd"
    cluster = cluster_name or "<cluster>"
    return (f"install the Amazon EBS CSI driver as the EKS add-on {EBS_CSI_ADDON}, with an IAM role that holds "
            f"AmazonEBSCSIDriverPolicy: `aws eks create-addon --cluster-name {cluster} --addon-name {EBS_CSI_ADDON} "
            "--service-account-role-arn <role ARN>` (https://docs.aws.amazon.com/eks/latest/userguide/ebs-csi.html); "
            "or turn off operators.etcd")


def _name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name"))
