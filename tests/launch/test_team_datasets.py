"""On a stack with teams, a job mounts the datasets its team is given and no other: a dataset's claim is only in
the namespaces of the teams given it (storage/s3_datasets.py), and a pod naming a claim its namespace lacks never
starts."""

from pathlib import Path
from typing import Any

from support import plan_records
from trainstack import launch
from trainstack.launch import QueueRequest
from trainstack.outputs import parse_outputs

IMAGE = "123456789012.dkr.ecr.us-east-1.amazonaws.com/train:1"
DATASETS = [{"name": "corpus", "bucket": "llm-corpus", "mountPath": "/datasets/corpus", "teams": ["llm"]},
            {"name": "images", "bucket": "shared-images", "mountPath": "/datasets/images"}]


def claims_in(document: Any) -> set[str]:
    """Every claim a rendered document's pods mount."""
    if isinstance(document, dict):
        found = {document["persistentVolumeClaim"]["claimName"]} if "persistentVolumeClaim" in document else set()
        return found.union(*(claims_in(value) for value in document.values()))
    if isinstance(document, list):
        return set().union(*(claims_in(value) for value in document))
    return set()


def outputs_with_datasets(directory: Path):
    record = plan_records.record(directory, "kueue-p5",
                                 lambda config: config.update({"trainstack:datasets": DATASETS}))
    return parse_outputs(record["outputs"]), record


def test_each_datasets_outputs_name_the_namespaces_that_hold_its_claim(tmp_path: Path):
    outputs, record = outputs_with_datasets(tmp_path)
    assert {d.name: d.namespaces for d in outputs.datasets} == {"corpus": ["llm"], "images": ["llm", "vision"]}
    claims = {(r["inputs"]["metadata"]["namespace"], r["inputs"]["metadata"]["name"]) for r in record["resources"]
              if r["type"] == "kubernetes:core/v1:PersistentVolumeClaim" and "dataset" in r["name"]}
    assert claims == {("llm", "corpus-dataset"), ("llm", "images-dataset"), ("vision", "images-dataset")}


def test_a_teams_jobs_mount_the_datasets_it_is_given_and_no_other(tmp_path: Path):
    outputs, _ = outputs_with_datasets(tmp_path)
    for team, expected in (("llm", {"corpus-dataset", "images-dataset"}), ("vision", {"images-dataset"})):
        common: dict[str, Any] = {"name": "job", "group_name": "p5", "nodes": 2, "queue": QueueRequest(team=team)}
        trainjob = launch.render_trainjob(outputs, image=IMAGE, command=["torchrun", "train.py"], **common)
        assert claims_in(trainjob) - {outputs.storage.claim_name} == expected, team


def test_a_stack_without_teams_keeps_its_datasets_outputs_as_they_were(tmp_path: Path):
    record = plan_records.record(tmp_path, "fsdp-p5", lambda config: config.update({"trainstack:datasets": [
        {k: v for k, v in d.items() if k != "teams"} for d in DATASETS]}))
    assert all("namespaces" not in d for d in record["outputs"]["trainstack"]["datasets"])
