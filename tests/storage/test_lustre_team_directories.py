"""FSx per team: on a stack with teams, each team namespace's claim mounts only the team's directory
(``teams/<team>``), its volume pinned to that claim; a Job in the platform's namespace, through the one claim of the
file system's root, makes every team's directory first. Stacks with FSx and no teams keep the root claim they had.

Read from the offline plan of the shipped stacks (kueue-p5: a file system trainstack makes, two teams; byo-p5: an
existing cluster's file system, one team); the Job's command is run here by a real shell against a directory."""

import copy
import os
import stat
import subprocess
from pathlib import Path

import pytest
import yaml
from support import rendered_jobs
from support.scratch import REPO, plan_config
from trainstack.config import ConfigError
from trainstack.storage import lustre_directories

PV, PVC = "kubernetes:core/v1:PersistentVolume", "kubernetes:core/v1:PersistentVolumeClaim"
GROUP = "kubernetes:yaml/v2:ConfigGroup"
FS = "aws:fsx/lustreFileSystem:LustreFileSystem"


def resources(record, token):
    return [r for r in record["resources"] if r["type"] == token]


def claims_by_namespace(record):
    """namespace -> (its claim's inputs, the inputs of the volume the claim names)."""
    volumes = {r["inputs"]["metadata"]["name"]: r["inputs"] for r in resources(record, PV)}
    return {c["inputs"]["metadata"]["namespace"]: (c["inputs"], volumes[c["inputs"]["spec"]["volumeName"]])
            for c in resources(record, PVC)}


def directories_group(record):
    (group,) = [r for r in resources(record, GROUP) if r["name"].endswith("-fsx-team-directories")]
    return group


def platform_object(record, kind):
    (found,) = [o for o in directories_group(record)["inputs"]["objs"] if o["kind"] == kind]
    return found


@pytest.fixture(scope="module")
def kueue():
    return rendered_jobs.planned_record("kueue-p5")


@pytest.fixture(scope="module")
def byo():
    return rendered_jobs.planned_record("byo-p5")


def test_each_kueue_p5_team_claim_mounts_only_its_directory_pinned_to_its_claim(kueue):
    (fs,) = resources(kueue, FS)
    mount_name = fs["outputs"]["mountName"]
    claims = claims_by_namespace(kueue)
    for team in ("llm", "vision"):
        claim, volume = claims[team]
        assert volume["spec"]["csi"]["volumeAttributes"] == {"dnsname": fs["outputs"]["dnsName"],
                                                             "mountname": f"{mount_name}/teams/{team}"}
        assert volume["spec"]["claimRef"] == {"namespace": team, "name": claim["metadata"]["name"]}
        assert volume["metadata"]["name"] == f"fsx-claim-teams-{team}-volume"


def test_a_team_volume_waits_for_the_job_that_makes_the_directories(kueue):
    group = directories_group(kueue)["urn"]
    team_volumes = [r for r in resources(kueue, PV) if "/teams/" in r["inputs"]["spec"]["csi"]["volumeAttributes"]
                    ["mountname"]]
    assert len(team_volumes) == 2
    assert all(group in volume["dependencies"] for volume in team_volumes)


def test_only_the_platform_namespace_mounts_the_root_and_its_volume_is_pinned_to_its_claim(kueue):
    (fs,) = resources(kueue, FS)
    namespace, volume, claim = (platform_object(kueue, kind) for kind in
                                ("Namespace", "PersistentVolume", "PersistentVolumeClaim"))
    assert namespace["metadata"]["name"] == claim["metadata"]["namespace"] == "trainstack-system"
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "baseline"
    assert volume["spec"]["csi"]["volumeAttributes"]["mountname"] == fs["outputs"]["mountName"]
    assert volume["spec"]["claimRef"] == {"namespace": "trainstack-system", "name": claim["metadata"]["name"]}
    assert claim["spec"]["volumeName"] == volume["metadata"]["name"]
    assert not [ns for ns, (_, v) in claims_by_namespace(kueue).items()
                if v["spec"]["csi"]["volumeAttributes"]["mountname"] == fs["outputs"]["mountName"]], (
        "a team namespace's claim mounts the file system's root")


