"""HyperPod (Slurm) nodes and an EFA-enabled FSx for Lustre: the nodes with EFA get the EKS node
groups' Lustre-over-EFA client script through the lifecycle scripts, and the entrypoint moves the
file system HyperPod mounted over TCP onto EFA: unmount, unload Lustre, run the script, mount again."""

import os
import stat
import subprocess
from pathlib import Path

import yaml
from support.policy_stacks import PROJECT
from trainstack import catalog
from trainstack.config import HyperPodConfig
from trainstack.hyperpod.lifecycle import ENTRYPOINT, PARAMS, lifecycle_files
from trainstack.nodegroups.lustre_efa_client import lustre_efa_client_script
from trainstack.plan import run_program
from trainstack.training_stack import TrainingStack

P5_SCRIPT = "lustre-efa-client-p5.48xlarge.sh"


def _settings() -> HyperPodConfig:
    return HyperPodConfig.model_validate({
        "clusterName": "ml", "controller": {"name": "c", "instanceType": "ml.c5.xlarge", "count": 1},
        "workers": [{"name": "w", "instanceType": "ml.p5.48xlarge", "count": 2}]})


def test_with_an_efa_file_system_each_efa_type_gets_the_eks_node_groups_client_script():
    files = lifecycle_files(_settings(), "/fsx", lustre_over_efa=True)
    assert files[P5_SCRIPT] == lustre_efa_client_script(catalog.get("p5.48xlarge"))
    # The controller's c5.xlarge has no EFA: no script, its Lustre stays on TCP.
    assert sorted(files) == sorted([ENTRYPOINT, PARAMS, P5_SCRIPT])
    assert "TRAINSTACK_LUSTRE_EFA=1\n" in files[PARAMS]


def test_without_an_efa_file_system_or_without_fsx_no_node_touches_lnet():
    for mount_path, efa in (("/fsx", False), (None, True)):
        files = lifecycle_files(_settings(), mount_path, lustre_over_efa=efa)
        assert sorted(files) == sorted([ENTRYPOINT, PARAMS])
        assert "TRAINSTACK_LUSTRE_EFA=''\n" in files[PARAMS]


def test_the_shipped_hyperpod_stack_with_fsx_efa_uploads_its_workers_client_script():
    document = yaml.safe_load((PROJECT.root / "stacks" / "Pulumi.hyperpod.yaml").read_text())["config"]
    config = {key.split(":", 1)[1]: value for key, value in document.items()}
    config["fsx"].update(efa=True, storageCapacityGiB=4800, perUnitStorageThroughput=1000)
    plan = run_program(lambda: TrainingStack("hp", config), project="demo", stack="hp")
    objects = {r.inputs["key"].rsplit("/", 1)[-1]: r.inputs.get("content")
               for r in plan.by_type("aws:s3/bucketObjectv2:BucketObjectv2")}
    assert objects["lustre-efa-client-g5.8xlarge.sh"] == lustre_efa_client_script(catalog.get("g5.8xlarge"))
    assert "TRAINSTACK_LUSTRE_EFA=1\n" in objects[PARAMS]


def _stub(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text(f"#!/usr/bin/env bash\necho \"{name} $*\" >> \"$CALLS\"\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def _run_entrypoint(tmp_path: Path, instance_type: str) -> list[str]:
    """Run the entrypoint with the system's commands stubbed; return the commands it ran, in order."""
    bin_dir, scripts, mount = tmp_path / "bin", tmp_path / "lifecycle", tmp_path / "fsx"
    for directory in (bin_dir, scripts, mount):
        directory.mkdir()
    files = lifecycle_files(_settings(), str(mount), lustre_over_efa=True)
    files[P5_SCRIPT] = "echo \"lustre-efa-client-p5 ran\" >> \"$CALLS\"\n"  # the LNet commands need a real node
    for name, text in files.items():
        (scripts / name).write_text(text)
    _stub(bin_dir, "curl", f"[[ \"$*\" == *instance-type* ]] && echo ml.{instance_type} || echo token")
    _stub(bin_dir, "findmnt", "[[ \"$*\" == *SOURCE* ]] && echo 10.0.0.5@tcp:/abcdefgh || echo rw,flock")
    for name in ("mountpoint", "umount", "lustre_rmmod", "mount", "lnetctl"):
        _stub(bin_dir, name, "exit 0")
    calls = tmp_path / "calls"
    calls.touch()
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "CALLS": str(calls)}
    subprocess.run(["bash", str(scripts / ENTRYPOINT)], env=env, check=True, capture_output=True, text=True)
    return [line.strip() for line in calls.read_text().splitlines() if not line.startswith(("curl", "mountpoint"))]


def test_a_p5_node_unmounts_unloads_lustre_runs_the_efa_client_script_and_remounts_the_same_source(tmp_path):
    calls = _run_entrypoint(tmp_path, "p5.48xlarge")
    mount = tmp_path / "fsx"
    assert calls[:6] == [f"findmnt -n -o SOURCE {mount}", f"findmnt -n -o OPTIONS {mount}", f"umount {mount}",
                         "lustre_rmmod", "lustre-efa-client-p5 ran",
                         f"mount -t lustre -o rw,flock 10.0.0.5@tcp:/abcdefgh {mount}"]


def test_a_node_type_without_a_client_script_leaves_lustre_on_tcp(tmp_path):
    calls = _run_entrypoint(tmp_path, "c5.xlarge")
    assert not [c for c in calls if c.startswith(("umount", "lustre_rmmod", "mount "))]

