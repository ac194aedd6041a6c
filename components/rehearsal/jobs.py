"""The jobs a rehearsal submits: for each accelerated group of the stack, the validation job
(``render_device_check``) and every launcher's job that serves the group's accelerator, each on
the group's whole size (the most a team will ask of it), through the team's queue where the
stack has Kueue queues. HyperPod-on-EKS groups get their launcher's job the same way.

The same list feeds the controller models' tests (tests/support/rendered_jobs.py), so the
models and the real controllers are judged on the same objects.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .. import launch
from ..launch import claims
from ..outputs import StackOutputs

IMAGE = "rehearsal.invalid/trainstack:never-pulled"
"""The image of every rehearsed job: kwok never pulls one."""


@dataclass(frozen=True)
class RenderedJob:
    stack: str
    launcher: str
    """The launcher's function name, e.g. ``render_pytorchjob``."""
    group: str
    nodes: int
    document: dict[str, Any] | str
    """The Kubernetes object, or the sbatch script's text."""
    prerequisites: tuple[dict[str, Any], ...] = ()
    """On a DRA group, what is applied before the job (``launch.claims.documents``): the TrainingRuntime a TrainJob
    brings, the ResourceClaimTemplates its pods name."""

    @property
    def id(self) -> str:
        return f"{self.stack}/{self.group}/{self.launcher}/{self.nodes}"


def jobs_for(outputs: StackOutputs, sizes: str = "both", image: str = IMAGE,
             named_by_launcher: bool = False) -> Iterator[RenderedJob]:
    """Every job the launchers render for the groups of ``outputs``: on one node and on the group's whole
    size (``sizes="both"``), or on the whole size only (``"whole"``). ``named_by_launcher`` gives each job
    its launcher's name too (``p5-16-trainjob``), so that jobs submitted one after another never meet the
    objects a deleted one of the same name left behind (the rehearsal saw Trainer stall on that)."""
    for name, group in sorted(outputs.accelerated_groups.items()):
        counts = sorted({1, group.max_nodes}) if sizes == "both" else [group.max_nodes]
        for nodes in counts:
            yield from _eks_jobs(outputs, name, group.accelerator_kind, nodes, group.accelerators_per_node,
                                 group.efa_interfaces_per_node, image, named_by_launcher)
    hyperpod = outputs.hyperpod
    if hyperpod is not None:
        for member in hyperpod.instance_groups:
            if hyperpod.orchestrator == "slurm" and member.name in hyperpod.partitions:
                yield RenderedJob(outputs.stack, "render_sbatch", member.name, member.count, launch.render_sbatch(
                    outputs, name="train", group_name=member.name, nodes=member.count,
                    command=["torchrun", "train.py"]))
            elif hyperpod.orchestrator == "eks" and member.accelerators_per_node:
                yield RenderedJob(outputs.stack, "render_hyperpod_pytorchjob", member.name, member.count,
                                  launch.render_hyperpod_pytorchjob(outputs, name="train", group_name=member.name,
                                                                    nodes=member.count, image=image,
                                                                    command=["torchrun", "train.py"]))


def _eks_jobs(outputs: StackOutputs, group: str, kind: str, nodes: int, accelerators_per_node: int,
              efa_interfaces_per_node: int, image: str, named_by_launcher: bool) -> Iterator[RenderedJob]:
    queue = first_queue(outputs, group, nodes)

    def job(launcher: str, **arguments: Any) -> RenderedJob:
        render = getattr(launch, launcher)
        arguments.setdefault("image", image)
        if queue is not None:
            arguments["queue"] = queue
        name = f"{group}-{nodes}-{launcher.removeprefix('render_').replace('_', '-')}" if named_by_launcher else (
            f"{group}-{nodes}")
        document = render(outputs, name=name, group_name=group, nodes=nodes, **arguments)
        return RenderedJob(outputs.stack, launcher, group, nodes, document,
                           tuple(claims.documents(outputs, group, document)[:-1]))

    yield job("render_device_check")
    if outputs.accelerated_groups[group].device_allocation == "dra":
        # The training operator's PyTorchJob refuses a DRA group's claims (launch/claims.py); the MPI operator's
        # MPIJob carries them (launch/mpijob.py), and a torch TrainJob brings a runtime that does.
        if kind == "neuron" and outputs.operators.mpi_operator:
            yield job("render_mpijob", command=["python", "train.py"])
        if kind == "nvidia-gpu" and outputs.operators.trainer_runtime:
            yield job("render_trainjob", command=["torchrun", "train.py"])
            if nodes * accelerators_per_node >= 2:  # the all-reduce is a TrainJob on Trainer's stacks
                yield job("render_all_reduce", floor_gbps=None if efa_interfaces_per_node else 1.0)
        return
    if kind == "nvidia-gpu":
        if outputs.operators.trainer_runtime:
            yield job("render_trainjob", command=["torchrun", "train.py"])
        if outputs.operators.training_operator:
            yield job("render_pytorchjob", command=["torchrun", "train.py"], **_elastic(outputs, nodes))
        if nodes * accelerators_per_node >= 2:  # all-reduce needs two GPUs
            # A type without EFA has no catalog bandwidth to derive a floor from across nodes.
            yield job("render_all_reduce", floor_gbps=None if efa_interfaces_per_node else 1.0)
    else:
        if outputs.operators.mpi_operator:
            yield job("render_mpijob", command=["python", "train.py"])
        # The MPI runtime's launcher is a node and its node job keeps a pod: 2 nodes at least.
        if outputs.operators.trainer_mpi_runtime and nodes >= 2:
            yield job("render_trainjob", image=None, command=["python", "train.py"])


def _elastic(outputs: StackOutputs, nodes: int) -> dict[str, Any]:
    """On more than one node, the PyTorchJob is elastic (it keeps training on half its nodes), over etcd where the
    stack runs it and has no teams (a team's job is refused the etcd every team shares): the real training operator
    then renders its elastic policy and rendezvous (launch/rendezvous.py), and one node's job covers the fixed-size
    Master and Workers."""
    if nodes < 2:
        return {}
    shared_etcd = outputs.operators.etcd_endpoint and outputs.scheduling is None
    return {"min_nodes": nodes // 2, "rendezvous": "etcd" if shared_etcd else "c10d"}


def first_queue(outputs: StackOutputs, group: str, nodes: int, skip: int = 0) -> launch.QueueRequest | None:
    """On a stack with Kueue queues: the first team (after ``skip``) whose queue can be given ``nodes`` of the group."""
    if outputs.scheduling is None:
        return None
    teams = [name for name, queue in sorted(outputs.scheduling.queues.items())
             if group in queue.quotas and queue.quotas[group].max_nodes >= nodes]
    return launch.QueueRequest(team=teams[skip % len(teams)]) if teams else None
