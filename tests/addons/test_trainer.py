"""Kubeflow Trainer v2 beside v1: its chart at 2.3.0 with JobSet, trainstack's torch
ClusterTrainingRuntimes (training, and checks that never restart), and TrainJobs with the same
placement, fabric, checkpoint and queue settings as PyTorchJobs, all valid against the Trainer v2.3.0 CRDs."""

import copy
import json

import pytest
import yaml
from support import crds
from support.rendered_jobs import KUEUE_TRAINER, outputs_of, planned_record, variant_outputs, variant_record
from trainstack.addons.device_plugins import NEURON_SCHEDULER_NAME
from trainstack.addons.trainer import CHECK_RUNTIME, MPI_RUNTIME, mpi_runtime, neuron_training_image, torch_runtime
from trainstack.cli import main
from trainstack.config import ConfigError
from trainstack.launch import (
    LaunchError,
    QueueRequest,
    render_all_reduce,
    render_mpijob,
    render_pytorchjob,
    render_trainjob,
)
from trainstack.plan import run_program
from trainstack.training_stack import TrainingStack

NEURON_TRAINING_IMAGE_US_EAST_1 = neuron_training_image("us-east-1")
"""The runtime's image on the shipped Neuron stacks (us-east-1)."""


def plan(config):
    return run_program(lambda: TrainingStack("s", config), project="demo", stack="s")


@pytest.fixture(scope="module")
def record():
    return plan(KUEUE_TRAINER)


def trainjob(nodes=4, **queue):
    return render_trainjob(outputs_of("kueue-p5"), name="fsdp", group_name="p5", nodes=nodes,
                           image="img:1", command=["torchrun", "train.py"], queue=QueueRequest(team="llm", **queue))


def test_the_chart_is_pinned_with_jobset_and_the_controller_on_system_nodes(record):
    release = next(r for r in record.by_type("kubernetes:helm.sh/v3:Release") if "trainer" in r.name)
    assert (release.inputs["chart"], release.inputs["version"]) == (
        "oci://ghcr.io/kubeflow/charts/kubeflow-trainer", "2.3.0")
    values = release.inputs["values"]
    assert values["jobset"] == {"install": True} and values["runtimes"] == {"defaultEnabled": False}
    assert values["manager"]["nodeSelector"]
    assert not [r for r in record.resources if "training-operator" in r.name]


def test_the_runtime_is_created_after_the_chart_and_validates_against_the_crd(record):
    runtime = record.get("kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime",
                         "s-addons-runtime-trainstack-torch")
    release = next(r for r in record.by_type("kubernetes:helm.sh/v3:Release") if "trainer" in r.name)
    assert release.urn in runtime.dependencies
    crds.validate("trainer-v2.3.0", torch_runtime())


def test_the_check_runtime_is_the_torch_runtime_that_never_restarts(record):
    check = record.get("kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime",
                       "s-addons-runtime-trainstack-torch-check")
    training = torch_runtime()
    assert check.inputs["spec"]["template"]["spec"]["failurePolicy"] == {"maxRestarts": 0}
    assert training["spec"]["template"]["spec"]["failurePolicy"]["maxRestarts"] > 0
    assert check.inputs["spec"]["template"]["spec"]["replicatedJobs"] == (
        training["spec"]["template"]["spec"]["replicatedJobs"])
    crds.validate("trainer-v2.3.0", torch_runtime(CHECK_RUNTIME, restarts=0))


def test_the_all_reduce_check_is_a_trainjob_of_the_check_runtime_on_a_trainer_v2_stack():
    job = render_all_reduce(outputs_of("kueue-p5"), name="ar", group_name="p5", nodes=2, image="img:1",
                            queue=QueueRequest(team="llm"))
    assert job["kind"] == "TrainJob" and job["spec"]["runtimeRef"] == {"name": CHECK_RUNTIME}
    assert "--floor-gbps" in job["spec"]["trainer"]["command"] and "efa" in job["spec"]["trainer"]["command"]
    crds.validate("trainer-v2.3.0", job)
    v1 = render_all_reduce(variant_outputs("kueue-v1"), name="ar", group_name="p5", nodes=2, image="img:1",
                           queue=QueueRequest(team="llm"))
    assert v1["kind"] == "PyTorchJob"


def test_a_trainjob_validates_against_the_trainjob_crd():
    crds.validate("trainer-v2.3.0", trainjob())


