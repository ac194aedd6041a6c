"""Jobs at 2,048 nodes (issue 55): every launcher renders a job on a 2,048-node group that the API server and the
controllers accept, each far under etcd's 1.5 MiB request limit; a job over a real limit (etcd's request size, an
Indexed Job's parallelism, the MPI operator's hostfile ConfigMap, Kueue's pod sets) is refused with the numbers.

Groups are capped at 1,000 nodes by the config today (the lead's pools span several groups), so the outputs of a
recorded or planned stack are given 2,048 nodes on every group, queue quota and HyperPod instance group."""

import dataclasses
import json
from pathlib import Path

import pytest
from support.rendered_jobs import IMAGE, outputs_for, runtime_of, trainer_runtime
from trainstack.controllers import check_mpijob, check_pytorchjob, check_queued_job, check_trainjob
from trainstack.launch import LaunchError, QueueRequest, limits, render_mpijob, render_pytorchjob, render_trainjob
from trainstack.outputs import StackOutputs, parse_outputs
from trainstack.rehearsal.jobs import RenderedJob, jobs_for

RECORDED = Path(__file__).resolve().parents[1] / "data" / "outputs"
FRONTIER = 2048


def at_scale(outputs: StackOutputs, nodes: int = FRONTIER) -> StackOutputs:
    """The outputs with every group, queue quota and HyperPod instance group able to give ``nodes`` nodes."""
    groups = {name: g.model_copy(update={"max_nodes": nodes}) for name, g in outputs.accelerated_groups.items()}
    update: dict = {"accelerated_groups": groups}
    if outputs.scheduling is not None:
        queues = {team: q.model_copy(update={"quotas": {g: quota.model_copy(update={"max_nodes": nodes})
                                                        for g, quota in q.quotas.items()}})
                  for team, q in outputs.scheduling.queues.items()}
        update["scheduling"] = outputs.scheduling.model_copy(update={"queues": queues})
    if outputs.hyperpod is not None:
        members = [m.model_copy(update={"count": nodes}) for m in outputs.hyperpod.instance_groups]
        update["hyperpod"] = outputs.hyperpod.model_copy(update={"instance_groups": members})
    return outputs.model_copy(update=update)


def recorded(stack: str) -> StackOutputs:
    return parse_outputs(json.loads((RECORDED / f"{stack}.json").read_text()))


# Each launcher on each kind of stack it serves: PyTorchJobs (elastic over etcd, the all-reduce) and the device check
# on fsdp-p5; PyTorchJobs and the device check through Kueue's queues (kueue-v1); torch TrainJobs through Kueue
# (kueue-p5); MPIJobs on trn1; Open MPI TrainJobs on trn1 with Trainer; HyperPod's PyTorchJob.
STACKS = ("fsdp-p5", "kueue-v1", "kueue-p5", "trn1", "trn1-trainer", "hyperpod-eks")


def outputs_at_scale(stack: str) -> StackOutputs:
    return at_scale(recorded(stack) if (RECORDED / f"{stack}.json").exists() else outputs_for(stack))


def frontier_jobs() -> list[RenderedJob]:
    return [dataclasses.replace(job, stack=stack) for stack in STACKS
            for job in jobs_for(outputs_at_scale(stack), sizes="whole", image=IMAGE) if job.nodes == FRONTIER]


JOBS = frontier_jobs()


def test_every_launcher_renders_a_2048_node_job():
    launchers = {job.launcher for job in JOBS}
    assert launchers == {"render_device_check", "render_pytorchjob", "render_all_reduce", "render_trainjob",
                         "render_mpijob", "render_hyperpod_pytorchjob"}
    kinds = {(job.launcher, job.document["kind"]) for job in JOBS if isinstance(job.document, dict)}
    assert ("render_trainjob", "TrainJob") in kinds and ("render_mpijob", "MPIJob") in kinds


@pytest.mark.parametrize("job", JOBS, ids=lambda job: f"{job.stack}/{job.launcher}")
def test_a_2048_node_job_is_far_under_etcds_request_limit(job):
    size = limits.object_bytes(job.document)
    print(f"{job.stack} {job.launcher} ({job.document['kind']}, {job.nodes} nodes): {size:,} bytes of JSON; "
          f"etcd's limit {limits.ETCD_REQUEST_BYTES.value:,}")
    # A job's size does not grow with its nodes (replicas are a count): well under the limit, and under the 256 KiB
    # kubectl apply's last-applied-configuration annotation may hold.
    assert size < limits.ANNOTATION_BYTES.value


@pytest.mark.parametrize("job", JOBS, ids=lambda job: f"{job.stack}/{job.launcher}")
def test_the_controller_models_accept_a_2048_node_job(job):
    document, outputs = job.document, outputs_at_scale(job.stack)
    on_nodes = {name: pods for name, pods in limits.pod_sets(document).items()
                if not (document["kind"] == "MPIJob" and name == "Launcher")}  # the MPIJob's launcher needs no node
    assert sum(on_nodes.values()) == FRONTIER
    findings = [*check_pytorchjob(document, outputs.operators.etcd_endpoint), *check_mpijob(document),
                *check_queued_job(document, outputs, job.group)]
    if document["kind"] == "TrainJob":
        findings += check_trainjob(document, runtime_of(job))
    assert findings == []


