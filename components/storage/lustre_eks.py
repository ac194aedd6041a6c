"""FSx for Lustre on EKS: the CSI driver and a claim jobs mount by name.

The file system is provisioned statically (it already exists, made by
LustreFileSystem), so the driver makes no FSx API calls and gets no IAM role:
the add-on is installed without a Pod Identity association. The
PersistentVolume names the file system by id, DNS name and mount name; ``flock``
lets training jobs lock files across nodes; ``Retain`` keeps the data when the
volume object goes.

EFA: the driver has no EFA option for a statically provisioned volume. ``efaEnabled`` is a
StorageClass parameter, read only when the driver creates a file system (dynamic provisioning;
kubernetes-sigs/aws-fsx-csi-driver docs/options.md@046f3682, "PERSISTENT_2 Metadata
Configuration"); a static volume's context is ``dnsname`` and ``mountname`` alone, mounted as
``dnsname@tcp:/mountname`` (pkg/driver/node.go, NodePublishVolume). The transport is the node's
choice: LNet on the EFA devices with the UDSP rule that prefers them (nodegroups.lustre_efa_client,
applied at boot) sends the traffic over EFA although the mount source says ``tcp``.

A claim is namespaced and a volume binds one claim: each namespace jobs run in (the ``fsx.namespace``
and every team's, ``StackConfig.job_namespaces``) gets its own volume of the same file system and
its claim. Each volume has its own ``volumeHandle`` (``<file system id>::<volume name>``, the first
namespace's root volume the bare id it always had): the kubelet keys a CSI volume by its handle, and the
driver uses the handle only to key its in-flight operations with the target path
(pkg/driver/node.go@01a89278, NodePublishVolume), so volumes of one file system mount side by side
(lustre_directories.volume_handle says why and cites both).

With teams, a team's volume mounts only its directory (``teams/<team>``), pinned to its claim; the directories,
and the one claim of the root that makes them, are ``lustre_directories``'.

Intelligent-Tiering has no provisioned capacity; the volume's ``capacity`` is then a nominal
figure the driver does not enforce for static volumes (docs/options.md: a capacity given for
Intelligent-Tiering "is ignored").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from . import lustre_directories

CSI_DRIVER = lustre_directories.CSI_DRIVER


def _volume(claim_name: str, namespace: str, suffix: str, directory: Optional[str], *, first: bool,
            file_system_id: pulumi.Input[str], dns_name: pulumi.Input[str], mount_name: pulumi.Input[str],
            capacity_gib: int) -> tuple[str, dict[str, Any]]:
    """The name and spec of one namespace's volume: the root of the file system, or a team's directory."""
    volume_name = f"{claim_name}{suffix}-volume"
    if directory is not None:
        volume_name = lustre_directories.team_volume_name(claim_name, directory)
    # Only the first namespace's root volume keeps the bare file system id as its handle (what a stack without
    # teams always had, so it is not replaced); every other handle is unique (lustre_directories.volume_handle).
    spec = lustre_directories.volume_spec(
        file_system_id=file_system_id, dns_name=dns_name, capacity_gib=capacity_gib,
        mount_name=mount_name if directory is None else pulumi.Output.concat(mount_name, "/", directory),
        volume_name=None if first and directory is None else volume_name)
    if directory is not None:
        # Only this namespace's claim can bind it (Kubernetes docs, Persistent Volumes, "Reserving a
        # PersistentVolume"); a root volume of a namespace no team has keeps what it had.
        spec["claimRef"] = {"namespace": namespace, "name": claim_name}
    return volume_name, spec


def lustre_claim(name: str, *, file_system_id: pulumi.Input[str], dns_name: pulumi.Input[str],
                 mount_name: pulumi.Input[str], capacity_gib: int, claim_name: str, namespaces: list[str],
                 cluster_name: str, provider: k8s.Provider, parent: pulumi.Resource,
                 depends_on: list[pulumi.Resource], install_driver: bool = True,
                 namespace_labels: Optional[Mapping[str, Mapping[str, str]]] = None,
                 team_directories: Optional[Mapping[str, str]] = None
                 ) -> list[k8s.core.v1.PersistentVolumeClaim]:
    """The CSI driver (unless the cluster's owner runs it: ``existingCluster``), then per namespace (the
    first is ``fsx.namespace``) a volume and the claim ``claim_name`` bound to it; the first keeps the
    names it always had. ``namespace_labels``: the labels of each namespace made here (a team's Pod Security
    level: tenancy/isolation.py). ``team_directories``: a team's namespace and its directory under the root
    (``teams/<team>``), which its volume mounts as its root, pinned to its claim (``lustre_directories``); the
    platform's Job makes the directories first."""
    directories = dict(team_directories or {})
    if install_driver:
        depends_on = [aws.eks.Addon(
            f"{name}-csi", cluster_name=cluster_name, addon_name="aws-fsx-csi-driver",
            resolve_conflicts_on_create="OVERWRITE", resolve_conflicts_on_update="OVERWRITE",
            opts=pulumi.ResourceOptions(parent=parent, depends_on=depends_on,
                                        custom_timeouts=pulumi.CustomTimeouts(create="20m", update="20m")))]
    in_cluster = pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=depends_on)
    made: list[pulumi.Resource] = []
    if directories:
        made = [lustre_directories.team_directories(
            name, file_system_id=file_system_id, dns_name=dns_name, mount_name=mount_name, capacity_gib=capacity_gib,
            claim_name=claim_name, directories=sorted(set(directories.values())), provider=provider, parent=parent,
            depends_on=depends_on)]
        pulumi.log.warn(lustre_directories.seen_by_teams(directories, namespaces, claim_name), resource=parent)
    claims = []
    for index, namespace in enumerate(namespaces):
        suffix = "" if index == 0 else f"-{namespace}"
        holder: list[pulumi.Resource] = []
        if namespace not in ("default", "kube-system"):
            labels = dict((namespace_labels or {}).get(namespace, {}))
            holder = [k8s.core.v1.Namespace(f"{name}-namespace{suffix}",
                                            metadata={"name": namespace, **({"labels": labels} if labels else {})},
                                            opts=in_cluster)]
        directory = directories.get(namespace)
        volume_name, spec = _volume(claim_name, namespace, suffix, directory, first=index == 0,
                                    file_system_id=file_system_id, dns_name=dns_name, mount_name=mount_name,
                                    capacity_gib=capacity_gib)
        volume = k8s.core.v1.PersistentVolume(
            f"{name}-pv{suffix}", metadata={"name": volume_name}, spec=spec,
            opts=in_cluster if directory is None else pulumi.ResourceOptions(
                parent=parent, provider=provider, depends_on=[*depends_on, *made]))
        claims.append(k8s.core.v1.PersistentVolumeClaim(
            f"{name}-pvc{suffix}",
            metadata={"name": claim_name, "namespace": namespace},
            spec=lustre_directories.claim_spec(volume.metadata["name"], capacity_gib),
            # The claim is made in its namespace, so after it (the engine runs independent steps at once).
            opts=pulumi.ResourceOptions.merge(in_cluster, pulumi.ResourceOptions(depends_on=holder))))
    return claims