def run_job_command(record, root: Path) -> subprocess.CompletedProcess:
    """The Job's container command, as its shell runs it, with ``root`` for the mount of the file system's root."""
    job = platform_object(record, "Job")
    (container,) = job["spec"]["template"]["spec"]["containers"]
    (mount,) = container["volumeMounts"]
    command = container["command"]
    assert command[-1] == mount["mountPath"], "the root the command works in is the Job's mount of the root"
    return subprocess.run([*command[:-1], str(root)], capture_output=True, text=True, check=True)


def mode(path: Path) -> str:
    return oct(stat.S_IMODE(path.stat().st_mode))


def test_the_job_makes_every_kueue_p5_teams_directory_0770_and_never_resets_one(kueue, tmp_path):
    run_job_command(kueue, tmp_path)
    assert sorted(p.name for p in (tmp_path / "teams").iterdir()) == ["llm", "vision"]
    assert [mode(tmp_path / "teams" / team) for team in ("llm", "vision")] == ["0o770", "0o770"]
    assert mode(tmp_path / "teams") == "0o755"
    os.chmod(tmp_path / "teams" / "llm", 0o775)  # the team's own choice, kept when the Job runs again
    run_job_command(kueue, tmp_path)
    assert mode(tmp_path / "teams" / "llm") == "0o775"


def test_the_job_runs_as_root_with_nothing_else_on_a_system_node(kueue):
    job = platform_object(kueue, "Job")
    pod = job["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["image"] == lustre_directories.SHELL_IMAGE
    assert container["securityContext"] == {
        "runAsUser": 0, "allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]}, "seccompProfile": {"type": "RuntimeDefault"}}
    assert pod["nodeSelector"] == {"trainstack.io/node-group": "system"}
    assert pod["volumes"] == [{"name": "fsx", "persistentVolumeClaim": {
        "claimName": platform_object(kueue, "PersistentVolumeClaim")["metadata"]["name"]}}]


def test_the_plan_says_each_team_sees_only_its_directory(kueue):
    (said,) = [d["message"] for d in kueue["diagnostics"] if d["message"].startswith("fsx: each team sees only")]
    assert "llm/fsx-claim mounts only teams/llm; vision/fsx-claim mounts only teams/vision" in said
    assert "cannot open another team's directory" in said


def test_an_existing_clusters_file_system_gets_the_same_team_directory_and_keeps_the_root_in_default(byo, tmp_path):
    claims = claims_by_namespace(byo)
    _, volume = claims["research"]
    assert volume["spec"]["csi"]["volumeAttributes"]["mountname"] == "abcdefgh/teams/research"
    assert volume["spec"]["claimRef"] == {"namespace": "research", "name": "fsx-claim"}
    assert claims["default"][1]["spec"]["csi"]["volumeAttributes"]["mountname"] == "abcdefgh"
    run_job_command(byo, tmp_path)
    assert [p.name for p in (tmp_path / "teams").iterdir()] == ["research"]


def test_a_stack_with_fsx_and_no_teams_keeps_its_root_claim_and_makes_no_directories():
    record = rendered_jobs.planned_record("fsdp-p5")
    (fs,) = resources(record, FS)
    (volume,) = [r["inputs"] for r in resources(record, PV)
                 if r["inputs"]["spec"].get("csi", {}).get("driver") == "fsx.csi.aws.com"]
    assert volume["spec"]["csi"]["volumeAttributes"]["mountname"] == fs["outputs"]["mountName"]
    assert "claimRef" not in volume["spec"]
    assert not [r for r in resources(record, GROUP) if r["name"].endswith("-team-directories")]


def test_a_team_in_the_platform_namespace_is_refused_by_name_before_anything_is_registered(tmp_path):
    document = yaml.safe_load((REPO / "stacks" / "Pulumi.kueue-p5.yaml").read_text())["config"]
    config = copy.deepcopy({key.split(":", 1)[1]: value for key, value in document.items()})
    config["scheduling"]["teams"][1]["namespace"] = "trainstack-system"
    with pytest.raises(ConfigError) as refused:
        plan_config(tmp_path, "platform", config)
    (issue,) = refused.value.issues
    # The stack's config refuses it (config/scheduling.py), before the network or the cluster is registered.
    assert issue.value == "trainstack-system" and issue.path.endswith("scheduling.teams[1].namespace")
    assert "a namespace of its own" in issue.fix
