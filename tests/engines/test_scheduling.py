"""The real kube-scheduler (v1.35.4) places every pod of every job the launchers render
for a shipped stack on nodes shaped as that stack's node groups register them
(support/cluster_nodes.py), and leaves a job its group cannot hold Pending with the
scheduler's reason. The operators are not run: the test creates the pods they would
(support/operator_pods.py)."""

from __future__ import annotations

import pytest
from support import rendered_jobs
from support.control_plane import Cluster
from support.engine_cluster import StackCluster, scheduling_message
from trainstack.rehearsal import engines

pytestmark = pytest.mark.engines(engines.KUBERNETES)


def _claims_devices(job: rendered_jobs.RenderedJob) -> bool:
    facts = rendered_jobs.outputs_of(job.stack).accelerated_groups.get(job.group)
    return facts is not None and facts.device_allocation == "dra"


# A pod that claims devices (Dynamic Resource Allocation) is placed only where a DRA driver published
# ResourceSlices; none runs here (the rehearsal says the same), so those jobs are admitted (test_admission) but
# not scheduled here. test_dra_allocation.py schedules them, with the controller manager making their claims and
# slices published as the pinned drivers publish them.
SCHEDULED_JOBS = [job for job in rendered_jobs.shipped_jobs(rendered_jobs.REGISTERED_STACKS)
                  if isinstance(job.document, dict)
                  and not _claims_devices(job)]
_current: dict[str, StackCluster] = {}


def stack_cluster(cluster: Cluster, stack: str, shape: str = "registered") -> StackCluster:
    """The stack's nodes, registered once for consecutive tests of the same stack."""
    key = f"{stack}/{shape}"
    if key not in _current:
        _current.clear()
        _current[key] = StackCluster(cluster, stack, shape)
    return _current[key]


def node_group_of(cluster: Cluster, pod: dict) -> str:
    return cluster.get(f"/api/v1/nodes/{pod['spec']['nodeName']}")["metadata"]["labels"]["trainstack.io/node-group"]


@pytest.mark.parametrize("job", SCHEDULED_JOBS, ids=lambda job: job.id)
def test_every_pod_of_a_rendered_job_is_bound_to_its_group(cluster: Cluster, job: rendered_jobs.RenderedJob) -> None:
    assert isinstance(job.document, dict)
    nodes = stack_cluster(cluster, job.stack)
    try:
        pods = nodes.schedule(job.document)
        pending = {name: scheduling_message(pod) for name, pod in pods.items() if not pod["spec"].get("nodeName")}
        assert not pending, f"{job.id}: pods left Pending by the scheduler: {pending}"
        for name, pod in pods.items():
            # The MPI launcher asks for no accelerator and runs on the system nodes.
            expected = "system" if name.endswith("-launcher") else job.group
            assert node_group_of(cluster, pod) == expected, f"{name} bound to {pod['spec']['nodeName']}"
        accelerated = [p for n, p in pods.items() if not n.endswith("-launcher")]
        assert len({p["spec"]["nodeName"] for p in accelerated}) == len(accelerated), "one worker per node"
    finally:
        nodes.delete_pods()


def test_a_job_larger_than_its_group_stays_pending_with_the_schedulers_reason(cluster: Cluster) -> None:
    """fsdp-p5's 16-node PyTorchJob on a p5 group that has registered only 15 nodes."""
    job = next(j for j in SCHEDULED_JOBS if j.id == "fsdp-p5/p5/render_pytorchjob/16")
    assert isinstance(job.document, dict)
    nodes = stack_cluster(cluster, "fsdp-p5")
    cluster.request("DELETE", "/api/v1/nodes/p5-15")
    _current.clear()  # the next test registers the stack's nodes again
    try:
        pods = nodes.schedule(job.document)
        pending = [pod for pod in pods.values() if not pod["spec"].get("nodeName")]
        assert len(pending) == 1 and len(pods) == 16
        message = scheduling_message(pending[0])
        assert "0/19 nodes are available" in message
        assert "Insufficient nvidia.com/gpu" in message and "Insufficient vpc.amazonaws.com/efa" in message
        assert "4 node(s) didn't match Pod's node affinity/selector" in message  # the system nodes
    finally:
        nodes.delete_pods()


# This test found, independently of the controller model (trainstack.controllers.cluster_autoscaler),
# that the template node of an EFA group had no huge pages (the ASG tags named none), so a
# p5 group at zero never grew for an EFA job. Both now pass on the tag the node groups carry.
def _scales_from_zero(job: rendered_jobs.RenderedJob) -> bool:
    return any(g.name == job.group and g.min_size == 0 and g.autoscaler == "cluster-autoscaler"
               for g in StackCluster.groups_of(job.stack))


SCALES_FROM_ZERO = [pytest.param(job, id=job.id) for job in SCHEDULED_JOBS if _scales_from_zero(job)]


@pytest.mark.parametrize("job", SCALES_FROM_ZERO)
def test_a_group_at_zero_fits_its_jobs_on_the_cluster_autoscalers_template_node(
        cluster: Cluster, job: rendered_jobs.RenderedJob) -> None:
    """The Cluster Autoscaler scales a group up from zero only for a pod that fits the node it
    imagines from the group's template (support/cluster_nodes.py ``template``): the real
    scheduler, given template nodes in place of registered ones, must place the job."""
    assert isinstance(job.document, dict)
    nodes = stack_cluster(cluster, job.stack, "template")
    try:
        pods = nodes.schedule(job.document)
        pending = {name: scheduling_message(pod) for name, pod in pods.items() if not pod["spec"].get("nodeName")}
        assert not pending, f"{job.id}: the autoscaler's template node cannot hold: {pending}"
    finally:
        nodes.delete_pods()


def test_an_mpi_trainjob_binds_its_launcher_and_its_nodes_one_to_each_trn1_node(cluster: Cluster) -> None:
    """Trainer v2 on Neuron: the launcher is rank 0's node, so it and the 3 node pods take the 4 trn1
    nodes, through the Neuron scheduler's name the runtime carries."""
    (job,) = [j for j in rendered_jobs.variant_jobs("trn1-trainer") if j.launcher == "render_trainjob"]
    assert rendered_jobs.variant_outputs("trn1-trainer").accelerated_groups == (
        rendered_jobs.outputs_of("trn1").accelerated_groups)  # the same groups as trn1
    nodes = stack_cluster(cluster, "trn1")
    try:
        pods = nodes.schedule(job.document)
        pending = {name: scheduling_message(pod) for name, pod in pods.items() if not pod["spec"].get("nodeName")}
        assert not pending, f"pods left Pending by the scheduler: {pending}"
        assert sorted(name.rsplit("-", 3)[1] for name in pods) == ["launcher", "node", "node", "node"]
        assert {node_group_of(cluster, pod) for pod in pods.values()} == {"trn1"}
        assert len({pod["spec"]["nodeName"] for pod in pods.values()}) == 4
    finally:
        nodes.delete_pods()
