"""The controller models (trainstack.controllers) against the real controllers, on the same objects:
each behaviour a model asserts that a controller here can show is read from what the real
controller made during the shipped stacks' rehearsals (support/rehearsals.py). Where the two
disagree the controller is right, and the model was fixed (the disagreements found so far are in
the modules' comments: the MPI operator's own launcher variables, Kueue's topology-aware scheduling
onto nodes that exist)."""

from __future__ import annotations

from typing import Any

import pytest
from support import rendered_jobs
from support.rehearsals import rehearsed
from trainstack import launch
from trainstack.controllers import check_mpijob, check_pytorchjob
from trainstack.controllers import kueue as kueue_model
from trainstack.controllers.jobs import env
from trainstack.controllers.mpi_operator import rank_env_problems
from trainstack.plan import Plan
from trainstack.policy import stack_from_plan
from trainstack.rehearsal import engines
from trainstack.rehearsal.cluster import cluster_for
from trainstack.rehearsal.jobs import IMAGE, RenderedJob
from trainstack.rehearsal.submission import JobResult, delete_job, submit

pytestmark = pytest.mark.engines(*engines.REHEARSAL)


def _job(stack: str, launcher: str, group: str) -> JobResult:
    return next(j for j in rehearsed(stack).jobs if j.launcher == launcher and j.group == group)


def _container(pod: dict[str, Any]) -> dict[str, Any]:
    container: dict[str, Any] = pod["spec"]["containers"][0]
    return container


def _role(job: JobResult, role: str) -> list[dict[str, Any]]:
    return [p for p in job.evidence["pods"] if (_container(p) and env(_container(p)).get("K_MPI_JOB_ROLE") == role)
            or p["metadata"].get("labels", {}).get("training.kubeflow.org/replica-type", "").lower() == role]


# The MPI operator (v0.8.0) on trn1's MPIJob.

def test_the_mpi_operators_hostfile_lists_every_worker_with_the_slots_the_model_expects() -> None:
    job = _job("trn1", "render_mpijob", "trn1")
    rendered = next(j.document for j in rendered_jobs.jobs_for(rendered_jobs.outputs_of("trn1"))
                    if j.launcher == "render_mpijob" and j.nodes == 4)
    assert isinstance(rendered, dict) and check_mpijob(rendered) == []
    workers = rendered["spec"]["mpiReplicaSpecs"]["Worker"]["replicas"]
    slots = rendered["spec"]["slotsPerWorker"]
    lines = job.evidence["hostfile"]["data"]["hostfile"].splitlines()
    assert len(lines) == workers and all(line.endswith(f" slots={slots}") for line in lines)


def test_the_real_launcher_hands_the_ranks_everything_the_model_says_they_need() -> None:
    job = _job("trn1", "render_mpijob", "trn1")
    (launcher,) = _role(job, "launcher")
    worker = _role(job, "worker")[0]
    assert env(_container(launcher))["OMPI_MCA_orte_default_hostfile"] == "/etc/mpi/hostfile"
    assert list(rank_env_problems(_container(launcher), _container(worker))) == []


# The training operator (v1.8.1) on fsdp-p5's PyTorchJob.

def test_the_training_operator_gives_every_rank_the_rendezvous_the_model_checks_for() -> None:
    job = _job("fsdp-p5", "render_pytorchjob", "p5")
    rendered = next(j.document for j in rendered_jobs.jobs_for(rendered_jobs.outputs_of("fsdp-p5"))
                    if j.launcher == "render_pytorchjob" and j.nodes == 16)
    etcd = rendered_jobs.outputs_of("fsdp-p5").operators.etcd_endpoint
    assert isinstance(rendered, dict) and check_pytorchjob(rendered, etcd) == []
    for pod in job.evidence["pods"]:
        variables = env(_container(pod))
        # The rehearsed 16-node job is elastic over the stack's etcd (rehearsal/jobs.py): the operator gives every
        # rank etcd's endpoint and the range of nodes it trains on.
        assert variables["PET_RDZV_ENDPOINT"] == etcd, pod["metadata"]["name"]
        assert variables["PET_NPROC_PER_NODE"] == "8"  # one rank per GPU the pod holds
        assert variables["PET_NNODES"] == "8:16", variables["PET_NNODES"]
        # Its own rendezvous on the shared etcd: the operator turns elasticPolicy.rdzvId into PET_RDZV_ID (issue 64).
        # (The rehearsed job is the rendered one under the rehearsal's own name: its id is <namespace>.<that name>.)
        rehearsed = pod["metadata"]["labels"]["training.kubeflow.org/job-name"]
        assert variables["PET_RDZV_ID"] == f"{pod['metadata']['namespace']}.{rehearsed}", pod["metadata"]["name"]
        assert rendered["spec"]["elasticPolicy"]["rdzvId"] == f"{rendered['metadata']['namespace']}.p5-16"


