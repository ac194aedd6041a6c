"""Each team's directory on FSx for Lustre, and the one claim that still mounts the file system's root.

A team's claim mounts ``teams/<team>`` as its root (``lustre_eks``): the FSx CSI driver mounts a static volume as
``dnsname@tcp:/mountname`` with the ``mountname`` attribute as written (kubernetes-sigs/aws-fsx-csi-driver
pkg/driver/node.go@v1.9.0 (0267bab6), NodePublishVolume), so ``<mount name>/teams/<team>`` is a Lustre fileset mount
of that directory (FSx for Lustre User Guide, "Mounting specific filesets",
https://docs.aws.amazon.com/fsx/latest/LustreGuide/mounting-from-fileset.html). A pod sees nothing above it: no
``..`` leaves a mount's root. The directory must exist before the mount, or the mount fails (the driver makes none:
kubernetes-sigs/aws-fsx-csi-driver issue #247, the "several PVs at different mountnames" way it describes).

So the platform makes them: a one-shot Job in its own namespace (``PLATFORM_NAMESPACE``, no team's), which mounts the
root through its own volume and claim, pinned to each other, and makes every team's directory. The teams' volumes
are made after it, but `pulumi up` does not wait for it to complete (``pulumi.com/skipAwait``: the deploy would
otherwise hang on a cluster whose system nodes are not up yet, as the real engine's deploy tests found): until the
Job has run, a team pod's mount of its directory fails and the kubelet retries it, so the pod starts once the
directory is there.

What else could reach the root, and why it cannot:

* another volume: every volume a team could bind is pinned to its claim (``claimRef``: Kubernetes docs, Persistent
  Volumes, "Reserving a PersistentVolume"), volumes are cluster-scoped and a team's Role is namespaced;
* an inline CSI volume in a pod: the driver's CSIDriver names no ``volumeLifecycleModes``
  (deploy/kubernetes/base/csidriver.yaml and charts/aws-fsx-csi-driver/templates/csidriver.yaml @v1.9.0), which
  Kubernetes reads as ``Persistent`` only (storage.k8s.io/v1 CSIDriverSpec), so the kubelet refuses an ephemeral use;
* a mount from inside a pod: Pod Security ``baseline`` on every team namespace forbids privileged containers,
  hostPath and CAP_SYS_ADMIN (Kubernetes docs, Pod Security Standards, "Baseline").

Mode 0770, owner root: the launchers' pods run as root (tenancy/model.py, POD_SECURITY_LEVEL says why), so a team's own
jobs write there; other clients that mount the root (HyperPod's Slurm nodes, a node's own non-root users) are kept out
of a team's files. A team that runs non-root pods changes its directory's owner from a root pod of its own: the Job
makes a directory only when it is missing (``mkdir -p``), so it never resets what a team set.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Mapping
from typing import Any, Optional

import pulumi
import pulumi_kubernetes as k8s

from ..cluster.system_nodes import SYSTEM_LABELS
from ..config import ConfigError, ConfigIssue

CSI_DRIVER = "fsx.csi.aws.com"
HANDLE_SEPARATOR = "::"
"""Between the file system id and the volume's name in a ``volumeHandle`` (``volume_handle``): no FSx id holds it."""
PLATFORM_NAMESPACE = "trainstack-system"
"""The platform's own namespace: no team's Role reaches it."""
DIRECTORIES_JOB = "fsx-team-directories"
DIRECTORY_MODE = "0770"
PARENT_MODE = "0755"
"""``teams/`` itself: every client that mounts the root may list the teams, not read them."""
ROOT_MOUNT = "/fsx"
"""Where the Job mounts the file system's root."""
SHELL_IMAGE = "registry.k8s.io/e2e-test-images/busybox:1.36.1-1"
"""A shell and mkdir, from the registry the stack already pulls kubectl from; Kubernetes' own e2e manifests run this
tag at v1.35.4 (tests/catalog/test_pinned_images.py reads it there)."""
POD_SECURITY = {"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/warn": "restricted",
                "pod-security.kubernetes.io/audit": "restricted"}
"""``baseline``, not ``restricted``: the Job runs as root (runAsUser: 0), because the file system's root directory is
root's and only its owner may make a directory in it; ``restricted`` requires runAsNonRoot. Everything else
``restricted`` asks of a container the Job does (no privilege escalation, every capability dropped, RuntimeDefault
seccomp)."""


def root_volume_name(claim_name: str) -> str:
    return f"{claim_name}-{PLATFORM_NAMESPACE}-volume"


