"""An FSx for Lustre file system that exists (``existingCluster.fileSystem``), mounted on a cluster
trainstack did not make: the static volumes and claims of ``lustre_eks``, and nothing in AWS. The
file system is never created, changed or deleted here, so no change of this stack can lose its data;
the volumes' ``Retain`` keeps it mounted elsewhere intact when they go.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Optional

import pulumi
import pulumi_kubernetes as k8s

from ..config.existing_cluster import ExistingFileSystem
from .lustre_directories import check_platform_namespace
from .lustre_eks import lustre_claim


@dataclass(frozen=True)
class ExistingLustre:
    """What the outputs contract says of the file system (``stack_contract._storage``)."""

    claim_name: str
    claim_namespaces: list[str]
    mount_path: str
    dns_name: str
    mount_name: str
    file_system_id: str
    claims: list[k8s.core.v1.PersistentVolumeClaim]
    """What a job namespace's other objects wait for."""
    throughput_mbps: int


def existing_lustre(name: str, settings: ExistingFileSystem, *, namespaces: list[str], cluster_name: str,
                    provider: k8s.Provider, parent: pulumi.Resource,
                    namespace_labels: Optional[Mapping[str, Mapping[str, str]]] = None,
                    team_directories: Optional[Mapping[str, str]] = None) -> ExistingLustre:
    """A volume and claim per namespace jobs run in (the first ``settings.namespace``); a team's namespace
    (``team_directories``) mounts only its directory, which a Job in the platform's namespace makes
    (``lustre_directories``), as on a file system trainstack made."""
    check_platform_namespace("existingCluster.fileSystem.namespace, scheduling.teams[].namespace",
                             [settings.namespace, *namespaces], team_directories or {})
    claims = lustre_claim(name, file_system_id=settings.id, dns_name=settings.dns_name, mount_name=settings.mount_name,
                          capacity_gib=settings.storage_capacity_gib, claim_name=settings.claim_name,
                          namespaces=namespaces, cluster_name=cluster_name, provider=provider, parent=parent,
                          depends_on=[], install_driver=False, namespace_labels=namespace_labels,
                          team_directories=team_directories)
    return ExistingLustre(claim_name=settings.claim_name, claim_namespaces=namespaces, mount_path=settings.mount_path,
                          dns_name=settings.dns_name, mount_name=settings.mount_name, file_system_id=settings.id,
                          claims=claims, throughput_mbps=settings.throughput_mbps)