# Kubeflow Trainer v2.3.0 and JobSet v0.12.0 on kueue-p5's TrainJob.

def test_trainer_makes_a_jobset_whose_node_job_runs_num_nodes_pods_with_the_torch_variables() -> None:
    job = _job("kueue-p5", "render_trainjob", "p5")
    jobset = job.evidence["jobset"]
    node = next(r for r in jobset["spec"]["replicatedJobs"] if r["name"] == "node")
    assert node["template"]["spec"]["parallelism"] == 16
    container = next(c for c in node["template"]["spec"]["template"]["spec"]["containers"] if c["name"] == "node")
    assert {"PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"} <= set(
        env(container))
    assert env(container)["PET_NPROC_PER_NODE"] == "8"
    # Trainer sets no rendezvous id; the TrainJob's own PET_RDZV_ID reaches the node container (issue 64).
    assert env(container)["PET_RDZV_ID"].endswith(f".{jobset['metadata']['name']}"), env(container)


# Kueue v0.19.2 on kueue-p5: admission, quota, borrowing, topology.

def test_kueue_admits_the_trainjob_inside_one_network_block_as_the_launcher_asks() -> None:
    job = _job("kueue-p5", "render_trainjob", "p5")
    assert job.seen.admitted and job.seen.flavors == ["p5"]
    layer3 = {domain for domain in job.seen.topology if "network-node-layer-3=" in domain}
    assert len(layer3) == 1, job.seen.topology


def _device_check(outputs: Any, team: str, nodes: int, extra: int = 0) -> RenderedJob:
    document = launch.render_device_check(outputs, name=f"{team}-{nodes + extra}", group_name="p5", nodes=nodes,
                                          image=IMAGE, queue=launch.QueueRequest(team=team))
    document["spec"]["parallelism"] = document["spec"]["completions"] = nodes + extra
    return RenderedJob(outputs.stack, "render_device_check", "p5", nodes + extra, document)


def test_kueue_gives_each_team_exactly_the_nodes_the_queue_model_says_it_can_reach() -> None:
    """Each team's reach (guaranteed plus borrowed from the cohort, outputs ``scheduling``) is admitted;
    one node more is not, with Kueue's quota reason."""
    plan = Plan.from_dict(rendered_jobs.planned_record("kueue-p5"))
    outputs = rendered_jobs.outputs_of("kueue-p5")
    assert kueue_model.check_topology_capacity(stack_from_plan(plan), outputs) == []
    assert outputs.scheduling is not None
    with cluster_for(plan, ["default-scheduler"]) as running:
        for team, queue in sorted(outputs.scheduling.queues.items()):
            reach = queue.quotas["p5"].max_nodes
            for extra, admitted in ((0, True), (1, False)):
                job = _device_check(outputs, team, reach, extra)
                result = submit(running.cluster, running.nodes, job, timeout=20 if not admitted else 60,
                                progress=lambda line: None)
                assert bool(result.seen.admitted) is admitted, (team, reach + extra, result.problem)
                if not admitted:
                    assert result.problem and "quota" in result.problem.lower(), result.problem
                assert isinstance(job.document, dict)
                delete_job(running.cluster, job.document)


@pytest.mark.parametrize("stack", ["trn1", "fsdp-p5", "kueue-p5"])
def test_every_job_the_models_pass_the_real_controllers_run(stack: str) -> None:
    result = rehearsed(stack)
    assert result.jobs and all(job.ok for job in result.jobs), [job.problem for job in result.jobs]


# The engine tests' own stand-in for the operators (support/operator_pods.py), which they use to
# schedule every job of every variant without running the operators: held to the real ones.

@pytest.mark.parametrize(("stack", "launcher"), [("trn1", "render_mpijob"), ("fsdp-p5", "render_pytorchjob"),
                                                 ("kueue-p5", "render_trainjob"), ("fsdp-p5", "render_device_check")])
def test_the_engine_tests_stand_in_makes_as_many_pods_with_the_same_restart_policy_as_the_operator(
        stack: str, launcher: str) -> None:
    from support import operator_pods

    job = _job(stack, launcher, next(g for g in ("p5", "trn1") if any(
        j.group == g for j in rehearsed(stack).jobs)))
    rendered = next(j.document for j in rendered_jobs.jobs_for(rendered_jobs.outputs_of(stack))
                    if j.launcher == launcher and j.group == job.group and j.nodes == job.nodes)
    assert isinstance(rendered, dict)
    imitated = operator_pods.pods_of(rendered)
    real = job.evidence["pods"]
    assert len(imitated) == len(real)
    assert sorted(p["spec"].get("restartPolicy") for p in imitated) == sorted(p["spec"]["restartPolicy"] for p in real)