def team_volume_name(claim_name: str, directory: str) -> str:
    """A team's volume is a new one, not the namespace's old volume changed: ``spec.csi`` cannot change in place,
    and a volume of the same name would be deleted first, which waits for its bound claim forever (the
    ``kubernetes.io/pv-protection`` finalizer). A new name replaces the claim too (``spec.volumeName``), which goes
    once no pod uses it."""
    return f"{claim_name}-{directory.replace('/', '-')}-volume"


def directories_command(directories: list[str]) -> list[str]:
    """The Job's command: make each directory (``teams/<team>``, mode 0770) and its parents (0755) under the root,
    which is the last argument, only where missing."""
    parents = sorted({posixpath.dirname(d) for d in directories} - {""})
    script = "set -eu; cd \"$1\""
    if parents:
        script += f"; mkdir -p -m {PARENT_MODE} " + " ".join(shlex.quote(p) for p in parents)
    script += f"; mkdir -p -m {DIRECTORY_MODE} " + " ".join(shlex.quote(d) for d in sorted(directories))
    return ["/bin/sh", "-c", script, DIRECTORIES_JOB, ROOT_MOUNT]


def check_platform_namespace(where: str, namespaces: list[str], directories: Mapping[str, str]) -> None:
    """The platform namespace is no job namespace: a team there would share the claim of the file system's root."""
    if directories and PLATFORM_NAMESPACE in namespaces:
        raise ConfigError([ConfigIssue(
            f"{where}", PLATFORM_NAMESPACE,
            f"'{PLATFORM_NAMESPACE}' is the platform's namespace: its claim mounts the FSx file system's root to make "
            "each team's directory, so no team's or the file system's own claim may be there.",
            "give the team (scheduling.teams[].namespace) or the file system (fsx.namespace, "
            "existingCluster.fileSystem.namespace) another namespace.")], where)


def volume_handle(file_system_id: pulumi.Input[str], volume_name: Optional[str]) -> pulumi.Input[str]:
    """The volume's ``volumeHandle``: the file system's id for the one volume that mounts the root for the stack's
    first job namespace (``volume_name`` None, the handle it always had), ``<file system id>::<volume name>`` for
    every other volume of the file system, so no two volumes share one.

    Why unique: the kubelet names a persistent CSI volume ``<driver>^<volumeHandle>`` (kubernetes/kubernetes
    pkg/volume/csi/csi_plugin.go@v1.35.4, GetVolumeName) and keys its desired and actual state by that name,
    because such a volume is device-mountable (CanDeviceMount; pkg/kubelet/volumemanager/cache/
    desired_state_of_world.go, AddPodToVolume). Two volumes with one handle on one node are one volume to it: a pod
    that mounts both never starts (kubernetes/kubernetes#91556, aws-fsx-csi-driver#328). The Kubernetes docs say
    the handle "uniquely identifies the volume" (Persistent Volumes, "CSI").

    Why the driver still mounts it: the FSx CSI driver's node plugin reads the handle only to refuse an empty one
    and to key its in-flight operations with the target path; the mount source comes from the volume context
    alone (kubernetes-sigs/aws-fsx-csi-driver pkg/driver/node.go@v1.9.0 (0267bab6), NodePublishVolume and
    NodeUnpublishVolume; unchanged from v1.5.0 to main@5b227125). Its controller reads a handle as a file system id
    only in DeleteVolume, ValidateVolumeCapabilities and ControllerExpandVolume (pkg/driver/controller.go): a
    ``Retain`` volume is never deleted, its CSIDriver needs no attach (``attachRequired: false``), and a volume of
    no StorageClass cannot be expanded. So a suffixed handle could never make the controller delete the file
    system either."""
    if volume_name is None:
        return file_system_id
    return pulumi.Output.concat(file_system_id, HANDLE_SEPARATOR, volume_name)


def file_system_of(handle: str) -> str:
    """The file system id a ``volume_handle`` names."""
    return handle.split(HANDLE_SEPARATOR, 1)[0]


def volume_spec(*, file_system_id: pulumi.Input[str], dns_name: pulumi.Input[str], mount_name: pulumi.Input[str],
                capacity_gib: int, volume_name: Optional[str]) -> dict[str, Any]:
    """A static volume of the file system (``mount_name`` may name a directory below its root); ``volume_name``: the
    volume's name, which makes its handle unique (``volume_handle``), or None for the first job namespace's root."""
    return {
        "capacity": {"storage": f"{capacity_gib}Gi"},
        "volumeMode": "Filesystem",
        "accessModes": ["ReadWriteMany"],
        "persistentVolumeReclaimPolicy": "Retain",
        "storageClassName": "",
        "mountOptions": ["flock"],
        "csi": {"driver": CSI_DRIVER, "volumeHandle": volume_handle(file_system_id, volume_name),
                "volumeAttributes": {"dnsname": dns_name, "mountname": mount_name}},
    }


