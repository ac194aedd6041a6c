"""Every job a launcher renders for a team runs as that team (issue 54).

Each pod the job makes names the team's ServiceAccount, which the stack makes in the team's namespace and gives the
team's EKS Pod Identity role; the job's checkpoint location in the bucket is one that role may write; MPI's ranks,
started over ssh, get the role's credentials from their launcher. A stack without teams, and outputs written before
teams were tenants, render as they always did. Outputs come from the stacks' offline plans, never written by hand.
"""

from __future__ import annotations

import copy
import fnmatch
import functools
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from support.plan_records import record
from support.rendered_jobs import IMAGE, jobs_for, planned_record, variant_record
from trainstack import controllers, launch
from trainstack.controllers.mpi_operator import forwarded
from trainstack.launch import QueueRequest, claims
from trainstack.launch.restarts import CHECKPOINT_URI_ENV
from trainstack.launch.team_identity import POD_IDENTITY_ENV
from trainstack.outputs import StackOutputs, parse_outputs

CLUSTER_RUNTIME = "kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime"
CONFIG_GROUP = "kubernetes:yaml/v2:ConfigGroup"
ASSOCIATION = "aws:eks/podIdentityAssociation:PodIdentityAssociation"
ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"


def _trainium_teams(config: dict[str, Any]) -> None:
    """trn1 with two teams sharing its four nodes, the MPI operator and Trainer v2 (MPIJob and MPI TrainJob). Its
    FSx checkpoint export is left out: on a stack with teams it must sit in one team's directory."""
    config["trainstack:fsx"].pop("checkpoints")
    config["trainstack:operators"] = {"trainingOperator": False, "mpiOperator": True, "trainer": True, "kueue": True}
    config["trainstack:scheduling"] = {"teams": [
        {"name": "speech", "namespace": "speech", "cohort": "trn1-pool", "guaranteedNodes": {"trn1": 2}},
        {"name": "text", "namespace": "text", "cohort": "trn1-pool", "guaranteedNodes": {"trn1": 2}}]}


@functools.cache
def plan_of(stack: str) -> dict[str, Any]:
    """The plan record of a shipped stack, a generated variant of tests/support/rendered_jobs.py, or trn1-teams."""
    if stack == "trn1-teams":
        with tempfile.TemporaryDirectory() as directory:
            return record(Path(directory), "trn1", _trainium_teams)
    return variant_record(stack) if stack == "kueue-v1" else planned_record(stack)


# kueue-p5: Trainer v2 TrainJobs (torch), two teams; byo-p5: an existing cluster's team, PyTorchJobs; kueue-v1:
# kueue-p5 on the v1 training operator; trn1-teams: MPIJobs and MPI TrainJobs on Trainium.
TEAM_STACKS = ("kueue-p5", "byo-p5", "kueue-v1", "trn1-teams")


class TeamJob(NamedTuple):
    team: str
    group: str
    what: str
    """The launcher's job, in words (``p5 TrainJob``)."""
    job: dict[str, Any]