def test_a_trainjob_carries_what_the_pytorchjob_carries():
    job = trainjob(nodes=4)
    v1 = render_pytorchjob(variant_outputs("kueue-v1"), name="fsdp", group_name="p5", nodes=4, image="img:1",
                           command=["torchrun", "train.py"], queue=QueueRequest(team="llm"))
    v1_pod = v1["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]
    v1_container = v1_pod["spec"]["containers"][0]
    trainer = job["spec"]["trainer"]
    assert (trainer["numNodes"], trainer["numProcPerNode"]) == (4, 8)
    assert trainer["resourcesPerNode"] == v1_container["resources"]  # 8 GPUs, 32 EFA, huge pages, memory
    # The same EFA settings; the checkpoint paths are the job's, the stack differs by name only.
    assert [e for e in trainer["env"] if not e["name"].startswith("TRAINSTACK_CHECKPOINT")] == [
        e for e in v1_container["env"] if not e["name"].startswith("TRAINSTACK_CHECKPOINT")]
    assert {e["name"] for e in trainer["env"]} >= {"TRAINSTACK_CHECKPOINT_DIR", "TRAINSTACK_CHECKPOINT_URI"}
    (patch,) = job["spec"]["runtimePatches"]
    (node,) = patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"]
    pod = node["template"]["spec"]["template"]
    assert pod["spec"]["nodeSelector"] == v1_pod["spec"]["nodeSelector"]
    assert pod["spec"]["tolerations"] == v1_pod["spec"]["tolerations"]
    assert pod["spec"]["volumes"] == [v for v in v1_pod["spec"]["volumes"] if v["name"] == "fsx"]
    assert job["metadata"]["labels"] == {"kueue.x-k8s.io/queue-name": "llm"}
    assert pod["metadata"]["annotations"] == {
        "kueue.x-k8s.io/podset-preferred-topology": "topology.k8s.aws/network-node-layer-3"}


def test_a_misplaced_patch_field_is_refused_by_the_crd():
    job = copy.deepcopy(trainjob())
    job["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"][0]["template"][
        "spec"]["template"]["spec"]["schedulerName"] = "neuron"  # PodSpecPatch has no schedulerName
    with pytest.raises(Exception, match="schedulerName"):
        crds.validate("trainer-v2.3.0", job)


def test_trainjobs_need_trainer_v2_on_the_stack():
    with pytest.raises(LaunchError, match="does not run Kubeflow Trainer v2"):
        render_trainjob(variant_outputs("kueue-v1"), name="x", group_name="p5", nodes=2, image="i", command=["t"],
                        queue=QueueRequest(team="llm"))


def test_v1_and_v2_together_are_refused_with_the_reason():
    config = copy.deepcopy(KUEUE_TRAINER)
    config["operators"]["trainingOperator"] = True
    with pytest.raises(ConfigError) as error:
        plan(config)
    assert "trainstack:operators.trainer" in str(error.value) and "one generation" in str(error.value)


# Trainer v2 for Neuron: the Open MPI runtime and TrainJobs on trn1 against it.

def trn1_trainjob(nodes=4, **arguments):
    return render_trainjob(variant_outputs("trn1-trainer"), name="llama", group_name="trn1", nodes=nodes,
                           image=arguments.pop("image", None), command=["python", "train.py"], **arguments)


def mpi_runtime_of(record):
    return [r for r in record["resources"] if r["type"].endswith(":ClusterTrainingRuntime")
            and r["inputs"]["metadata"]["name"] == MPI_RUNTIME]


def test_the_mpi_runtime_is_created_on_stacks_with_neuron_groups_only_and_validates_against_the_crd():
    (runtime,) = mpi_runtime_of(variant_record("trn1-trainer"))
    assert runtime["inputs"]["spec"] == mpi_runtime(NEURON_SCHEDULER_NAME, "us-east-1")["spec"]
    assert mpi_runtime_of(planned_record("kueue-p5")) == []  # GPU groups only: no Neuron scheduler there
    assert variant_outputs("trn1-trainer").operators.trainer_mpi_runtime == MPI_RUNTIME
    assert outputs_of("kueue-p5").operators.trainer_mpi_runtime is None
    crds.validate("trainer-v2.3.0", mpi_runtime(NEURON_SCHEDULER_NAME, "us-east-1"))


def test_the_mpi_runtime_has_the_shape_of_trainers_own_mpi_runtime_on_the_neuron_scheduler():
    spec = mpi_runtime(NEURON_SCHEDULER_NAME, "us-east-1")["spec"]
    assert spec["mlPolicy"]["mpi"] == {"numProcPerNode": 1, "mpiImplementation": "OpenMPI",
                                       "sshAuthMountPath": "/root/.ssh", "runLauncherAsNode": True}
    jobs = {j["name"]: j for j in spec["template"]["spec"]["replicatedJobs"]}
    assert jobs["launcher"]["dependsOn"] == [{"name": "node", "status": "Ready"}]
    assert jobs["launcher"]["template"]["metadata"]["labels"] == {"trainer.kubeflow.org/trainjob-ancestor-step":
                                                                  "trainer"}
    for job in jobs.values():
        pod = job["template"]["spec"]["template"]["spec"]
        assert pod["schedulerName"] == NEURON_SCHEDULER_NAME and job["template"]["spec"]["backoffLimit"] == 0
        assert pod["containers"][0]["securityContext"] == {"runAsUser": 0}
    assert "sshd -De" in jobs["node"]["template"]["spec"]["template"]["spec"]["containers"][0]["command"][-1]
    assert spec["template"]["spec"]["successPolicy"] == {"operator": "All", "targetReplicatedJobs": ["launcher"]}


def test_an_mpi_trainjob_validates_and_carries_what_the_mpijob_carries():
    job = trn1_trainjob()
    crds.validate("trainer-v2.3.0", job)
    v1 = render_mpijob(outputs_of("trn1"), name="llama", group_name="trn1", nodes=4,
                       image=NEURON_TRAINING_IMAGE_US_EAST_1,
                       command=["python", "train.py"])
    worker = v1["spec"]["mpiReplicaSpecs"]["Worker"]["template"]
    launcher = v1["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]
    trainer = job["spec"]["trainer"]
    # One rank per NeuronCore: 32 on a trn1.32xlarge, as the MPIJob's slots; the worker's devices and EFA.
    assert (trainer["numNodes"], trainer["numProcPerNode"]) == (4, v1["spec"]["slotsPerWorker"]) == (4, 32)
    assert trainer["resourcesPerNode"] == worker["spec"]["containers"][0]["resources"]
    same = [e for e in launcher["env"] if not e["name"].startswith("TRAINSTACK_CHECKPOINT")]
    assert [e for e in trainer["env"] if not e["name"].startswith("TRAINSTACK_CHECKPOINT")] == same
    # mpirun forwards every variable the ranks need, as the MPIJob's launcher does.
    script = trainer["command"][-1]
    for name in [e["name"] for e in trainer["env"] if not e["name"].startswith("OMPI_ALLOW")]:
        assert f"-x {name}" in script
    assert script.startswith("install -m 0600 /root/.ssh/id_rsa ") and "IdentityFile=" in script
    (patch,) = job["spec"]["runtimePatches"]
    patched = {j["name"]: j["template"]["spec"]["template"]["spec"]
               for j in patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"]}
    assert sorted(patched) == ["launcher", "node"]
    for pod in patched.values():
        assert pod["nodeSelector"] == worker["spec"]["nodeSelector"]
        assert pod["tolerations"] == worker["spec"]["tolerations"]
        assert pod["volumes"] == worker["spec"]["volumes"]  # /dev/shm and the FSx claim


def test_an_mpi_trainjob_refuses_another_image_and_a_single_node_with_the_reason():
    with pytest.raises(LaunchError, match="a TrainJob sets the image of the launcher only"):
        trn1_trainjob(image="img:1")
    image = NEURON_TRAINING_IMAGE_US_EAST_1
    assert trn1_trainjob(image=image)["spec"]["trainer"]["image"] == image
    with pytest.raises(LaunchError, match="takes 2 nodes at least"):
        trn1_trainjob(nodes=1)


def test_trainstack_launch_trainjob_renders_one_for_a_trn1_group(tmp_path, capsys):
    outputs = tmp_path / "outputs.json"
    outputs.write_text(json.dumps(variant_record("trn1-trainer")["outputs"]))
    assert main(["launch", "trainjob", "--outputs", str(outputs), "--group", "trn1", "--nodes", "2",
                 "--name", "llama", "--", "python", "train.py"]) == 0
    job = yaml.safe_load(capsys.readouterr().out)
    assert job["kind"] == "TrainJob" and job["spec"]["runtimeRef"] == {"name": MPI_RUNTIME}
    crds.validate("trainer-v2.3.0", job)
