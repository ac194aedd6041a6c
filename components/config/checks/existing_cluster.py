"""The checks of an existing cluster (``existingCluster``, config/existing_cluster.py): one way into it, and a stack
around it that makes no AWS resource."""

from __future__ import annotations

import re

from ..base import ConfigValueError
from ..existing_cluster import ExistingClusterConfig
from ..stack import StackConfig


def check_one_way_in(cluster: ExistingClusterConfig) -> None:
    """A kubeconfig file (and its context), or the endpoint and the certificate authority, not both."""
    by_endpoint = cluster.endpoint is not None or cluster.certificate_authority is not None
    if (cluster.kubeconfig is None) == (not by_endpoint):
        raise ConfigValueError(
            "the cluster is reached through a kubeconfig file or through its endpoint and certificate "
            "authority, exactly one of the two.",
            fix="set kubeconfig (and context), or endpoint and certificateAuthority.",
            path=("kubeconfig",), value=cluster.kubeconfig)
    if by_endpoint and (cluster.endpoint is None or cluster.certificate_authority is None):
        missing = "endpoint" if cluster.endpoint is None else "certificateAuthority"
        raise ConfigValueError(f"{missing} is missing: the kubeconfig needs both.",
                               fix=f"set {missing} (aws eks describe-cluster --name {cluster.name}).",
                               path=(missing,), value=None)
    if cluster.context is not None and cluster.kubeconfig is None:
        raise ConfigValueError("context picks a context of the kubeconfig file; no kubeconfig is set.",
                               fix="set kubeconfig, or remove context.", path=("context",), value=cluster.context)
    if cluster.certificate_authority is not None and not re.fullmatch(r"[A-Za-z0-9+/=\s]+",
                                                                      cluster.certificate_authority):
        raise ConfigValueError("certificateAuthority is base64 data, as describe-cluster returns it.",
                               fix="paste cluster.certificateAuthority.data as it is.",
                               path=("certificateAuthority",), value=cluster.certificate_authority[:20])


def check_nothing_made_in_aws(stack: StackConfig) -> None:
    """An existing cluster's stack makes no AWS resource: refuse each block that would make one, with where that
    part comes from instead."""
    if stack.existing_cluster is None:
        return
    if stack.eks is not None:
        raise ConfigValueError("eks makes a cluster and existingCluster adds to one that exists; a stack does "
                               "one of the two.", fix="remove eks, or existingCluster.",
                               path=("existingCluster",), value=stack.existing_cluster.name)
    if stack.network.existing_vpc is None:
        raise ConfigValueError(
            "an existing cluster runs in an existing VPC; trainstack checks its node groups' zones and pod "
            "addresses against the VPC's subnets.",
            fix="describe the cluster's VPC in network.existingVpc (vpcId, privateSubnets with id, zone, cidr).",
            path=("network", "existingVpc"), value=None)
    made_in_aws = {
        ("fsx",): (stack.fsx is not None, "creates a file system", "existingCluster.fileSystem (one that exists)"),
        ("hyperpod",): (stack.hyperpod is not None, "creates a HyperPod cluster", "a stack of its own"),
        ("datasets",): (bool(stack.datasets), "creates IAM roles and the Mountpoint for S3 add-on",
                        "a stack with an eks block"),
        ("checkpointBucket", "enabled"): (stack.checkpoint_bucket.enabled, "creates an S3 bucket",
                                          "checkpointBucket.enabled: false"),
        ("observability", "containerInsights"): (stack.observability.container_insights,
                                                 "installs an EKS add-on and its IAM role",
                                                 "observability.containerInsights: false"),
    }
    for path, (asked, what, instead) in made_in_aws.items():
        if asked:
            raise ConfigValueError(
                f"{'.'.join(path)} {what} in AWS; with existingCluster trainstack makes no AWS resource.",
                fix=f"use {instead}.", path=path, value=True)
    for index, group in enumerate(stack.node_groups):
        if group.autoscaler == "karpenter":
            raise ConfigValueError(
                f"node group '{group.name}' asks for a Karpenter pool, which needs Karpenter's IAM roles and "
                "interruption queue in AWS; an existing cluster's groups are described, not made.",
                fix="describe the group as it is (autoscaler: cluster-autoscaler, its nodes already there).",
                path=("nodeGroups", index, "autoscaler"), value="karpenter")
