"""Every shipped stack rehearsed on the real controllers it installs (engines/build.sh builds them;
the first run on a machine takes many minutes, later ones find them cached): every job the stack
is built for is admitted where it queues, its pods created by the real operator, bound by the
real scheduler and Running on kwok's nodes. And stacks broken one way each fail with the
controller's own reason, in one line."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from support import rendered_jobs
from support.rehearsals import rehearsed
from trainstack.plan import Plan
from trainstack.rehearsal import engines, rehearse
from trainstack.rehearsal.report import as_dict, render_text

pytestmark = pytest.mark.engines(*engines.REHEARSAL)

STACKS = rendered_jobs.REGISTERED_STACKS


@pytest.mark.parametrize("stack", STACKS)
def test_every_job_of_the_shipped_stack_runs_on_the_real_controllers(stack: str) -> None:
    result = rehearsed(stack)
    assert result.ok, render_text(result)
    if stack == "hyperpod":
        assert result.notes == ["a Slurm-orchestrated HyperPod stack has no Kubernetes layer to rehearse"]
    else:
        assert result.jobs and all(job.seen.running == job.seen.expected for job in result.jobs)


def test_b200_dras_device_check_claims_every_gpu_and_efa_interface_of_8_nodes_the_group_grown_from_2() -> None:
    """The pods' claims are made by kube-controller-manager and allocated by the scheduler from the slices the DRA
    drivers publish on each node (rehearsal/dra.py): 8 GPUs and 8 EFA interfaces, all of the pod's own node."""
    result = rehearsed("b200-dra")
    (job,) = [j for j in result.jobs if j.launcher == "render_device_check"]
    assert (job.seen.running, len(job.seen.nodes)) == (8, 8)
    assert result.groups["b200"]["registered"] == 2 and result.groups["b200"]["registeredAtEnd"] == 8
    node_of = {pod["metadata"]["name"]: pod["spec"]["nodeName"] for pod in job.evidence["pods"]}
    claims = job.evidence["claims"]
    assert len(claims) == 8
    for claim in claims:
        results = claim["status"]["allocation"]["devices"]["results"]
        owner = claim["metadata"]["ownerReferences"][0]["name"]
        assert {r["pool"] for r in results} == {node_of[owner]}
        assert sorted((r["request"], r["driver"]) for r in results) == sorted(
            [("gpus", "gpu.nvidia.com")] * 8 + [("efa", "dra.net")] * 8)
        assert all(r["device"] != "ena-0" for r in results)


def test_trn1_on_dra_runs_its_mpijob_each_worker_claiming_its_nodes_16_neuron_devices_and_8_efa_interfaces() -> None:
    """The generated variant trn1-dra (support/rendered_jobs.py): the real MPI operator makes the workers, which
    carry the launcher's claim; the scheduler allocates each from its own node's Neuron and EFA slices."""
    result = rehearse(Plan.from_dict(rendered_jobs.variant_record("trn1-dra")))
    assert result.ok, render_text(result)
    (job,) = [j for j in result.jobs if j.launcher == "render_mpijob"]
    node_of = {pod["metadata"]["name"]: pod["spec"]["nodeName"] for pod in job.evidence["pods"]}
    assert len(job.evidence["claims"]) == 4  # one per worker; the launcher claims nothing
    for claim in job.evidence["claims"]:
        results = claim["status"]["allocation"]["devices"]["results"]
        assert {r["pool"] for r in results} == {node_of[claim["metadata"]["ownerReferences"][0]["name"]]}
        assert sorted((r["request"], r["driver"]) for r in results) == sorted(
            [("neurons", "neuron.aws.com")] * 16 + [("efa", "dra.net")] * 8)


def test_a_trainjob_on_b200_dra_brings_its_runtime_and_real_trainer_hands_each_node_pod_its_claim() -> None:
    """The shipped b200-dra, on Kubeflow Trainer v2: the TrainJob names a TrainingRuntime of its own whose node pods
    claim the node's devices (launch/claims.py says why Trainer v2.3.0 leaves no other way). Real Trainer and JobSet
    keep the claim on each pod and on its node container, and the scheduler allocates every claim on the pod's node."""
    result = rehearsed("b200-dra")
    assert result.ok, render_text(result)
    (job,) = [j for j in result.jobs if j.launcher == "render_trainjob"]
    assert (job.seen.running, len(job.seen.nodes)) == (8, 8)
    node = next(r for r in job.evidence["jobset"]["spec"]["replicatedJobs"] if r["name"] == "node")
    pod = node["template"]["spec"]["template"]["spec"]
    assert [c["resourceClaimTemplateName"] for c in pod["resourceClaims"]] == ["b200-8-devices"]
    assert next(c for c in pod["containers"] if c["name"] == "node")["resources"]["claims"] == [{"name": "devices"}]
    node_of = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in job.evidence["pods"]}
    assert len(job.evidence["claims"]) == 8
    for claim in job.evidence["claims"]:
        results = claim["status"]["allocation"]["devices"]["results"]
        assert {r["pool"] for r in results} == {node_of[claim["metadata"]["ownerReferences"][0]["name"]]}
        assert sorted(r["request"] for r in results) == ["efa"] * 8 + ["gpus"] * 8


