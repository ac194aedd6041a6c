"""Jobs on a DRA group claim their devices through ResourceClaimTemplates instead of extended resources;
jobs on device-plugin groups are unchanged."""

import copy

import pytest
from support import rendered_jobs
from trainstack.launch import (
    LaunchError,
    claims,
    render_device_check,
    render_mpijob,
    render_pytorchjob,
    render_trainjob,
)
from trainstack.outputs import parse_outputs

IMAGE = "123456789012.dkr.ecr.us-east-2.amazonaws.com/train:1"
TORCHRUN = ["torchrun", "train.py"]


@pytest.fixture(scope="module")
def b200():
    return rendered_jobs.outputs_of("b200-dra")


def pods(job):
    return [spec["template"]["spec"] for spec in job["spec"]["pytorchReplicaSpecs"].values()]


def test_a_pytorchjob_on_b200_is_refused_because_the_training_operators_crd_refuses_its_claims(b200):
    """Found by the real API server with the training operator v1.8.1's CRD: strict decoding refuses
    resourceClaims[].resourceClaimTemplateName in a PyTorchJob's pod template. The refusal says what trains
    there instead, not that the stack lacks the training operator."""
    with pytest.raises(LaunchError, match=r"deviceAllocation: dra.*training operator v1.8.1.*trainstack launch "
                                          r"trainjob.*this stack runs Trainer v2"):
        render_pytorchjob(b200, name="fsdp", group_name="b200", nodes=2, image=IMAGE, command=TORCHRUN,
                          gpus_per_node=4)


def test_on_a_training_operator_stack_a_job_on_a_dra_group_is_refused_naming_the_keys_that_turn_on_trainer():
    """A stack that keeps the training operator beside a DRA group (a device-plugin group beside it, or HyperPod
    workers: config/checks/job_operators.py): b200-dra's outputs with that stack's operators."""
    contract = copy.deepcopy(rendered_jobs.planned_record("b200-dra")["outputs"]["trainstack"])
    contract["operators"].update(trainingOperator=True, trainerRuntime=None, trainerCheckRuntime=None)
    outputs = parse_outputs({"trainstack": contract})
    with pytest.raises(LaunchError, match=r"deviceAllocation: dra.*set operators.trainer: true and "
                                          r"operators.trainingOperator: false.*trainstack launch trainjob"):
        render_pytorchjob(outputs, name="fsdp", group_name="b200", nodes=2, image=IMAGE, command=TORCHRUN)
    # No PyTorchJob offered instead: on a DRA group it would be refused as above.
    with pytest.raises(LaunchError, match=r"set operators.trainer: true and operators.trainingOperator: false\.$"):
        render_trainjob(outputs, name="fsdp", group_name="b200", nodes=2, image=IMAGE, command=TORCHRUN)


def test_the_device_check_on_b200_claims_its_gpus_and_every_efa_interface_from_a_template(b200):
    job = render_device_check(b200, name="check", group_name="b200", nodes=2, image=IMAGE)
    pod = job["spec"]["template"]["spec"]
    assert pod["resourceClaims"] == [{"name": "devices", "resourceClaimTemplateName": "b200-8-devices"}]
    resources = pod["containers"][0]["resources"]
    assert resources["claims"] == [{"name": "devices"}]
    assert not {"nvidia.com/gpu", "vpc.amazonaws.com/efa"} & set(resources.get("limits", {}))
    template, rendered = claims.documents(b200, "b200", job)
    assert rendered is job
    assert template["apiVersion"] == "resource.k8s.io/v1" and template["metadata"] == {"name": "b200-8-devices"}
    assert template["spec"]["spec"]["devices"]["requests"] == [
        {"name": "gpus", "exactly": {"deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount", "count": 8}},
        {"name": "efa", "exactly": {"deviceClassName": "efa.networking.k8s.aws", "allocationMode": "ExactCount",
                                    "count": 8}}]


