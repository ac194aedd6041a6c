"""The Kueue model: every job rendered for a stack with queues names a queue of the stack in
its namespace, asks for a topology level its group has, and passes Kueue's webhook checks
of topology annotations and pod-set groups; each way of breaking that is caught."""

import pytest
from support.rendered_jobs import all_variant_jobs, outputs_for, shipped_jobs
from trainstack.controllers import check_queued_job

QUEUED = [job for job in shipped_jobs() + all_variant_jobs()
          if isinstance(job.document, dict) and job.stack in ("kueue-p5", "kueue-v1")]


def outputs(stack):
    return outputs_for(stack)


def test_every_launcher_renders_queued_jobs_for_the_queued_stacks():
    assert {job.launcher for job in QUEUED} == {"render_device_check", "render_pytorchjob", "render_all_reduce",
                                                "render_trainjob"}


@pytest.mark.parametrize("job", QUEUED, ids=lambda job: job.id)
def test_every_queued_job_is_admissible(job):
    assert check_queued_job(job.document, outputs(job.stack), job.group) == []


def pytorchjob():
    """The 16-node PyTorchJob of fixed size (the rendered 16-node one is elastic: Workers alone), Master and Workers
    grouped for Kueue's topology."""
    from trainstack import launch
    from trainstack.rehearsal.jobs import IMAGE, first_queue

    outputs = outputs_for("kueue-v1")
    return launch.render_pytorchjob(outputs, name="p5-16", group_name="p5", nodes=16, image=IMAGE,
                                    command=["torchrun", "train.py"], queue=first_queue(outputs, "p5", 16))


def annotations(job, role):
    return job["spec"]["pytorchReplicaSpecs"][role]["template"]["metadata"]["annotations"]


def messages(job):
    return [f.message for f in check_queued_job(job, outputs_for("kueue-v1"), "p5")]


@pytest.mark.parametrize("edit, words", [
    (lambda j: j["metadata"].pop("labels"), "no kueue.x-k8s.io/queue-name label"),
    (lambda j: j["metadata"]["labels"].update({"kueue.x-k8s.io/queue-name": "audio"}), "queue audio is not one"),
    (lambda j: j["metadata"].update(namespace="default"), "the job in default"),
    (lambda j: annotations(j, "Worker").update({"kueue.x-k8s.io/podset-required-topology": "x"}),
     "carries 2 topology annotations"),
    (lambda j: annotations(j, "Worker").update({"kueue.x-k8s.io/podset-preferred-topology": "rack"}),
     "asks for topology level rack"),
    (lambda j: annotations(j, "Master").pop("kueue.x-k8s.io/podset-group-name"), "has 1 pod set(s)"),
    (lambda j: j["spec"]["pytorchReplicaSpecs"]["Master"].update(replicas=2), "one pod set of a single pod"),
])
def test_each_way_of_breaking_a_queued_job_is_caught(edit, words):
    job = pytorchjob()
    assert messages(job) == []
    edit(job)
    assert any(words in message for message in messages(job)), messages(job)


# Topology-aware flavors place only onto nodes that exist (found by `trainstack rehearse` against Kueue
# v0.19.2: kueue-p5's p5 group at minSize 0 never ran a p5 job).

def _kueue_p5_at(tmp_path, min_size: int):
    from support import plan_records
    from trainstack.plan import Plan

    def edit(config):
        config["trainstack:nodeGroups"][0].update(minSize=min_size, desiredSize=min_size)

    return Plan.from_dict(plan_records.record(tmp_path, "kueue-p5", edit))


def test_a_topology_aware_group_that_keeps_fewer_nodes_than_its_queues_give_is_an_error(tmp_path):
    from trainstack.controllers.kueue import check_topology_capacity
    from trainstack.outputs import parse_outputs
    from trainstack.policy import stack_from_plan

    plan = _kueue_p5_at(tmp_path, 0)
    (finding,) = check_topology_capacity(stack_from_plan(plan), parse_outputs(plan.outputs))
    assert finding.subject == "flavor p5" and finding.severity == "error"
    assert "keeps 0 (its minSize) while its queues can give 16" in finding.message
    assert "Set the group's minSize to 16" in finding.message


def test_the_shipped_kueue_p5_keeps_the_nodes_its_queues_give(tmp_path):
    from trainstack.controllers.kueue import check_topology_capacity
    from trainstack.outputs import parse_outputs
    from trainstack.policy import stack_from_plan

    plan = _kueue_p5_at(tmp_path, 16)
    assert check_topology_capacity(stack_from_plan(plan), parse_outputs(plan.outputs)) == []


def test_no_flavor_places_a_dra_group_by_topology_and_one_that_did_is_an_error(tmp_path):
    # support/dra_queues.py: kueue-p5's reserved group "p5" on p6-b200 under DRA, beside "h100" on device plugins.
    from support import dra_queues, policy_stacks
    from support.scratch import plan_config
    from trainstack.controllers.kueue import check_topology_on_dra
    from trainstack.names import KUEUE_RESOURCE_FLAVOR
    from trainstack.policy import stack_from_plan

    stack = stack_from_plan(plan_config(tmp_path, "s", dra_queues.config()))
    assert [f.message for f in check_topology_on_dra(stack)] == []
    flavor = next(r for r in stack.of_type(KUEUE_RESOURCE_FLAVOR) if r.props["metadata"]["name"] == "p5")
    placed = policy_stacks.with_props(stack, flavor.type, flavor.name,
                                      lambda props: props["spec"].update(topologyName="ec2-network-4-layers"))
    (finding,) = check_topology_on_dra(placed)
    assert finding.subject == "flavor p5" and finding.severity == "error" and finding.urn == flavor.urn
    assert "Kueue's topology-aware scheduling does not count" in finding.message
    assert "Remove topologyName" in finding.message
