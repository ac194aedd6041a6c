"""The Kubeflow Trainer v2 model: every rendered TrainJob is one the torch or MPI plugin admits,
whose patches land on the runtime's pods, whose ranks all get the fabric environment, and which
restarts as a whole group within a limit; each way of breaking that is caught."""

import copy

import pytest
from support.rendered_jobs import all_variant_jobs, runtime_of, shipped_jobs, trainer_runtime
from trainstack.addons.trainer import RESTARTS
from trainstack.controllers import check_trainjob
from trainstack.launch.restarts import DEFAULT_BACKOFF_LIMIT

TRAINJOBS = [job for job in shipped_jobs() + all_variant_jobs()
             if isinstance(job.document, dict) and job.document["kind"] == "TrainJob"]


def test_trainjobs_are_rendered_for_kueue_p5_on_one_and_all_nodes_with_the_all_reduce_check_and_for_trn1():
    # Per group of kueue-p5: p5 (16 reserved nodes) and the Karpenter dev pool (maxSize 8, 1 GPU a node:
    # one node has no two GPUs to all-reduce). trn1-trainer: its 4 nodes on the MPI runtime (one node
    # cannot be a TrainJob there: the launcher is a node and the node job keeps a pod). kueue-p5's jobs come
    # twice: the variant p5-kueue-capacity-block renders them again on its capacity block. b200-dra (shipped) and
    # gb200-trainer: DRA groups' TrainJobs, the all-reduce among them (each brings its own runtime). frontier-p5: its
    # pool of 2,048 p5 nodes, one group to the launchers.
    kueue_p5 = [("dev", 1, "render_trainjob"), ("dev", 8, "render_all_reduce"), ("dev", 8, "render_trainjob"),
                ("p5", 1, "render_all_reduce"), ("p5", 1, "render_trainjob"), ("p5", 16, "render_all_reduce"),
                ("p5", 16, "render_trainjob")]
    assert sorted((job.group, job.nodes, job.launcher) for job in TRAINJOBS) == sorted(
        kueue_p5 * 2 + [("trn1", 4, "render_trainjob"), ("b200", 1, "render_trainjob"), ("b200", 8, "render_trainjob"),
                         ("gb200", 1, "render_trainjob"), ("gb200", 9, "render_trainjob"),
                         ("b200", 1, "render_all_reduce"), ("b200", 8, "render_all_reduce"),
                         ("gb200", 1, "render_all_reduce"), ("gb200", 9, "render_all_reduce"),
                         ("p5", 1, "render_all_reduce"), ("p5", 1, "render_trainjob"),
                         ("p5", 2048, "render_all_reduce"), ("p5", 2048, "render_trainjob")])
    (trn1,) = [job for job in TRAINJOBS if job.group == "trn1"]
    assert trn1.document["spec"]["runtimeRef"] == {"name": "trainstack-mpi"}


@pytest.mark.parametrize("job", TRAINJOBS, ids=lambda job: job.id)
def test_every_rendered_trainjob_passes_the_model(job):
    assert check_trainjob(job.document, runtime_of(job)) == []


def test_a_trainjob_restarts_as_often_as_a_pytorchjob():
    assert RESTARTS == DEFAULT_BACKOFF_LIMIT


def broken(edit_job=None, edit_runtime=None, runtime_name="trainstack-torch"):
    job = copy.deepcopy([j for j in TRAINJOBS if j.launcher == "render_trainjob"
                         and j.document["spec"]["runtimeRef"]["name"] == runtime_name][-1])
    runtime = copy.deepcopy(trainer_runtime(job.stack, job.document["spec"]["runtimeRef"]["name"]))
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


def test_an_all_reduce_check_on_the_restarting_training_runtime_is_caught():
    check = next(j for j in TRAINJOBS if j.launcher == "render_all_reduce")
    training = trainer_runtime(check.stack, "trainstack-torch")
    document = copy.deepcopy(check.document)
    document["spec"]["runtimeRef"]["name"] = "trainstack-torch"
    assert any("would be run again instead of failing once" in f.message for f in check_trainjob(document, training))


def mpi_broken(edit_job=None, edit_runtime=None):
    return broken(edit_job, edit_runtime, runtime_name="trainstack-mpi")


def mpi_job(runtime, name):
    return next(j for j in runtime["spec"]["template"]["spec"]["replicatedJobs"] if j["name"] == name)


def mpi_container(runtime, name):
    return mpi_job(runtime, name)["template"]["spec"]["template"]["spec"]["containers"][0]


def launch_script(job):
    return job["spec"]["trainer"]["command"]


def drop_forwarding(name):
    def edit(job):
        job["spec"]["trainer"]["command"][-1] = job["spec"]["trainer"]["command"][-1].replace(f" -x {name}", "")
    return edit


@pytest.mark.parametrize("edit_job, edit_runtime, words", [
    (lambda j: j["spec"]["trainer"]["env"].append({"name": "OMPI_MCA_plm_rsh_args", "value": "-p 2222"}), None,
     "trainer.env sets OMPI_MCA_plm_rsh_args, which the MPI plugin sets"),
    (None, lambda r: r["spec"]["mlPolicy"]["mpi"].update(mpiImplementation="MPICH"), "runs OpenMPI only"),
    (None, lambda r: r["spec"]["template"]["spec"]["replicatedJobs"].pop(),
     "numNodes 4 on a runtime with runLauncherAsNode"),
    (None, lambda r: mpi_container(r, "node").update(command=["sleep", "infinity"]), "not sshd"),
    (None, lambda r: mpi_container(r, "node").update(command=["/usr/sbin/sshd", "-e"]), "without -D"),
    (lambda j: j["spec"]["trainer"].update(command=["python", "train.py"]), None, "without mpirun"),
    (None, lambda r: mpi_container(r, "node").pop("securityContext"), "node container runs as the image user"),
    (lambda j: j["spec"]["trainer"].update(command=[launch_script(j)[-1].replace(
        " -o IdentityFile=/tmp/trainstack-mpi-ssh-key", "")]), None, "mode 0640, which ssh ignores for root"),
    (drop_forwarding("FI_EFA_USE_DEVICE_RDMA"), None,
     "FI_EFA_USE_DEVICE_RDMA (the fabric setting of aws-neuron/aws-neuron-eks-samples"),
    (drop_forwarding("TRAINSTACK_CHECKPOINT_DIR"), None, "TRAINSTACK_CHECKPOINT_DIR is set on the launcher but "),
    (lambda j: j["spec"]["trainer"].update(env=[e for e in j["spec"]["trainer"]["env"]
                                                if e["name"] != "FI_PROVIDER"]), None, "FI_PROVIDER"),
    (None, lambda r: mpi_job(r, "node")["template"]["spec"].pop("backoffLimit"), "backoffLimit is not 0"),
    (None, lambda r: r["spec"]["template"]["spec"].pop("failurePolicy"), "no failurePolicy.maxRestarts"),
])
def test_each_way_of_breaking_an_mpi_trainjob_is_caught(edit_job, edit_runtime, words):
    messages = mpi_broken(edit_job, edit_runtime)
    assert any(words in message for message in messages), messages


def test_the_mpi_trainjob_forwards_every_rank_variable_from_its_launcher():
    assert mpi_broken() == []
