"""Jobs on a stack with Kueue queues: every launcher names the team's LocalQueue, runs in
the team's namespace, asks Kueue to keep its nodes in one network block, and a job wider
than the team's queue can ever be given is refused with the numbers."""

import copy
import tempfile
from pathlib import Path

import pytest
from support.rendered_jobs import KUEUE_V1, outputs_of, variant_outputs
from support.scratch import plan_config
from trainstack.launch import LaunchError, QueueRequest, render_all_reduce, render_device_check, render_pytorchjob
from trainstack.launch.queueing import describe_queues
from trainstack.outputs import parse_outputs

QUEUE = "kueue.x-k8s.io/queue-name"
PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
REQUIRED = "kueue.x-k8s.io/podset-required-topology"
LAYER = "topology.k8s.aws/network-node-layer-"


def pytorchjob(outputs, nodes=4, **queue):
    return render_pytorchjob(outputs, name="fsdp", group_name="p5", nodes=nodes, image="img:1",
                             command=["torchrun", "train.py"], queue=QueueRequest(**queue) if queue else None)


def pod_annotations(job):
    return {role: spec["template"].get("metadata", {}).get("annotations", {})
            for role, spec in job["spec"]["pytorchReplicaSpecs"].items()}


def test_a_pytorchjob_names_the_team_queue_runs_in_its_namespace_and_prefers_one_bottom_layer_block():
    job = pytorchjob(variant_outputs("kueue-v1"), team="llm")
    assert job["metadata"]["labels"] == {QUEUE: "llm"}
    assert job["metadata"]["namespace"] == "llm"
    # Master and Worker are one pod-set group: Kueue places both in the same block.
    assert pod_annotations(job) == {
        role: {PREFERRED: f"{LAYER}3", "kueue.x-k8s.io/podset-group-name": "nodes"} for role in ("Master", "Worker")}


def test_a_required_topology_at_a_named_layer_and_a_priority_class():
    job = pytorchjob(variant_outputs("kueue-v1"), team="llm", topology="required", layer=2, priority="experiment")
    assert job["metadata"]["labels"] == {QUEUE: "llm", "kueue.x-k8s.io/priority-class": "experiment"}
    assert {a[REQUIRED] for a in pod_annotations(job).values()} == {f"{LAYER}2"}


def test_the_validation_jobs_go_through_the_same_queue():
    outputs = outputs_of("kueue-p5")
    check = render_device_check(outputs, name="check", group_name="p5", nodes=16, image="img:1",
                                queue=QueueRequest(team="llm"))
    assert check["metadata"] == {"name": "check", "namespace": "llm", "labels": {QUEUE: "llm"}}
    assert check["spec"]["template"]["metadata"]["annotations"] == {PREFERRED: f"{LAYER}3"}
    nccl = render_all_reduce(outputs, name="nccl", group_name="p5", nodes=2, image="img:1",
                             queue=QueueRequest(team="llm"))
    assert nccl["kind"] == "TrainJob" and nccl["metadata"]["labels"] == {QUEUE: "llm"}


@pytest.fixture(scope="module")
def llm_does_not_borrow():
    config = copy.deepcopy(KUEUE_V1)  # PyTorchJobs: the v1 training operator
    config["scheduling"]["teams"][0]["borrowing"] = False
    with tempfile.TemporaryDirectory() as directory:
        return parse_outputs(plan_config(Path(directory), "kueue-p5", config).outputs)


def test_a_job_wider_than_the_teams_quota_is_refused_with_the_numbers(llm_does_not_borrow):
    pytorchjob(llm_does_not_borrow, nodes=6, team="llm")  # its whole guarantee fits
    with pytest.raises(LaunchError) as error:
        pytorchjob(llm_does_not_borrow, nodes=7, team="llm")
    message = str(error.value)
    assert "at most 6 nodes of 'p5'" in message
    assert "48 nvidia.com/gpu, 192 vpc.amazonaws.com/efa" in message
    assert "asks for 7 nodes" in message
    # vision borrows the cohort's spare nodes and llm's idle guarantee: the whole reservation.
    check = render_device_check(llm_does_not_borrow, name="c", group_name="p5", nodes=16, image="i",
                                queue=QueueRequest(team="vision"))
    assert check["spec"]["parallelism"] == 16


def test_a_job_of_the_second_team_runs_in_its_namespace_where_the_stack_put_the_fsx_claim():
    job = pytorchjob(variant_outputs("kueue-v1"), team="vision")
    assert job["metadata"]["namespace"] == "vision"


@pytest.mark.parametrize("kwargs, words", [
    ({}, "a queue per team (llm, vision): say which team"),
    ({"team": "audio"}, "no team 'audio' (teams: llm, vision)"),
    ({"team": "llm", "layer": 4}, "network layers 1 to 3; layer 4"),
    ({"team": "llm", "priority": "urgent"}, "'urgent' is not one of the stack's (production-training, experiment)"),
])
def test_a_queue_request_the_stack_cannot_serve_is_refused(kwargs, words):
    with pytest.raises(LaunchError, match=words.replace("(", r"\(").replace(")", r"\)")):
        render_pytorchjob(variant_outputs("kueue-v1"), name="x", group_name="p5", nodes=2, image="i", command=["t"],
                          queue=QueueRequest(**kwargs))


def test_a_job_in_another_namespace_than_its_teams_queue_is_refused():
    with pytest.raises(LaunchError, match="team llm's queue is in namespace llm"):
        render_pytorchjob(variant_outputs("kueue-v1"), name="x", group_name="p5", nodes=2, image="i", command=["t"],
                          namespace="vision", queue=QueueRequest(team="llm"))


def test_a_stack_without_queues_renders_no_queue_and_refuses_queue_options():
    job = pytorchjob(outputs_of("fsdp-p5"))
    assert "labels" not in job["metadata"]
    assert all(a == {} for a in pod_annotations(job).values())
    with pytest.raises(LaunchError, match="has no Kueue queues"):
        pytorchjob(outputs_of("fsdp-p5"), team="llm")


@pytest.fixture(scope="module")
def dra_beside_device_plugins():
    # support/dra_queues.py: kueue-p5's reserved group "p5" on p6-b200 under DRA, beside "h100" on device plugins.
    from support import dra_queues

    with tempfile.TemporaryDirectory() as directory:
        return parse_outputs(plan_config(Path(directory), "s", dra_queues.config()).outputs)


def test_a_job_on_a_dra_group_is_queued_by_quota_alone_and_a_required_topology_is_refused_naming_dra(
        dra_beside_device_plugins):
    outputs = dra_beside_device_plugins
    check = render_device_check(outputs, name="c", group_name="p5", nodes=16, image="i",
                                queue=QueueRequest(team="llm"))
    assert check["metadata"]["labels"] == {QUEUE: "llm"}
    assert "annotations" not in check["spec"]["template"].get("metadata", {})
    beside = render_device_check(outputs, name="c", group_name="h100", nodes=2, image="i",
                                 queue=QueueRequest(team="llm"))
    assert beside["spec"]["template"]["metadata"]["annotations"] == {PREFERRED: f"{LAYER}3"}
    with pytest.raises(LaunchError, match="or it is a DRA group, whose claimed devices Kueue's topology-aware "
                                          "scheduling does not count"):
        render_device_check(outputs, name="c", group_name="p5", nodes=2, image="i",
                            queue=QueueRequest(team="llm", topology="required"))
    assert ("topology p5: none, a DRA group (Kueue's topology-aware scheduling does not count claimed devices)"
            in describe_queues(outputs))
