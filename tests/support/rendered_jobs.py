"""Every job every launcher renders for every shipped stack: the input of the controller
models (issue 25) and of the real API server and scheduler (issue 28).

A stack's outputs come from its offline plan (the `trainstack` stack output), never from
hand-written data, so a change to a component shows up in the jobs it feeds. For each
accelerated group, each launcher that serves its accelerator renders one job on the
group's whole size (``max_nodes``) and one on a single node; HyperPod groups get their
launcher's jobs the same way.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from trainstack.outputs import StackOutputs, parse_outputs
from trainstack.rehearsal import jobs as rehearsal_jobs
from trainstack.rehearsal.jobs import RenderedJob

from support import plan_records

SHIPPED_STACKS = tuple(sorted(p.name[len("Pulumi."):-len(".yaml")]
                              for p in (plan_records.REPO / "stacks").glob("Pulumi.*.yaml")))
AT_SCALE = ("frontier-p5",)
"""Shipped stacks of thousands of nodes: the engine tests that register a stack's nodes one by one (the scheduler,
the add-ons' placement, the rehearsal) leave them to bench/rehearse_time.py --frontier; every other test judges
them."""
REGISTERED_STACKS = tuple(stack for stack in SHIPPED_STACKS if stack not in AT_SCALE)
"""The shipped stacks whose nodes the engine tests register."""
IMAGE = "123456789012.dkr.ecr.us-east-1.amazonaws.com/train:1"


@functools.cache
def planned_record(stack: str) -> dict[str, Any]:
    """The plan record of a shipped stack, as `trainstack plan --json` writes it (planned once per session)."""
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        return plan_records.record(Path(directory), stack)


def outputs_of(stack: str) -> StackOutputs:
    return parse_outputs(planned_record(stack)["outputs"])


def jobs_for(outputs: StackOutputs) -> Iterator[RenderedJob]:
    """Every job the launchers render for the groups of ``outputs`` (the rehearsal's list, on one node too)."""
    return rehearsal_jobs.jobs_for(outputs, image=IMAGE)


def shipped_jobs(stacks: tuple[str, ...] = SHIPPED_STACKS) -> list[RenderedJob]:
    """Every job rendered for every shipped stack (of ``stacks``)."""
    return [job for stack in stacks for job in jobs_for(outputs_of(stack))]


def _first_group(config: dict[str, Any], **settings: Any) -> None:
    config["trainstack:nodeGroups"][0].update(settings)


def _on_eks(version: str) -> Callable[[dict[str, Any]], None]:
    def edit(config: dict[str, Any]) -> None:
        config["trainstack:eks"]["version"] = version
    return edit


# Generated variants of the shipped stacks: (shipped stack, edit of its config). Each covers a
# case the shipped stacks do not: EFA off, capacity blocks, reservations and Trainium scaling
# from zero, the other Kubernetes version trainstack offers.
VARIANTS: dict[str, tuple[str, Callable[[dict[str, Any]], None]]] = {
    "p5-without-efa": ("fsdp-p5", lambda c: _first_group(c, efa=False)),
    "p5-capacity-block-from-zero": ("fsdp-p5", lambda c: _first_group(c, minSize=0, desiredSize=0, maxSize=4, capacity={
        "type": "capacityBlock", "reservationId": "cr-0123456789abcdef1", "zone": "us-east-1a", "instanceCount": 4,
        "endsAt": "2026-12-01T11:30:00Z"})),
    # Two Kueue teams on a capacity block: the block's wind-down holds their ClusterQueues (addons/block_end.py).
    "p5-kueue-capacity-block": ("kueue-p5", lambda c: _first_group(c, capacity={
        "type": "capacityBlock", "reservationId": "cr-0123456789abcdef0", "zone": "us-east-1a", "instanceCount": 16,
        "endsAt": "2026-12-01T11:30:00Z"})),
    "p4de-reservation-from-zero": ("nemo-p4de", lambda c: _first_group(c, minSize=0, desiredSize=0)),
    "trn1-from-zero": ("trn1", lambda c: _first_group(c, minSize=0, desiredSize=0)),
    "trn1-on-1.34": ("trn1", _on_eks("1.34")),
    "p5-on-1.34": ("fsdp-p5", _on_eks("1.34")),
    "p5-with-a-team-taint": ("fsdp-p5", lambda c: _first_group(c, taints=[
        {"key": "team", "value": "research", "effect": "NoSchedule"}])),
    # Kubeflow Trainer v2 alone on Trainium: TrainJobs against the Open MPI runtime.
    "trn1-trainer": ("trn1", lambda c: c.update({"trainstack:operators": {
        "trainer": True, "trainingOperator": False, "mpiOperator": False}})),
    "trn1-with-a-team-taint": ("trn1", lambda c: _first_group(c, taints=[
        {"key": "team", "value": "research", "effect": "NoExecute"}])),
    # Trainium on Dynamic Resource Allocation: the Neuron DRA driver and aws-dranet, no device plugin (issue 44).
    "trn1-dra": ("trn1", lambda c: _first_group(c, deviceAllocation="dra")),
    # A GB200 UltraServer (u-p6e-gb200x36: 9 instances) on DRA with Trainer: a TrainJob across its instances brings a
    # ComputeDomain for its IMEX channel.
    "gb200-trainer": ("b200-dra", lambda c: (c.update(
        {"trainstack:operators": {"trainer": True, "trainingOperator": False}}), _first_group(
        c, name="gb200", instanceType="p6e-gb200.36xlarge", minSize=1, desiredSize=9, maxSize=9))),
    # The same group on DRA beside a second Trainium group on the device plugin: two releases of the Neuron chart.
    "trn1-dra-beside-plugins": ("trn1", lambda c: c["trainstack:nodeGroups"].append({
        **c["trainstack:nodeGroups"][0], "name": "trn1-dra", "minSize": 1, "desiredSize": 1,
        "deviceAllocation": "dra"})),
}


@functools.cache
def variant_record(variant: str) -> dict[str, Any]:
    """The plan record of a generated variant (planned once per session)."""
    import tempfile

    stack, edit = VARIANTS[variant]
    with tempfile.TemporaryDirectory() as directory:
        return plan_records.record(Path(directory), stack, edit)


def variant_jobs(variant: str) -> list[RenderedJob]:
    return list(jobs_for(parse_outputs(variant_record(variant)["outputs"])))


# HyperPod with EKS orchestration on a development profile, beside the shipped production stack.
HYPERPOD_EKS = {
    "profile": "dev", "region": "us-west-2", "network": {"zones": ["us-west-2a", "us-west-2b"]},
    "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
    "hyperpod": {"orchestrator": "eks",
                 "clusterName": "ml-cluster", "trainingOperator": True,
                 "workers": [{"name": "gpu", "instanceType": "ml.p5.48xlarge", "count": 4}]},
    "fsx": {"storageCapacityGiB": 1200, "zone": "us-west-2a", "namespace": "kubeflow"},
}


def _whole_config(config: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def edit(stack_config: dict[str, Any]) -> None:
        stack_config.clear()
        stack_config.update({f"trainstack:{key}": value for key, value in config.items()})
    return edit


KUEUE_TRAINER = {key.split(":", 1)[1]: value for key, value in plan_records.stack_config("kueue-p5").items()}
"""The shipped kueue-p5 config: Kubeflow Trainer v2 with Kueue."""


def _kueue_v1() -> dict[str, Any]:
    """kueue-p5 with the v1 training operator (PyTorchJob) in place of Kubeflow Trainer v2."""
    config = {key.split(":", 1)[1]: value for key, value in plan_records.stack_config("kueue-p5").items()}
    config["operators"] = {"trainingOperator": True, "trainer": False, "kueue": True}
    return config


KUEUE_V1 = _kueue_v1()


def trainer_runtime(stack: str, runtime_name: str = "trainstack-torch") -> dict[str, Any]:
    """A ClusterTrainingRuntime a shipped stack or variant running Trainer v2 creates, as rendered."""
    record = variant_record(stack) if stack in VARIANTS else planned_record(stack)
    (runtime,) = [r for r in record["resources"]
                  if r["type"] == "kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime"
                  and r["inputs"]["metadata"]["name"] == runtime_name]
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
            "metadata": runtime["inputs"]["metadata"], "spec": runtime["inputs"]["spec"]}


VARIANTS["hyperpod-eks-dev"] = ("dev", _whole_config(HYPERPOD_EKS))
VARIANTS["kueue-v1"] = ("kueue-p5", _whole_config(KUEUE_V1))


def runtime_of(job: RenderedJob) -> dict[str, Any]:
    """The runtime a rendered TrainJob names: the TrainingRuntime it brings (a DRA group's, launch/claims.py), else
    the ClusterTrainingRuntime its stack creates."""
    assert isinstance(job.document, dict)
    ref = job.document["spec"]["runtimeRef"]
    brought = [d for d in job.prerequisites if d["kind"] == ref.get("kind") and d["metadata"]["name"] == ref["name"]]
    return brought[0] if brought else trainer_runtime(job.stack, ref["name"])


def variant_outputs(variant: str) -> StackOutputs:
    return parse_outputs(variant_record(variant)["outputs"])


def outputs_for(name: str) -> StackOutputs:
    """The outputs of a generated variant or of a shipped stack, by name."""
    return variant_outputs(name) if name in VARIANTS else outputs_of(name)


def all_variant_jobs() -> list[RenderedJob]:
    """Every job rendered for every generated variant, each named by its variant."""
    return [dataclasses.replace(job, stack=variant) for variant in sorted(VARIANTS) for job in variant_jobs(variant)]