def team_jobs(outputs: StackOutputs) -> Iterator[TeamJob]:
    """Each launcher's job for every group each team's queue holds quota on, on two nodes where the group has them."""
    assert outputs.scheduling is not None
    operators = outputs.operators
    torch, mpi = ["torchrun", "train.py"], ["python", "train.py"]
    for team, queue in sorted(outputs.scheduling.queues.items()):
        for name in sorted(queue.quotas):
            group = outputs.accelerated_groups[name]
            nodes = min(2, group.max_nodes)
            common: dict[str, Any] = {"name": "job", "group_name": name, "nodes": nodes,
                                      "queue": QueueRequest(team=team)}
            yield TeamJob(team, name, "device check", launch.render_device_check(outputs, image=IMAGE, **common))
            if group.accelerator_kind == "nvidia-gpu":
                if operators.trainer_runtime:
                    yield TeamJob(team, name, "TrainJob",
                                  launch.render_trainjob(outputs, image=IMAGE, command=torch, **common))
                if operators.training_operator:
                    yield TeamJob(team, name, "PyTorchJob",
                                  launch.render_pytorchjob(outputs, image=IMAGE, command=torch, **common))
                if nodes * group.accelerators_per_node >= 2:
                    yield TeamJob(team, name, "all-reduce", launch.render_all_reduce(
                        outputs, image=IMAGE, floor_gbps=None if group.efa_interfaces_per_node else 1.0, **common))
            else:
                if operators.mpi_operator:
                    yield TeamJob(team, name, "MPIJob",
                                  launch.render_mpijob(outputs, image=IMAGE, command=mpi, **common))
                if operators.trainer_mpi_runtime and nodes >= 2:
                    yield TeamJob(team, name, "MPI TrainJob",
                                  launch.render_trainjob(outputs, image=None, command=mpi, **common))


def runtime_of(document: dict[str, Any], outputs: StackOutputs, rendered: TeamJob) -> dict[str, Any] | None:
    """The runtime a TrainJob names: the one it brings (a DRA group's) or the stack's ClusterTrainingRuntime; None
    for other kinds."""
    job = rendered.job
    if job["kind"] != "TrainJob":
        return None
    name = job["spec"]["runtimeRef"]["name"]
    brought = [d for d in claims.documents(outputs, rendered.group, job)[:-1]
               if d["kind"] == "TrainingRuntime" and d["metadata"]["name"] == name]
    if brought:
        return brought[0]
    (runtime,) = [r["inputs"] for r in document["resources"]
                  if r["type"] == CLUSTER_RUNTIME and r["inputs"]["metadata"]["name"] == name]
    return dict(runtime)


def pod_specs(job: dict[str, Any], runtime: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Where each pod of the job takes its spec from, by the pod set's name. A TrainJob's pods are the replicated jobs
    of its runtime, each as the job's runtime patch leaves it (an unpatched one keeps the runtime's account)."""
    spec = job["spec"]
    if job["kind"] == "Job":
        return {"pods": spec["template"]["spec"]}
    if job["kind"] == "TrainJob":
        assert runtime is not None
        patched = {r["name"]: r["template"]["spec"]["template"]["spec"] for patch in spec["runtimePatches"]
                   for r in patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"]}
        return {r["name"]: {**r["template"]["spec"]["template"]["spec"], **patched.get(r["name"], {})}
                for r in runtime["spec"]["template"]["spec"]["replicatedJobs"]}
    replicas = spec.get("pytorchReplicaSpecs") or spec["mpiReplicaSpecs"]
    return {name: replica["template"]["spec"] for name, replica in replicas.items()}


def service_accounts(document: dict[str, Any]) -> set[tuple[str, str]]:
    """(namespace, name) of every ServiceAccount the stack's plan makes."""
    objects = [o for r in document["resources"] if r["type"] == CONFIG_GROUP for o in r["inputs"].get("objs") or []]
    return {(o["metadata"]["namespace"], o["metadata"]["name"]) for o in objects if o["kind"] == "ServiceAccount"}


@pytest.mark.parametrize("stack", TEAM_STACKS)
def test_every_pod_of_every_job_a_launcher_renders_for_a_team_runs_as_that_teams_service_account(stack):
    document = plan_of(stack)
    outputs = parse_outputs(document["outputs"])
    assert outputs.scheduling is not None
    made = service_accounts(document)
    kinds = set()
    for rendered in team_jobs(outputs):
        team, group, what, job = rendered
        queue = outputs.scheduling.queues[team]
        accounts = {pods: spec.get("serviceAccountName")
                    for pods, spec in pod_specs(job, runtime_of(document, outputs, rendered)).items()}
        assert accounts and set(accounts.values()) == {queue.service_account}, (
            f"{stack}: team {team}'s {group} {what} runs its pods as {accounts}, not as {queue.service_account}")
        assert (job["metadata"]["namespace"], queue.service_account) in made, (
            f"{stack}: team {team}'s {group} {what} names {queue.service_account}, which namespace "
            f"{job['metadata']['namespace']} does not hold")
        kinds.add(job["kind"])
    assert kinds == {"kueue-p5": {"Job", "TrainJob"}, "byo-p5": {"Job", "PyTorchJob"},
                     "kueue-v1": {"Job", "PyTorchJob"}, "trn1-teams": {"Job", "MPIJob", "TrainJob"}}[stack]


