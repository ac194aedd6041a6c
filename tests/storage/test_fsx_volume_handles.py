"""Every FSx PersistentVolume of a stack has its own ``volumeHandle``, and the FSx CSI driver still mounts it.

The kubelet names a persistent CSI volume ``<driver>^<volumeHandle>`` and keys its state by that name
(kubernetes/kubernetes pkg/volume/csi/csi_plugin.go@v1.35.4, GetVolumeName), so two volumes with one handle on one
node are one volume to it (kubernetes/kubernetes#91556). The driver's node plugin refuses only an empty handle and
takes the mount source from the volume context (kubernetes-sigs/aws-fsx-csi-driver pkg/driver/node.go@v1.9.0,
NodePublishVolume). Read from the offline plan of the shipped stacks with FSx: kueue-p5 (two teams: a root volume
for the platform's Job and one per team), byo-p5 (an existing cluster's file system: the root in ``default``, one
team) and fsdp-p5 (no teams: the one root volume keeps the bare id it always had)."""

import re

import pytest
from support import rendered_jobs
from trainstack.plan import Plan
from trainstack.review.access import read_access
from trainstack.storage import lustre_directories

PV = "kubernetes:core/v1:PersistentVolume"
GROUP = "kubernetes:yaml/v2:ConfigGroup"
FS = "aws:fsx/lustreFileSystem:LustreFileSystem"
DRIVER = "fsx.csi.aws.com"


def fsx_volumes(record):
    """Every FSx PersistentVolume the stack renders: its own resources and those inside a ConfigGroup."""
    objects = [r["inputs"] for r in record["resources"] if r["type"] == PV]
    objects += [o for r in record["resources"] if r["type"] == GROUP for o in r["inputs"].get("objs") or []
                if o.get("kind") == "PersistentVolume"]
    return [o for o in objects if o["spec"].get("csi", {}).get("driver") == DRIVER]


def node_plugin_accepts(handle) -> bool:
    """NodePublishVolume's only check of the handle: a non-empty string (``len(volumeID) == 0`` is refused)."""
    return isinstance(handle, str) and len(handle) > 0


def kubelet_volume_name(volume) -> str:
    """The name the kubelet keys a persistent CSI volume by: ``<driver>^<volumeHandle>`` (GetVolumeName)."""
    return f"{volume['spec']['csi']['driver']}^{volume['spec']['csi']['volumeHandle']}"


def file_system_id(record) -> str:
    file_systems = [r for r in record["resources"] if r["type"] == FS]
    if file_systems:
        return file_systems[0]["id"]
    return record_stack_file_system(record)


def record_stack_file_system(record) -> str:
    """An existing cluster's file system: the id its stack names (every volume's handle starts with it)."""
    handles = {lustre_directories.file_system_of(v["spec"]["csi"]["volumeHandle"]) for v in fsx_volumes(record)}
    (only,) = handles
    return only


@pytest.mark.parametrize("stack, volumes", [("kueue-p5", 3), ("byo-p5", 3), ("fsdp-p5", 1)])
def test_every_fsx_volume_of_a_stack_has_its_own_handle_that_the_driver_mounts(stack, volumes):
    record = rendered_jobs.planned_record(stack)
    found = fsx_volumes(record)
    assert len(found) == volumes
    names = [kubelet_volume_name(v) for v in found]
    assert len(set(names)) == len(names), f"{stack}: two FSx volumes are one volume to the kubelet: {sorted(names)}"
    fs_id = file_system_id(record)
    for volume in found:
        handle = volume["spec"]["csi"]["volumeHandle"]
        assert node_plugin_accepts(handle)
        assert lustre_directories.file_system_of(handle) == fs_id, f"{handle} names another file system"
        assert re.fullmatch(r"fs-[0-9a-f]{8,17}", fs_id), fs_id


def test_only_the_first_namespaces_root_volume_keeps_the_bare_file_system_id_so_it_is_not_replaced():
    record = rendered_jobs.planned_record("byo-p5")
    handles = {v["metadata"]["name"]: v["spec"]["csi"]["volumeHandle"] for v in fsx_volumes(record)}
    fs_id = record_stack_file_system(record)
    assert handles["fsx-claim-volume"] == fs_id
    assert {name: handle for name, handle in handles.items() if name != "fsx-claim-volume"} == {
        name: f"{fs_id}::{name}" for name in handles if name != "fsx-claim-volume"}


def test_the_access_table_names_the_file_system_not_the_handle():
    record = rendered_jobs.planned_record("kueue-p5")
    (fs,) = [r for r in record["resources"] if r["type"] == FS]
    access = read_access(Plan.from_dict(record))
    assert access is not None
    mounts = {name: team.fsx for name, team in access.teams.items()}
    assert mounts and all(m is not None and m.startswith(f"{fs['id']}:/") for m in mounts.values()), mounts
