"""The restart model: every rendered job restarts as docs/validation-jobs.md and docs/faults.md say. A validation job
fails once on a missed floor or a failed check, restarted neither by the operator nor by
torchrun's elastic agent; a training job restarts within its backoff limit; an MPI
launcher only under policies a batch Job honours; a HyperPod job with OnFailure."""

import pytest
from support.rendered_jobs import all_variant_jobs, outputs_of, runtime_of, shipped_jobs
from trainstack.controllers import check_restarts, check_trainjob
from trainstack.launch import render_all_reduce, render_device_check, render_mpijob, render_pytorchjob

JOBS = [job for job in shipped_jobs() + all_variant_jobs() if isinstance(job.document, dict)]


def messages(job):
    return [f.message for f in check_restarts(job)]


def all_reduce(stack="fsdp-p5", group="p5"):
    return render_all_reduce(outputs_of(stack), name="nccl", group_name=group, nodes=2, image="img:1")


def test_every_kind_of_rendered_job_is_modelled():
    assert {job.document["kind"] for job in JOBS} == {"Job", "PyTorchJob", "MPIJob", "TrainJob"}


@pytest.mark.parametrize("job", JOBS, ids=lambda job: job.id)
def test_every_rendered_job_restarts_as_documented(job):
    if job.document["kind"] == "TrainJob":
        # A TrainJob's restarts are its runtime's (controllers/trainer.py): checked against the one its stack runs.
        assert check_trainjob(job.document, runtime_of(job)) == []
    else:
        assert check_restarts(job.document) == []


def test_an_all_reduce_is_never_elastic_so_torchrun_never_reruns_it_after_a_missed_floor():
    job = all_reduce()
    assert "elasticPolicy" not in job["spec"] and messages(job) == []
    job["spec"]["elasticPolicy"] = {"rdzvBackend": "c10d", "maxRestarts": 3}  # what an elastic training job has
    assert any(m.startswith("elasticPolicy.maxRestarts 3: torchrun's elastic agent reruns the whole all-reduce")
               for m in messages(job))


@pytest.mark.parametrize("stack, group", [("fsdp-p5", "p5"), ("nemo-p4de", "p4de")])
def test_an_all_reduce_restarted_by_the_operator_on_exit_1_is_found(stack, group):
    job = all_reduce(stack, group)
    for replica in job["spec"]["pytorchReplicaSpecs"].values():
        replica["restartPolicy"] = "OnFailure"
    assert any("the operator restarts a pod that missed the floor" in m for m in messages(job))


def test_a_device_check_that_would_run_again_is_found():
    job = render_device_check(outputs_of("trn1"), name="check", group_name="trn1", nodes=1, image="img:1")
    job["spec"]["backoffLimit"] = 2
    assert any("a failed check would be run again" in m for m in messages(job))


def test_a_training_job_that_restarts_without_a_backoff_limit_is_found():
    job = render_pytorchjob(outputs_of("nemo-p4de"), name="nemo", group_name="p4de", nodes=2, image="img:1",
                            command=["torchrun", "train.py"])
    del job["spec"]["runPolicy"]
    assert any("restarts them without end" in m for m in messages(job))


@pytest.mark.parametrize("policy", ["ExitCode", "Always"])
def test_an_mpi_launcher_under_a_policy_its_batch_job_does_not_honour_is_found(policy):
    job = render_mpijob(outputs_of("trn1"), name="llama", group_name="trn1", nodes=4, image="img:1",
                        command=["python", "train.py"])
    job["spec"]["mpiReplicaSpecs"]["Launcher"]["restartPolicy"] = policy
    assert any(m.startswith(f"launcher restartPolicy {policy}: the launcher is a batch Job") for m in messages(job))


def test_an_mpijob_without_a_backoff_limit_retries_six_times():
    job = render_mpijob(outputs_of("trn1"), name="llama", group_name="trn1", nodes=4, image="img:1",
                        command=["python", "train.py"], restart_policy="Never")
    assert job["spec"]["runPolicy"]["backoffLimit"] == 0
    del job["spec"]["runPolicy"]["backoffLimit"]
    assert any("retries six times" in m for m in messages(job))


def test_a_hyperpod_job_must_use_on_failure_for_auto_resume():
    job = next(j.document for j in JOBS if j.launcher == "render_hyperpod_pytorchjob")
    job = {**job, "spec": {**job["spec"], "pytorchReplicaSpecs": {
        "Master": {**job["spec"]["pytorchReplicaSpecs"]["Master"], "restartPolicy": "ExitCode"}}}}
    assert any("HyperPod's job auto-resume requires OnFailure" in m for m in messages(job))
