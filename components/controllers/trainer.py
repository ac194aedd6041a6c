"""Kubeflow Trainer v2 (v2.3.0) and JobSet acting on a TrainJob and the ClusterTrainingRuntime
it names: what the torch plugin refuses or sets (the MPI plugin: controllers/trainer_mpi.py),
where runtime patches land, and how a failed rank is restarted.

* The torch plugin refuses a TrainJob whose ``trainer.env`` sets the variables it injects,
  ``PET_NNODES``, ``PET_NPROC_PER_NODE``, ``PET_NODE_RANK``, ``PET_MASTER_ADDR``,
  ``PET_MASTER_PORT`` (``pkg/runtime/framework/plugins/torch/torch.go`` ``Validate``;
  ``pkg/constants/constants.go`` ``TorchRunReservedEnvNames``), and starts
  ``numProcPerNode`` processes per node: trainstack's jobs run one per GPU they claim.
* Trainer settings and runtime patches apply to the replicated job and container named
  ``node`` (``constants.Node``); a patch naming a job or container the runtime lacks
  changes nothing the job needs.
* Restarts: the runtime's ``node`` Job fails on its first pod failure (``backoffLimit: 0``)
  and JobSet recreates all Jobs up to ``failurePolicy.maxRestarts`` times, so a training
  job restarts as a whole group within a limit, as the v1 launchers' jobs do
  (controllers/restarts.py); a check with a verdict (the all-reduce) names a runtime that
  never restarts.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..names import GPU_RESOURCE
from .jobs import Job, job_name
from .model import Finding
from .restarts import VERDICT_FLAG
from .trainer_mpi import SOURCE as MPI_SOURCE
from .trainer_mpi import mpi_problems

CONTROLLER = "kubeflow-trainer"
SOURCE = ("kubeflow/trainer v2.3.0 pkg/runtime/framework/plugins/torch/torch.go, pkg/constants/constants.go; "
          "JobSet v1alpha2 FailurePolicy")
RESERVED_ENV = ("PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT")
NODE = "node"


def check_trainjob(job: Job, runtime: Mapping[str, Any]) -> list[Finding]:
    """Findings for a TrainJob against the ClusterTrainingRuntime (as rendered) it names."""
    return list(_checks(job, runtime))


def _checks(job: Job, runtime: Mapping[str, Any]) -> Iterator[Finding]:
    spec, runtime_spec = job.get("spec", {}), runtime.get("spec", {})
    name = runtime.get("metadata", {}).get("name")
    if spec.get("runtimeRef", {}).get("name") != name:
        yield _finding(job, f"runtimeRef {spec.get('runtimeRef')} does not name the runtime {name}.")
        return
    policy = runtime_spec.get("mlPolicy", {})
    trainer = spec.get("trainer", {})
    jobs = {j.get("name"): j for j in runtime_spec.get("template", {}).get("spec", {}).get("replicatedJobs", [])}
    if "mpi" in policy:
        for problem in mpi_problems(trainer, policy["mpi"], jobs):
            yield Finding(CONTROLLER, job_name(job), problem, MPI_SOURCE)
    elif "torch" not in policy:
        yield _finding(job, f"runtime {name} has no torch or mpi policy: torchrun would get no PET_* variables.")
    reserved = sorted({e.get("name") for e in trainer.get("env", [])} & set(RESERVED_ENV))
    if reserved and "torch" in policy:
        yield _finding(job, f"trainer.env sets {', '.join(reserved)}, which the torch plugin injects: the TrainJob "
                            "is refused at admission. Remove them.")
    gpus = int(trainer.get("resourcesPerNode", {}).get("limits", {}).get(GPU_RESOURCE, 0))
    if gpus and trainer.get("numProcPerNode") != gpus:
        yield _finding(job, f"numProcPerNode {trainer.get('numProcPerNode')} with {gpus} GPUs per node: torchrun "
                            "starts one process per numProcPerNode, so GPUs would sit idle or be shared.")
    for patch in spec.get("runtimePatches", []):
        patched = patch.get("trainingRuntimeSpec", {}).get("template", {}).get("spec", {}).get("replicatedJobs", [])
        for replicated in patched:
            target = jobs.get(replicated.get("name"))
            if target is None:
                yield _finding(job, f"a runtime patch targets replicated job {replicated.get('name')}, which runtime "
                                    f"{name} does not have: its placement would not apply.")
                continue
            containers = {c.get("name") for c in _pod(target).get("containers", [])}
            for container in _pod(replicated).get("containers", []):
                if container.get("name") not in containers:
                    yield _finding(job, f"a runtime patch targets container {container.get('name')}, which job "
                                        f"{replicated.get('name')} of runtime {name} does not have.")
    yield from _restarts(job, runtime_spec, jobs, verdict=VERDICT_FLAG in (trainer.get("command") or []))


def _restarts(job: Job, runtime_spec: Mapping[str, Any], jobs: Mapping[str, Any], verdict: bool) -> Iterator[Finding]:
    node = jobs.get(NODE, {})
    if node.get("template", {}).get("spec", {}).get("backoffLimit") != 0:
        yield _finding(job, "the runtime's node Job retries a failed pod on its own (backoffLimit is not 0): a lone "
                            "restarted rank cannot rejoin the running torchrun group. Set backoffLimit: 0.")
    limit = runtime_spec.get("template", {}).get("spec", {}).get("failurePolicy", {}).get("maxRestarts", 0)
    if verdict and limit:
        yield _finding(job, f"a check with a verdict (the all-reduce's floor) on a runtime whose JobSet restarts "
                            f"{limit} times: a missed floor would be run again instead of failing once. Name the "
                            "check runtime (maxRestarts 0).")
    elif not verdict and not limit:
        yield _finding(job, "the runtime's JobSet has no failurePolicy.maxRestarts: the first failure ends the "
                            "training job, where trainstack's training jobs restart within a limit.")


def _pod(replicated: Mapping[str, Any]) -> Mapping[str, Any]:
    result: Mapping[str, Any] = replicated.get("template", {}).get("spec", {}).get("template", {}).get("spec", {})
    return result


def _finding(job: Job, message: str) -> Finding:
    return Finding(CONTROLLER, job_name(job), message, SOURCE)
