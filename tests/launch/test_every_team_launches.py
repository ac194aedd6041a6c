"""Every team of every stack can launch: each namespace a stack declares for jobs (the FSx claim's
and every team's) holds what the jobs mount, a claim of the shared file system and one per S3
dataset, each bound to its own volume; every launcher renders for every team, and every claim a
rendered job names exists, in the job's namespace, in the stack's plan (issue 41)."""

import copy
import tempfile
from pathlib import Path
from typing import Any

import pytest
from support.plan_records import record, stack_config
from support.rendered_jobs import IMAGE, SHIPPED_STACKS, planned_record
from trainstack import launch
from trainstack.launch import LaunchError, QueueRequest
from trainstack.outputs import StackOutputs, parse_outputs

PV, PVC = "kubernetes:core/v1:PersistentVolume", "kubernetes:core/v1:PersistentVolumeClaim"
DATASET = {"name": "corpus", "bucket": "team-datasets", "prefix": "c4/", "mountPath": "/datasets/c4"}


def _with_a_dataset(config: dict[str, Any]) -> None:
    config["trainstack:datasets"] = [DATASET]


@pytest.fixture(scope="module")
def kueue_with_a_dataset() -> dict[str, Any]:
    """kueue-p5 (two teams in two namespaces) with an S3 dataset beside the shared FSx."""
    with tempfile.TemporaryDirectory() as directory:
        return record(Path(directory), "kueue-p5", _with_a_dataset)


def claims(document: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """Every claim of a plan record by (namespace, name)."""
    return {(r["inputs"]["metadata"]["namespace"], r["inputs"]["metadata"]["name"]): r["inputs"]
            for r in document["resources"] if r["type"] == PVC}


def mounted_claims(job: dict[str, Any]) -> set[str]:
    """The claim names a rendered job's pods mount, wherever its kind keeps its pod templates."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            claim = node.get("persistentVolumeClaim")
            if isinstance(claim, dict):
                found.add(claim["claimName"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(job)
    return found


def jobs_per_team(outputs: StackOutputs) -> list[tuple[str, dict[str, Any]]]:
    """For every team (or the stack's one job namespace without teams), each EKS launcher's job on each group."""
    teams: list[str | None] = sorted(outputs.scheduling.queues) if outputs.scheduling is not None else [None]
    rendered = []
    for team in teams:
        for group_name, group in sorted(outputs.accelerated_groups.items()):
            queue = outputs.scheduling.queues[team] if team is not None and outputs.scheduling else None
            if queue is not None and group_name not in queue.quotas:
                continue
            common = {"name": "job", "group_name": group_name, "nodes": 1, "image": IMAGE,
                      "queue": QueueRequest(team=team) if team is not None else None}
            rendered.append((f"{team}/{group_name}/device-check", launch.render_device_check(outputs, **common)))
            if group.accelerator_kind == "nvidia-gpu" and outputs.operators.trainer_runtime:
                rendered.append((f"{team}/{group_name}/trainjob",
                                 launch.render_trainjob(outputs, command=["torchrun", "t.py"], **common)))
            # The training operator's PyTorchJob refuses a pod's DRA claims (launch/pytorchjob.py says why).
            if group.accelerator_kind == "nvidia-gpu" and outputs.operators.training_operator \
                    and group.device_allocation != "dra":
                rendered.append((f"{team}/{group_name}/pytorchjob",
                                 launch.render_pytorchjob(outputs, command=["torchrun", "t.py"], **common)))
            if group.accelerator_kind == "neuron" and outputs.operators.mpi_operator:
                rendered.append((f"{team}/{group_name}/mpijob",
                                 launch.render_mpijob(outputs, command=["python", "t.py"], **common)))
    return rendered


def assert_every_team_mounts_what_is_there(document: dict[str, Any]) -> int:
    outputs = parse_outputs(document["outputs"])
    present = claims(document)
    rendered = jobs_per_team(outputs)
    for label, job in rendered:
        namespace = job["metadata"].get("namespace", "default")
        missing = sorted(c for c in mounted_claims(job) if (namespace, c) not in present)
        assert not missing, f"{label}: the job in {namespace} mounts {missing}, which that namespace does not hold"
    return len(rendered)


@pytest.mark.parametrize("stack", SHIPPED_STACKS)
def test_every_team_of_every_shipped_stack_launches_and_finds_its_claims_in_its_namespace(stack):
    document = planned_record(stack)
    launched = assert_every_team_mounts_what_is_there(document)
    assert launched > 0 or not parse_outputs(document["outputs"]).accelerated_groups


def test_the_second_team_of_kueue_p5_launches_a_trainjob_that_mounts_the_shared_file_system():
    outputs = parse_outputs(planned_record("kueue-p5")["outputs"])
    job = launch.render_trainjob(outputs, name="vit", group_name="p5", nodes=4, image=IMAGE,
                                 command=["torchrun", "train.py"], queue=QueueRequest(team="vision"))
    assert job["metadata"]["namespace"] == "vision"
    assert "fsx-claim" in mounted_claims(job)
    assert outputs.storage is not None and outputs.storage.claim_namespaces == ["llm", "vision"]


def test_each_team_namespace_gets_its_own_volume_of_the_shared_file_system_and_of_each_dataset(kueue_with_a_dataset):
    present = claims(kueue_with_a_dataset)
    assert {key for key in present} >= {("llm", "fsx-claim"), ("vision", "fsx-claim"),
                                        ("llm", "corpus-dataset"), ("vision", "corpus-dataset")}
    # A volume binds one claim: the teams' claims name different volumes of the same file system.
    volumes = {r["inputs"]["metadata"]["name"]: r["inputs"] for r in kueue_with_a_dataset["resources"]
               if r["type"] == PV}
    fsx = [present[(team, "fsx-claim")]["spec"]["volumeName"] for team in ("llm", "vision")]
    assert len(set(fsx)) == 2 and all(name in volumes for name in fsx)
    # Each its own handle (the kubelet keys a CSI volume by it), all of one file system (storage/lustre_directories.py).
    handles = {volumes[name]["spec"]["csi"]["volumeHandle"] for name in fsx}
    assert len(handles) == 2 and len({handle.split("::")[0] for handle in handles}) == 1
    datasets = [present[(team, "corpus-dataset")]["spec"]["volumeName"] for team in ("llm", "vision")]
    assert {volumes[name]["spec"]["claimRef"]["namespace"] for name in datasets} == {"llm", "vision"}
    assert assert_every_team_mounts_what_is_there(kueue_with_a_dataset) >= 4


def test_outputs_of_a_stack_whose_claim_is_in_one_namespace_still_refuse_the_other_team():
    # Outputs written before every team got the claim: the launcher says so rather than render a pod that never starts.
    document = copy.deepcopy(planned_record("kueue-p5")["outputs"])
    document["trainstack"]["storage"].pop("teamNamespaces")
    outputs = parse_outputs(document)
    with pytest.raises(LaunchError, match="FSx claim fsx-claim is in namespace\\(s\\) llm, but team vision's jobs "
                                          "run in vision"):
        launch.render_trainjob(outputs, name="vit", group_name="p5", nodes=4, image=IMAGE,
                               command=["torchrun", "train.py"], queue=QueueRequest(team="vision"))


def test_a_stack_of_one_job_namespace_keeps_its_outputs_as_they_were():
    # Only stacks whose teams run elsewhere carry teamNamespaces.
    config = stack_config("fsdp-p5")
    assert "trainstack:scheduling" not in config
    assert "teamNamespaces" not in planned_record("fsdp-p5")["outputs"]["trainstack"]["storage"]