def test_the_mpi_operator_hostfile_of_2048_workers_fits_its_configmap():
    job = next(j.document for j in JOBS if j.launcher == "render_mpijob")
    data = limits.mpi_operator_configmap_bytes(job["metadata"]["name"], job["metadata"].get("namespace", "default"),
                                               FRONTIER, job["spec"]["slotsPerWorker"])
    print(f"MPIJob {job['metadata']['name']}: ConfigMap data {data:,} bytes of {limits.CONFIGMAP_BYTES.value:,}")
    assert data < limits.CONFIGMAP_BYTES.value


def test_the_hostfile_is_counted_as_the_operator_writes_it():
    # mpi-operator v0.8.0 newConfigMap and updateDiscoverHostsInConfigMap, two workers of 16 slots in 'ml'.
    hostfile = "a-worker-0.a.ml.svc slots=16\na-worker-1.a.ml.svc slots=16\n"
    discover = "#!/bin/sh\necho a-worker-0.a.ml.svc\necho a-worker-1.a.ml.svc\n"
    assert limits.mpi_operator_configmap_bytes("a", "ml", 2, 16) == len(hostfile) + len(discover)
    # Trainer v2.3.0: the launcher's endpoint first, then the node job's, one line each.
    assert limits.trainer_mpi_configmap_bytes("t", 3, 2) == len("t-launcher-0-0.t slots=2\nt-node-0-0.t slots=2\n"
                                                                "t-node-0-1.t slots=2\n")


def test_a_job_over_etcds_request_limit_is_refused_with_the_numbers():
    # Data inlined in the command: the Master's and the Worker's templates each carry it.
    program = "x" * (800 * 1024)
    with pytest.raises(LaunchError, match=r"^PyTorchJob big is 1,6\d\d,\d{3} bytes as JSON; etcd refuses a write "
                                          r"over 1,572,864 bytes \(etcd v3\.6\.5 server/embed/config\.go "
                                          r"DefaultMaxRequestBytes\)"):
        render_pytorchjob(at_scale(recorded("fsdp-p5")), name="big", group_name="p5", nodes=FRONTIER, image="img:1",
                          command=["torchrun", "train.py", "--config-json", program])


def test_a_trainjob_over_an_indexed_jobs_parallelism_is_refused_with_the_numbers():
    outputs = at_scale(outputs_for("kueue-p5"), 100_001)
    team = sorted(outputs.scheduling.queues)[0]
    with pytest.raises(LaunchError, match=r"TrainJob wide: 100,001 nodes make its JobSet's 'node' Job an Indexed Job "
                                          r"of parallelism 100,001; Kubernetes refuses more than 100,000"):
        render_trainjob(outputs, name="wide", group_name="p5", nodes=100_001, image="img:1",
                        command=["torchrun", "train.py"], queue=QueueRequest(team=team))


def test_a_trainjob_of_100000_nodes_is_still_accepted():
    outputs = at_scale(outputs_for("kueue-p5"), 100_000)
    team = sorted(outputs.scheduling.queues)[0]
    job = render_trainjob(outputs, name="wide", group_name="p5", nodes=100_000, image="img:1",
                          command=["torchrun", "train.py"], queue=QueueRequest(team=team))
    assert job["spec"]["trainer"]["numNodes"] == 100_000
    assert check_trainjob(job, trainer_runtime("kueue-p5")) == []


def test_an_mpijob_whose_hostfile_outgrows_a_configmap_is_refused_with_the_numbers():
    outputs = at_scale(recorded("trn1"), 6000)
    name = "pretrain-" + "x" * 37  # '<name>-worker-5999' is 63 characters, a DNS-1035 label still
    with pytest.raises(LaunchError, match=rf"^MPIJob {name}: its operator writes ConfigMap {name}-config with a line "
                                          r"per node, 1,\d{3},\d{3} bytes of data; the API server refuses more than "
                                          r"1,048,576"):
        render_mpijob(outputs, name=name, group_name="trn1", nodes=6000, image="img:1",
                      command=["mpirun", "python", "train.py"])
    # The same job on 2,048 nodes fits.
    render_mpijob(outputs, name=name, group_name="trn1", nodes=FRONTIER, image="img:1",
                  command=["mpirun", "python", "train.py"])


def test_a_workload_of_more_than_18_pod_sets_is_refused():
    job = {"kind": "PyTorchJob", "metadata": {"name": "many"},
           "spec": {"pytorchReplicaSpecs": {f"R{i}": {"replicas": 1} for i in range(19)}}}
    with pytest.raises(LaunchError, match=r"^PyTorchJob many has 19 pod sets; a Kueue Workload holds at most 18 "):
        limits.check_job(job)


def test_every_limit_names_its_source_and_a_limit_that_does_not_exist_says_so():
    assert all(limit.source for limit in limits.LIMITS)
    assert {limit.value for limit in limits.LIMITS if "no maximum" in limit.source} == {None}
