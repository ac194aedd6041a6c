"""Persistent volumes for in-cluster state (Prometheus, etcd): the EBS CSI driver as the
EKS managed add-on, with IAM through Pod Identity, and an encrypted gp3 StorageClass. On a
cluster trainstack did not make (``existingCluster``) the driver is the cluster owner's: only
the StorageClass is added."""

from __future__ import annotations

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from ..catalog.managed_policies import EBS_CSI_DRIVER
from ..cluster.iam import pod_identity_role
from ..names import EBS_CSI_ADDON, EBS_CSI_PROVISIONER, GP3_STORAGE_CLASS

STORAGE_CLASS = GP3_STORAGE_CLASS
EBS_CSI_POLICY = EBS_CSI_DRIVER


def ebs_storage(name: str, *, cluster_name: str, provider: k8s.Provider, parent: pulumi.Resource,
                depends_on: list[pulumi.Resource], install_driver: bool = True) -> list[pulumi.Resource]:
    """Returns what PVC users wait for: the driver add-on (unless the cluster has its own) and the StorageClass."""
    if not install_driver:
        return [_gp3(name, provider=provider, parent=parent, depends_on=depends_on)]
    association = pod_identity_role(
        f"{name}-ebs-csi", cluster_name=cluster_name, namespace="kube-system", service_account="ebs-csi-controller-sa",
        managed_policy_arns=[EBS_CSI_POLICY], parent=parent, depends_on=depends_on)
    driver = aws.eks.Addon(
        f"{name}-ebs-csi", cluster_name=cluster_name, addon_name=EBS_CSI_ADDON,
        resolve_conflicts_on_create="OVERWRITE", resolve_conflicts_on_update="OVERWRITE",
        opts=pulumi.ResourceOptions(parent=parent, depends_on=[association, *depends_on],
                                    custom_timeouts=pulumi.CustomTimeouts(create="20m", update="20m")))
    return [driver, _gp3(name, provider=provider, parent=parent, depends_on=[driver])]


def _gp3(name: str, *, provider: k8s.Provider, parent: pulumi.Resource,
         depends_on: list[pulumi.Resource]) -> k8s.storage.v1.StorageClass:
    return k8s.storage.v1.StorageClass(
        f"{name}-gp3", metadata={"name": STORAGE_CLASS}, provisioner=EBS_CSI_PROVISIONER,
        parameters={"type": "gp3", "encrypted": "true"}, volume_binding_mode="WaitForFirstConsumer",
        reclaim_policy="Retain", allow_volume_expansion=True,
        opts=pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=depends_on))