def checkpoint_uri(job: dict[str, Any]) -> str:
    """The TRAINSTACK_CHECKPOINT_URI the job's training containers get."""
    found = {e["value"] for e in _envs(job) if e["name"] == CHECKPOINT_URI_ENV}
    assert len(found) == 1, found
    return found.pop()


def _envs(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "env" and isinstance(value, list):
                yield from value
            else:
                yield from _envs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _envs(item)


def writable_objects(document: dict[str, Any], namespace: str, account: str) -> list[str]:
    """The object ARNs the Pod Identity role of ``namespace/account`` may PutObject to, read through the plan: the
    association names the role, the role's inline policy the resources."""
    resources = document["resources"]
    (association,) = [r["inputs"] for r in resources if r["type"] == ASSOCIATION
                      and (r["inputs"]["namespace"], r["inputs"]["serviceAccount"]) == (namespace, account)]
    role = association["roleArn"].rsplit("/", 1)[1]
    policies = [json.loads(r["inputs"]["policy"]) for r in resources
                if r["type"] == ROLE_POLICY and r["inputs"]["role"] == role]
    return [arn for policy in policies for statement in policy["Statement"] if statement["Effect"] == "Allow"
            and "s3:PutObject" in statement["Action"] for arn in statement["Resource"]]


@pytest.mark.parametrize("stack", ["kueue-p5", "kueue-v1", "trn1-teams"])
def test_the_role_a_teams_job_runs_as_may_write_where_the_job_is_told_to_checkpoint(stack):
    document = plan_of(stack)
    outputs = parse_outputs(document["outputs"])
    assert outputs.scheduling is not None and outputs.checkpoint_bucket
    for team, group, what, job in team_jobs(outputs):
        if job["kind"] == "Job":
            continue  # the device check writes no checkpoint
        queue = outputs.scheduling.queues[team]
        uri = checkpoint_uri(job)
        checkpoint = f"arn:aws:s3:::{uri.removeprefix('s3://')}step-100/model.pt"
        allowed = writable_objects(document, job["metadata"]["namespace"], str(queue.service_account))
        assert any(fnmatch.fnmatchcase(checkpoint, arn) for arn in allowed), (
            f"{stack}: team {team}'s {group} {what} checkpoints to {uri}, but its role writes only {allowed}")


def launcher_argv(job: dict[str, Any]) -> list[str]:
    """What runs mpirun: an MPIJob's Launcher container, or the MPI TrainJob's trainer (rank 0's node)."""
    if job["kind"] == "MPIJob":
        return list(job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["command"])
    return list(job["spec"]["trainer"]["command"])


def older_outputs(document: dict[str, Any]) -> StackOutputs:
    """The stack's outputs as written before teams were tenants: queues without an account or checkpoint prefix."""
    older = copy.deepcopy(document["outputs"])
    for queue in older["trainstack"]["scheduling"]["queues"].values():
        del queue["serviceAccount"], queue["checkpointPrefix"]
    return parse_outputs(older)


def model_findings(document: dict[str, Any], outputs: StackOutputs, rendered: TeamJob) -> list[str]:
    """What every job model finds in the job, in words."""
    job, runtime = rendered.job, runtime_of(document, outputs, rendered)
    return [f.message for f in controllers.check_mpijob(job) + controllers.check_restarts(job)
            + controllers.check_queued_job(job, outputs, rendered.group)
            + (controllers.check_trainjob(job, runtime) if runtime is not None else [])]


def test_mpi_ranks_started_over_ssh_get_the_teams_pod_identity_from_their_launcher():
    outputs = parse_outputs(plan_of("trn1-teams")["outputs"])
    launched = [rendered for rendered in team_jobs(outputs) if rendered.job["kind"] != "Job"]
    assert {rendered.what for rendered in launched} == {"MPIJob", "MPI TrainJob"}
    for team, _, what, job in launched:
        # Ranks inherit sshd's environment, not their pod's: the Pod Identity variables come from mpirun -x.
        assert set(POD_IDENTITY_ENV) <= forwarded(launcher_argv(job)), f"team {team}'s {what}"


@pytest.mark.parametrize("stack", TEAM_STACKS)
def test_running_as_the_team_gives_the_controller_models_nothing_new_to_find(stack):
    document = plan_of(stack)
    today, before = parse_outputs(document["outputs"]), older_outputs(document)
    for rendered, old in zip(team_jobs(today), team_jobs(before), strict=True):
        team, group, what, job = rendered
        assert model_findings(document, today, rendered) == model_findings(document, before, old), (
            f"{stack}: team {team}'s {group} {what}")
        # The MPI operator's and Trainer's models read what mpirun forwards and what the runtime patch targets.
        runtime = runtime_of(document, today, rendered)
        assert controllers.check_mpijob(job) == [], f"{stack}: team {team}'s {group} {what}"
        assert runtime is None or controllers.check_trainjob(job, runtime) == [], f"{stack}: team {team}'s {what}"


@pytest.mark.parametrize("stack", ["fsdp-p5", "trn1"])
def test_a_stack_without_teams_renders_jobs_that_name_no_service_account(stack):
    outputs = parse_outputs(planned_record(stack)["outputs"])
    assert outputs.scheduling is None
    rendered = [json.dumps(job.document) for job in jobs_for(outputs)]
    assert rendered and not [text for text in rendered if "serviceAccountName" in text or "AWS_CONTAINER" in text
                             or "/teams/" in text]


def _without_team_identity(node: Any, team_prefix: str) -> Any:
    """A rendered job as outputs without a team's account would have it: no serviceAccountName, no team prefix in
    the checkpoint location, no Pod Identity variables forwarded by mpirun."""
    if isinstance(node, dict):
        return {key: _without_team_identity(value, team_prefix) for key, value in node.items()
                if key != "serviceAccountName"}
    if isinstance(node, list):
        kept = [value for index, value in enumerate(node)
                if not (value == "-x" and index + 1 < len(node) and node[index + 1] in POD_IDENTITY_ENV)
                and not (value in POD_IDENTITY_ENV and index > 0 and node[index - 1] == "-x")]
        return [_without_team_identity(value, team_prefix) for value in kept]
    if isinstance(node, str):
        for name in POD_IDENTITY_ENV:
            node = node.replace(f" -x {name}", "")
        return node.replace(f"/{team_prefix}", "/")
    return node


@pytest.mark.parametrize("stack", ["kueue-p5", "trn1-teams"])
def test_outputs_written_before_teams_were_tenants_render_their_jobs_as_before_byte_for_byte(stack):
    document = plan_of(stack)
    today, before = parse_outputs(document["outputs"]), older_outputs(document)
    assert today.scheduling is not None
    compared = 0
    for (team, group, what, job), old in zip(team_jobs(today), team_jobs(before), strict=True):
        expected = _without_team_identity(job, str(today.scheduling.queues[team].checkpoint_prefix))
        assert json.dumps(old.job) == json.dumps(expected), f"{stack}: team {team}'s {group} {what} changed"
        assert "serviceAccountName" not in json.dumps(old.job) and "AWS_CONTAINER" not in json.dumps(old.job)
        compared += 1
    assert compared > 0