def test_fsdp_p5s_pytorchjob_runs_16_ranks_one_per_p5_the_group_grown_from_2_by_the_autoscaler() -> None:
    result = rehearsed("fsdp-p5")
    (job,) = [j for j in result.jobs if j.launcher == "render_pytorchjob"]
    assert (job.seen.kind, job.seen.running, len(job.seen.nodes)) == ("PyTorchJob", 16, 16)
    assert all(node.startswith("p5-") for node in job.seen.nodes)
    assert result.groups["p5"]["registered"] == 2 and result.groups["p5"]["registeredAtEnd"] == 16
    assert result.controllers["training-operator"] == "v1.8.1"
    # The growth is the model's, not the real autoscaler's, and the record says so.
    assert any(note.startswith("p5 grew from 2 to 16 nodes by trainstack's model of the Cluster Autoscaler")
               for note in result.notes), result.notes


def test_kueue_p5s_trainjob_is_admitted_by_kueue_onto_the_p5_flavor_inside_one_network_block() -> None:
    result = rehearsed("kueue-p5")
    (job,) = [j for j in result.jobs if j.launcher == "render_trainjob" and j.group == "p5"]
    assert job.seen.admitted and job.seen.flavors == ["p5"] and job.seen.cluster_queue == "llm"
    assert job.seen.topology, "Kueue's topology-aware scheduling assigned no domain"
    assert {"kueue", "jobset", "trainer"} <= set(result.controllers)


def test_trn1s_mpijob_runs_its_launcher_and_a_worker_per_trn1_through_the_mpi_operator() -> None:
    result = rehearsed("trn1")
    (job,) = [j for j in result.jobs if j.launcher == "render_mpijob"]
    assert job.seen.kind == "MPIJob" and job.seen.running == job.seen.expected == 5


def test_the_record_is_json_with_a_row_per_job() -> None:
    record = as_dict(rehearsed("trn1"))
    assert record["ok"] and record["stack"] == "trn1" and record["rehearsalVersion"] == 1
    assert {job["launcher"] for job in record["jobs"]} >= {"render_device_check", "render_mpijob"}


def _resource(plan: Plan, type_: str, name_part: str = "") -> Any:
    return next(r for r in plan.resources if r.type == type_ and name_part in r.name)


def _no_quota(plan: Plan) -> None:
    for queue in (r for r in plan.resources if r.type.endswith(":ClusterQueue")):
        for group in queue.inputs["spec"]["resourceGroups"]:
            for flavor in group["flavors"]:
                for quota in flavor["resources"]:
                    quota["nominalQuota"] = "0"
    cohort = _resource(plan, "kubernetes:kueue.x-k8s.io/v1beta2:Cohort")
    cohort.inputs["spec"]["resourceGroups"] = []


def _missing_level(plan: Plan) -> None:
    topology = _resource(plan, "kubernetes:kueue.x-k8s.io/v1beta2:Topology")
    topology.inputs["spec"]["levels"].insert(0, {"nodeLabel": "topology.k8s.aws/ultraserver-id"})


def _untolerated_taint(plan: Plan) -> None:
    group = next(r for r in plan.resources if r.type == "aws:eks/nodeGroup:NodeGroup"
                 and r.inputs["labels"].get("trainstack.io/node-group") == "p5")
    group.inputs["taints"] = [*group.inputs.get("taints", []), {"key": "team", "value": "research",
                                                                 "effect": "NO_SCHEDULE"}]


def _one_efa_interface(plan: Plan) -> None:
    template = next(r for r in plan.resources if r.type == "aws:ec2/launchTemplate:LaunchTemplate"
                    and any(i.get("interfaceType") in ("efa", "efa-only") for i in r.inputs.get("networkInterfaces")
                            or []))
    # The primary ENA interface and one EFA interface: the node advertises 1 vpc.amazonaws.com/efa.
    template.inputs["networkInterfaces"] = template.inputs["networkInterfaces"][:2]


BROKEN: dict[str, tuple[str, Callable[[Plan], None], str]] = {
    "no quota for the group's flavor": ("kueue-p5", _no_quota, "insufficient quota"),
    "a topology level the nodes lack": ("kueue-p5", _missing_level, "topology"),
    "no toleration for the group's taint": ("fsdp-p5", _untolerated_taint, "untolerated taint"),
    "an EFA request the group cannot satisfy": ("fsdp-p5", _one_efa_interface, "Insufficient vpc.amazonaws.com/efa"),
}


