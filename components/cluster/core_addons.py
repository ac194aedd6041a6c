"""The core EKS managed add-ons, as our own ``aws.eks.Addon`` resources so the plan
and the policies see them (pulumi-eks's own add-ons are turned off).

Order matters: the VPC CNI, kube-proxy and the Pod Identity agent go on with the
control plane (nodes need the CNI to become Ready); CoreDNS waits for the system
nodes, since an add-on whose pods cannot run stays CREATING until it times out.
"""

from __future__ import annotations

from typing import Optional

import pulumi
import pulumi_aws as aws

from ..config import AddonVersions

BEFORE_NODES = ("vpc-cni", "kube-proxy", "eks-pod-identity-agent")
AFTER_NODES = ("coredns",)


def core_addon(name: str, addon: str, *, cluster_name: pulumi.Input[str], versions: AddonVersions,
               parent: pulumi.Resource, depends_on: list[pulumi.Resource],
               configuration: Optional[str] = None) -> aws.eks.Addon:
    """An EKS managed add-on at the version ``eks.addonVersions`` pins (EKS's default when unset),
    with ``configuration`` (a JSON document) as its configuration values."""
    version: Optional[str] = getattr(versions, addon.replace("-", "_"))
    return aws.eks.Addon(
        f"{name}-{addon}", cluster_name=cluster_name, addon_name=addon, addon_version=version,
        configuration_values=configuration,
        resolve_conflicts_on_create="OVERWRITE", resolve_conflicts_on_update="OVERWRITE",
        opts=pulumi.ResourceOptions(parent=parent, depends_on=depends_on,
                                    custom_timeouts=pulumi.CustomTimeouts(create="20m", update="20m")))
