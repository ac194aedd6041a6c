"""The Kubeflow Trainer v2 model: every rendered TrainJob is one the torch plugin admits, whose
patches land on the runtime's node pods, and which restarts as a whole group within a limit;
each way of breaking that is caught."""

import copy

import pytest
from support.rendered_jobs import all_variant_jobs, trainer_runtime
from trainstack.addons.trainer import RESTARTS
from trainstack.controllers import check_trainjob
from trainstack.launch.restarts import DEFAULT_BACKOFF_LIMIT

TRAINJOBS = [job for job in all_variant_jobs() if isinstance(job.document, dict) and job.document["kind"] == "TrainJob"]


def test_trainjobs_are_rendered_for_the_trainer_variant_on_one_and_all_nodes():
    # Per group of the trainer variant: p5 (16 reserved nodes) and the Karpenter dev pool (maxSize 8).
    assert sorted((job.group, job.nodes) for job in TRAINJOBS) == [("dev", 1), ("dev", 8), ("p5", 1), ("p5", 16)]


@pytest.mark.parametrize("job", TRAINJOBS, ids=lambda job: job.id)
def test_every_rendered_trainjob_passes_the_model(job):
    assert check_trainjob(job.document, trainer_runtime(job.stack)) == []


def test_a_trainjob_restarts_as_often_as_a_pytorchjob():
    assert RESTARTS == DEFAULT_BACKOFF_LIMIT


def broken(edit_job=None, edit_runtime=None):
    job = copy.deepcopy(TRAINJOBS[-1])
    runtime = copy.deepcopy(trainer_runtime(job.stack))
    if edit_job:
        edit_job(job.document)
    if edit_runtime:
        edit_runtime(runtime)
    return [f.message for f in check_trainjob(job.document, runtime)]


def node_job(runtime):
    return runtime["spec"]["template"]["spec"]["replicatedJobs"][0]


@pytest.mark.parametrize("edit_job, edit_runtime, words", [
    (lambda j: j["spec"]["trainer"]["env"].append({"name": "PET_NNODES", "value": "2"}), None,
     "trainer.env sets PET_NNODES"),
    (lambda j: j["spec"]["trainer"].update(numProcPerNode=1), None, "numProcPerNode 1 with 8 GPUs per node"),
    (lambda j: j["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"][0].update(
        name="worker"), None, "targets replicated job worker"),
    (lambda j: j["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"][0][
        "template"]["spec"]["template"]["spec"]["containers"][0].update(name="trainer"), None,
     "targets container trainer"),
    (None, lambda r: node_job(r)["template"]["spec"].pop("backoffLimit"), "backoffLimit is not 0"),
    (None, lambda r: r["spec"]["template"]["spec"].pop("failurePolicy"), "no failurePolicy.maxRestarts"),
    (lambda j: j["spec"].update(runtimeRef={"name": "torch-distributed"}), None, "does not name the runtime"),
])
def test_each_way_of_breaking_a_trainjob_is_caught(edit_job, edit_runtime, words):
    assert any(words in message for message in broken(edit_job, edit_runtime))