@pytest.mark.parametrize("breakage", sorted(BROKEN))
def test_a_stack_broken_one_way_fails_with_the_controllers_own_reason_in_one_line(breakage: str) -> None:
    stack, breaks, reason = BROKEN[breakage]
    plan = Plan.from_dict(copy.deepcopy(rendered_jobs.planned_record(stack)))
    breaks(plan)
    # The p5 group's job alone: the other groups' jobs would fail too, each after its whole timeout.
    result = rehearse(plan, timeout=20, launchers=frozenset({"render_device_check"}), groups=frozenset({"p5"}))
    assert not result.ok
    problem = next(job.problem for job in result.jobs if job.group == "p5")
    assert problem is not None and "\n" not in problem
    assert reason.lower() in problem.lower(), problem


def test_faults_a_lost_node_is_replaced_one_of_two_teams_waits_and_a_job_without_a_queue_never_runs() -> None:
    """kueue-p5's TrainJob on its 16 p5 nodes loses one: the Auto Scaling group's replacement joins, JobSet
    restarts the whole gang (Trainer's runtime fails its node Job on the first pod failure) and it runs
    whole again. Then both teams ask for all 16 nodes at once: Kueue admits one and holds the other. Just before
    them, llm's Job without a queue name: the API server refuses it to a member (the admission policy), and created
    by the admin, whom the policy lets through, it is held by the real Kueue on the stack's own configuration
    (manageJobsWithoutQueueName on the team namespaces) while the admitted team's later job runs whole."""
    plan = Plan.from_dict(rendered_jobs.planned_record("kueue-p5"))
    result = rehearse(plan, faults=True, launchers=frozenset({"render_trainjob"}))
    lost, teams, unqueued = result.faults
    assert lost["fault"] == "node lost" and lost["ok"], lost
    assert lost["job"] == "kueue-p5/p5/render_trainjob/16" and lost["replacement"] == "p5-16"
    assert "replaced 16 pod(s)" in lost["outcome"]  # the whole gang, not the one pod
    assert teams["fault"] == "two teams at once" and teams["group"] == "p5"
    admitted = sorted(name for name, team in teams["teams"].items() if team["admitted"])
    waiting = [team["reason"] for team in teams["teams"].values() if not team["admitted"]]
    assert len(admitted) == 1 and len(waiting) == 1 and waiting[0], teams
    assert unqueued["fault"] == "a job without a queue name" and unqueued["job"] == "llm/llm-no-queue"
    refused = unqueued["refused"] or "(the API server created it for the member)"
    assert "ValidatingAdmissionPolicy 'trainstack-team-jobs-queued'" in refused, refused
    assert "must name its team's Kueue queue: set the label kueue.x-k8s.io/queue-name: llm" in refused, refused
    # Kueue's webhook stored it suspended; its Workload names no queue, so no LocalQueue ever admits it.
    assert (unqueued["createdBy"], unqueued["suspended"], unqueued["pods"]) == ("the rehearsal's admin", True, 0), (
        unqueued["outcome"])
    reserved = {c["type"]: c for c in unqueued["workload"]["conditions"]}["QuotaReserved"]
    assert unqueued["workload"]["queueName"] == "" and (reserved["status"], reserved["reason"]) == (
        "False", "Inadmissible"), unqueued["workload"]
    assert unqueued["ok"] and "was admitted and ran whole" in unqueued["outcome"], unqueued["outcome"]


def test_kueue_admits_a_dra_groups_trainjob_by_quota_alone_and_places_the_device_plugin_groups_by_topology(
        tmp_path) -> None:
    """Kueue's topology-aware scheduling on a DRA group, rehearsed: kueue-p5 with its reserved group on p6-b200 under
    DRA beside p5 nodes on the device plugins (support/dra_queues.py). The DRA group's flavor has no topology (Kueue
    v0.19.2 counts pod-spec requests, never claims: addons/kueue.py), so real Kueue admits its TrainJob by the claimed
    devices' quota and places nothing by topology, while the p5 group's job keeps its topology domain."""
    from support import dra_queues
    from support.scratch import plan_config

    result = rehearse(plan_config(tmp_path, "kueue-dra", dra_queues.config()))
    assert result.ok, render_text(result)
    by_group = {j.group: j for j in result.jobs if j.launcher == "render_trainjob"}
    dra, plugins = by_group["p5"], by_group["h100"]
    assert dra.seen.admitted and dra.seen.flavors == ["p5"] and dra.seen.topology == []
    assert dra.seen.running == len(dra.seen.nodes) > 0
    assert plugins.seen.admitted and plugins.seen.topology, "the device-plugin group lost its topology domain"