def test_the_device_check_claims_in_the_queue_namespace_it_runs_in(b200):
    job = render_device_check(b200, name="check", group_name="b200", nodes=1, image=IMAGE)
    [template, _] = claims.documents(b200, "b200", {**job, "metadata": {**job["metadata"], "namespace": "team-a"}})
    assert template["metadata"] == {"name": "b200-8-devices", "namespace": "team-a"}


def test_a_job_on_a_device_plugin_group_comes_alone_and_requests_extended_resources():
    outputs = rendered_jobs.outputs_of("fsdp-p5")
    job = render_pytorchjob(outputs, name="fsdp", group_name="p5", nodes=2, image=IMAGE, command=TORCHRUN)
    assert claims.documents(outputs, "p5", job) == [job]
    for pod in pods(job):
        assert "resourceClaims" not in pod and pod["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "8"


def test_a_trainjob_on_a_dra_gpu_group_brings_its_own_runtime_whose_node_pods_claim_the_devices():
    """Trainer v2.3.0 drops a container's claims when a TrainJob sets resourcesPerNode (launch/claims.py), so the
    job names a TrainingRuntime of its own that claims them, and sets no resourcesPerNode."""
    outputs = rendered_jobs.outputs_of("b200-dra")
    job = render_trainjob(outputs, name="fsdp", group_name="b200", nodes=2, image=IMAGE, command=TORCHRUN,
                          gpus_per_node=4)
    runtime, template, applied = claims.documents(outputs, "b200", job)
    assert applied is job and template["metadata"]["name"] == "b200-4-devices"
    assert job["spec"]["runtimeRef"] == {"name": "fsdp", "kind": "TrainingRuntime", "apiGroup": "trainer.kubeflow.org"}
    assert "resourcesPerNode" not in job["spec"]["trainer"] and job["spec"]["trainer"]["numProcPerNode"] == 4
    assert (runtime["kind"], runtime["metadata"]["name"]) == ("TrainingRuntime", "fsdp")
    (node,) = runtime["spec"]["template"]["spec"]["replicatedJobs"]
    pod = node["template"]["spec"]["template"]["spec"]
    assert pod["resourceClaims"] == [{"name": "devices", "resourceClaimTemplateName": "b200-4-devices"}]
    (container,) = pod["containers"]
    assert container["resources"]["claims"] == [{"name": "devices"}]
    assert "nvidia.com/gpu" not in container["resources"]["limits"]
    assert container["resources"]["limits"]["hugepages-2Mi"] == "5120Mi"


def test_a_trainjob_across_gb200_instances_brings_a_compute_domain_and_claims_its_imex_channel():
    outputs = rendered_jobs.variant_outputs("gb200-trainer")
    job = render_trainjob(outputs, name="llm", group_name="gb200", nodes=9, image=IMAGE, command=TORCHRUN)
    domain, runtime, template, applied = claims.documents(outputs, "gb200", job)
    assert (domain["kind"], domain["apiVersion"], domain["metadata"]["name"]) == (
        "ComputeDomain", "resource.nvidia.com/v1beta1", "llm")
    assert domain["spec"] == {"numNodes": 0, "channel": {"resourceClaimTemplate": {"name": "llm-imex-channel"}}}
    (node,) = runtime["spec"]["template"]["spec"]["replicatedJobs"]
    pod = node["template"]["spec"]["template"]["spec"]
    assert pod["resourceClaims"] == [{"name": "devices", "resourceClaimTemplateName": "gb200-4-devices"},
                                     {"name": "imex-channel", "resourceClaimTemplateName": "llm-imex-channel"}]
    assert pod["containers"][0]["resources"]["claims"] == [{"name": "devices"}, {"name": "imex-channel"}]
    assert template["metadata"]["name"] == "gb200-4-devices" and applied is job  # the driver makes the channel's
    patched = job["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"][0]
    affinity = patched["template"]["spec"]["template"]["spec"]["affinity"]["podAffinity"]
    assert affinity["requiredDuringSchedulingIgnoredDuringExecution"][0]["topologyKey"] == "nvidia.com/gpu.clique"


def test_a_trainjob_on_one_gb200_instance_needs_no_compute_domain():
    outputs = rendered_jobs.variant_outputs("gb200-trainer")
    job = render_trainjob(outputs, name="one", group_name="gb200", nodes=1, image=IMAGE, command=TORCHRUN)
    assert [d["kind"] for d in claims.documents(outputs, "gb200", job)] == [
        "TrainingRuntime", "ResourceClaimTemplate", "TrainJob"]


def test_a_trainjob_on_a_dra_trainium_group_is_refused_with_the_launcher_to_use(trn1_dra):
    with pytest.raises(LaunchError, match=r"deviceAllocation: dra.*Open MPI TrainJob.*trainstack launch mpijob"):
        render_trainjob(trn1_dra, name="t", group_name="trn1", nodes=2, image=None, command=["python"])


NEURON_SELECTOR = [{"cel": {"expression": "device.attributes['neuron.aws.com'].resourceType == 'neuron_device'"}}]


@pytest.fixture(scope="module")
def trn1_dra():
    return rendered_jobs.variant_outputs("trn1-dra")


def test_the_device_check_on_a_dra_trainium_group_claims_its_neuron_devices_and_efa_from_a_template(trn1_dra):
    job = render_device_check(trn1_dra, name="check", group_name="trn1", nodes=2, image=IMAGE)
    pod = job["spec"]["template"]["spec"]
    assert pod["resourceClaims"] == [{"name": "devices", "resourceClaimTemplateName": "trn1-16-devices"}]
    assert "schedulerName" not in pod
    assert not {"aws.amazon.com/neuron", "vpc.amazonaws.com/efa"} & set(pod["containers"][0]["resources"]["limits"])
    template, _ = claims.documents(trn1_dra, "trn1", job)
    assert template["spec"]["spec"]["devices"] == {"requests": [
        {"name": "neurons", "exactly": {"deviceClassName": "neuron.aws.com", "allocationMode": "ExactCount",
                                        "count": 16, "selectors": NEURON_SELECTOR}},
        {"name": "efa", "exactly": {"deviceClassName": "efa.networking.k8s.aws", "allocationMode": "ExactCount",
                                    "count": 8}}]}


def test_mpijob_workers_on_a_dra_trainium_group_claim_devices_and_the_launcher_claims_none(trn1_dra):
    job = render_mpijob(trn1_dra, name="llama", group_name="trn1", nodes=4, image=IMAGE,
                        command=["python", "train.py"])
    worker = job["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]
    launcher = job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]
    assert worker["resourceClaims"] == [{"name": "devices", "resourceClaimTemplateName": "trn1-16-devices"}]
    assert worker["containers"][0]["resources"]["claims"] == [{"name": "devices"}]
    assert "aws.amazon.com/neuron" not in worker["containers"][0]["resources"]["limits"]
    assert "resourceClaims" not in launcher and "schedulerName" not in worker
    [template, rendered] = claims.documents(trn1_dra, "trn1", job)
    assert rendered is job and template["metadata"] == {"name": "trn1-16-devices", "namespace": "default"}


@pytest.mark.parametrize(("devices", "constraint"), [
    (4, "resource.aws.com/devicegroup4_id"), (8, "resource.aws.com/devicegroup8_id"), (16, None), (1, None),
    (2, None)])
def test_part_of_a_trainium_node_is_claimed_as_a_connected_group(trn1_dra, devices, constraint):
    template = claims.claim_template(trn1_dra.accelerated_groups["trn1"], "trn1", devices, None)
    constraints = template["spec"]["spec"]["devices"].get("constraints")
    assert constraints == ([{"requests": ["neurons"], "matchAttribute": constraint}] if constraint else None)
