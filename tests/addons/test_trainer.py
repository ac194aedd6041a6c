"""Kubeflow Trainer v2 beside v1: its chart at 2.3.0 with JobSet, trainstack's torch
ClusterTrainingRuntimes (training, and checks that never restart), and TrainJobs with the same
placement, fabric, checkpoint and queue settings as PyTorchJobs, all valid against the Trainer v2.3.0 CRDs."""

import copy

import pytest
from support import crds
from support.rendered_jobs import KUEUE_TRAINER, outputs_of, variant_outputs
from trainstack.addons.trainer import CHECK_RUNTIME, torch_runtime
from trainstack.config import ConfigError
from trainstack.launch import LaunchError, QueueRequest, render_all_reduce, render_pytorchjob, render_trainjob
from trainstack.plan import run_program
from trainstack.training_stack import TrainingStack


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
