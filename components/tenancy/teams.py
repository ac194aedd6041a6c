"""Teams: each team of a shared cluster as a tenant, made real.

    per member       an EKS access entry putting the principal in the team's Kubernetes group
                     (none on a stack whose cluster was made elsewhere: its access entries are its owner's)
    per team         in its namespace (made with its claims or queue, labelled with its Pod Security level):
                     the Role and RoleBinding (rbac.py), the NetworkPolicy, ResourceQuota and LimitRange
                     (isolation.py), the ServiceAccount its jobs run as, and that account's Pod Identity role
                     (data.py: its checkpoint prefix, its datasets)
    viewers          an access entry each in the queue viewer group, bound to the cluster-wide ClusterRole
    once             the ValidatingAdmissionPolicy refusing a member's job that names no Kueue queue (admission.py)
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from typing import Any, NotRequired, Optional, TypedDict

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from ..cluster.iam import pod_identity_role
from ..config import DatasetConfig
from ..names import TEAMS_COMPONENT
from . import admission, isolation, rbac
from .data import team_policy
from .model import VIEWER_GROUP, Tenant


class TeamsArgs(TypedDict):
    """The stack's tenants and what their objects and roles stand on."""

    tenants: Sequence[Tenant]
    """The teams (``tenancy.tenants(config)``)."""
    provider: k8s.Provider
    """The cluster's Kubernetes provider."""
    depends_on: list[pulumi.Resource]
    """What makes the team namespaces (the FSx claims, Kueue's queues)."""
    cluster_name: NotRequired[pulumi.Input[str]]
    """The EKS cluster made by this stack: members get access entries and teams Pod Identity roles. Unset on a
    cluster made elsewhere, whose access entries and IAM are its owner's."""
    viewers: NotRequired[list[str]]
    """IAM principals that read every team's queue status (``scheduling.viewers``)."""
    scrapers: NotRequired[list[str]]
    """Namespaces whose pods connect to team pods to scrape metrics (Prometheus's, where the stack runs it)."""
    checkpoint_bucket: NotRequired[Optional[pulumi.Input[str]]]
    """The checkpoint bucket's name, whose ``teams/<team>/`` prefix each team writes."""
    kms_key_arn: NotRequired[Optional[str]]
    """The checkpoint bucket's customer KMS key, if it has one."""
    datasets: NotRequired[Sequence[DatasetConfig]]
    """The stack's datasets; each team's role reads those it is given."""


class Teams(pulumi.ComponentResource):
    """Every team's access, fences and data roles (docs/adr/0016-teams-as-tenants.md)."""

    access_entries: dict[str, aws.eks.AccessEntry]
    """Principal ARN -> its access entry (empty on a cluster made elsewhere)."""
    roles: dict[str, aws.eks.PodIdentityAssociation]
    """Team -> its service account's Pod Identity association (empty on a cluster made elsewhere)."""

    def __init__(self, name: str, args: TeamsArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TEAMS_COMPONENT, name, {}, opts)
        tenants = list(args["tenants"])
        cluster_name = args.get("cluster_name")
        in_cluster = pulumi.ResourceOptions(parent=self, provider=args["provider"], depends_on=args["depends_on"])
        scrapers = args.get("scrapers", [])
        self.access_entries = {}
        self.roles = {}
        for tenant in tenants:
            # Named by the namespace, not the team: the provider names each object of a ConfigGroup after the
            # group (``<group>:<namespace>/<name>``: pulumi-kubernetes provider/pkg/provider/yaml/v2 configgroup.go
            # and yaml.go @ f47bc2d6f199), so a group named by the team gave the same objects new URNs when the
            # team was renamed, which the engine cannot apply (review/same_object.py). An alias on the group would
            # not carry them: the engine passes a remote component's aliases to Construct in a field the pinned
            # provider's Go SDK (v3.215.0) does not read (pulumi/pulumi#21050, v3.217.0). Where a team is named as
            # its namespace (every shipped stack), the names are the ones it always had.
            k8s.yaml.v2.ConfigGroup(f"{name}-{tenant.namespace}", objs=team_objects(tenant, scrapers),
                                    opts=in_cluster)
            if cluster_name is None:
                continue
            policy = pulumi.Output.from_input(args.get("checkpoint_bucket")).apply(
                functools.partial(_policy_document, tenant, datasets=args.get("datasets", []),
                                  kms_key_arn=args.get("kms_key_arn")))
            self.roles[tenant.team] = pod_identity_role(
                f"{name}-{tenant.team}", cluster_name=cluster_name, namespace=tenant.namespace,
                service_account=tenant.service_account, parent=self, depends_on=[], policy=policy)
        if tenants:
            # Cluster-scoped, one for every team: it selects the team namespaces by their label.
            k8s.yaml.v2.ConfigGroup(f"{name}-queued-jobs", objs=admission.objects(), opts=in_cluster)
        viewers = args.get("viewers", [])
        if viewers:
            k8s.yaml.v2.ConfigGroup(f"{name}-queue-viewer", objs=rbac.viewer_objects(), opts=in_cluster)
        if cluster_name is not None:
            groups: dict[str, list[str]] = {}
            for tenant in tenants:
                for member in tenant.members:
                    groups.setdefault(member, []).append(tenant.group)
            for viewer in viewers:
                groups.setdefault(viewer, []).append(VIEWER_GROUP)
            for principal, kubernetes_groups in groups.items():
                # Named by the principal, so a member leaving touches only their own entry.
                digest = hashlib.sha256(principal.encode()).hexdigest()[:10]
                self.access_entries[principal] = aws.eks.AccessEntry(
                    f"{name}-access-{digest}", cluster_name=cluster_name, principal_arn=principal,
                    kubernetes_groups=kubernetes_groups, type="STANDARD", opts=pulumi.ResourceOptions(parent=self))
        self.register_outputs({"teams": [t.team for t in tenants]})


def team_objects(tenant: Tenant, scrapers: list[str]) -> list[dict[str, Any]]:
    """The Kubernetes objects of one team, all in its namespace: its Role and RoleBinding, NetworkPolicy,
    ResourceQuota, LimitRange and ServiceAccount."""
    return [*rbac.team_objects(tenant), isolation.network_policy(tenant, scrapers), *isolation.quota_objects(tenant),
            isolation.service_account(tenant)]


def _policy_document(tenant: Tenant, bucket: Optional[str], *, datasets: Sequence[DatasetConfig],
                     kms_key_arn: Optional[str]) -> str:
    return json.dumps(team_policy(tenant, checkpoint_bucket=bucket, datasets=datasets, kms_key_arn=kms_key_arn))