def claim_spec(volume_name: pulumi.Input[str], capacity_gib: int) -> dict[str, Any]:
    return {"accessModes": ["ReadWriteMany"], "storageClassName": "", "volumeName": volume_name,
            "resources": {"requests": {"storage": f"{capacity_gib}Gi"}}}


def platform_objects(*, file_system_id: pulumi.Input[str], dns_name: pulumi.Input[str],
                     mount_name: pulumi.Input[str], capacity_gib: int, claim_name: str,
                     directories: list[str]) -> list[dict[str, Any]]:
    """The platform namespace, the root's volume and claim pinned to each other, and the Job."""
    volume = root_volume_name(claim_name)
    spec = volume_spec(file_system_id=file_system_id, dns_name=dns_name, mount_name=mount_name,
                       capacity_gib=capacity_gib, volume_name=volume)
    spec["claimRef"] = {"namespace": PLATFORM_NAMESPACE, "name": claim_name}
    container = {
        "name": "mkdir", "image": SHELL_IMAGE, "command": directories_command(directories),
        "securityContext": {"runAsUser": 0, "allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                            "capabilities": {"drop": ["ALL"]}, "seccompProfile": {"type": "RuntimeDefault"}},
        "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}, "limits": {"memory": "64Mi"}},
        "volumeMounts": [{"name": "fsx", "mountPath": ROOT_MOUNT}]}
    pod = {"restartPolicy": "OnFailure", "nodeSelector": dict(SYSTEM_LABELS), "automountServiceAccountToken": False,
           "containers": [container], "volumes": [{"name": "fsx", "persistentVolumeClaim": {"claimName": claim_name}}]}
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": PLATFORM_NAMESPACE, "labels": POD_SECURITY}},
        {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": volume}, "spec": spec},
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
         "metadata": {"name": claim_name, "namespace": PLATFORM_NAMESPACE}, "spec": claim_spec(volume, capacity_gib)},
        {"apiVersion": "batch/v1", "kind": "Job",
         "metadata": {"name": DIRECTORIES_JOB, "namespace": PLATFORM_NAMESPACE,
                      # pulumi-kubernetes' own annotation: create it and go on (its docs, "Resource await logic").
                      "annotations": {"pulumi.com/skipAwait": "true"}},
         "spec": {"backoffLimit": 3, "template": {"spec": pod}}},
    ]


def team_directories(name: str, *, file_system_id: pulumi.Input[str], dns_name: pulumi.Input[str],
                     mount_name: pulumi.Input[str], capacity_gib: int, claim_name: str, directories: list[str],
                     provider: k8s.Provider, parent: pulumi.Resource,
                     depends_on: list[pulumi.Resource]) -> k8s.yaml.v2.ConfigGroup:
    """The platform's objects as one group, which the teams' volumes wait for."""
    return k8s.yaml.v2.ConfigGroup(
        f"{name}-team-directories",
        objs=platform_objects(file_system_id=file_system_id, dns_name=dns_name, mount_name=mount_name,
                              capacity_gib=capacity_gib, claim_name=claim_name, directories=directories),
        opts=pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=depends_on))


def seen_by_teams(directories: Mapping[str, str], namespaces: list[str], claim_name: str) -> str:
    """What the plan says: each team's claim and the one directory it sees, and who still sees the root."""
    teams = "; ".join(f"{namespace}/{claim_name} mounts only {directory}"
                      for namespace, directory in sorted(directories.items()))
    root = [n for n in namespaces if n not in directories]
    others = f" A namespace no team has still mounts the root: {', '.join(root)}." if root else ""
    return (f"fsx: each team sees only its own directory on the file system: {teams}. A team's pods cannot open "
            "another team's directory, nor what lies at the file system's root (a data repository's path, files "
            "written before teams had directories): move what a team needs into its directory from a pod that mounts "
            f"the root. The directories are made by the Job {PLATFORM_NAMESPACE}/{DIRECTORIES_JOB}, whose claim "
            f"{PLATFORM_NAMESPACE}/{claim_name} mounts the root.{others}")
