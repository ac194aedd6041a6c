"""What happens when a rendered job's process fails: who restarts what, and how often.

Three controllers can restart a rank, and a job's documented semantics must hold under all:

* Kubernetes' Job controller (the device check, and the MPI launcher, a batch Job): a
  pod's ``restartPolicy`` ``Never`` or ``OnFailure`` (no other is valid for a Job), and
  ``backoffLimit`` retries, six when unset (Kubernetes API reference, JobSpec).
* The training operator (v1.8.1, ``pkg/controller.v1/common/pod.go``): a failed pod is
  recreated under ``OnFailure`` and ``Always``, and under ``ExitCode`` only for exit codes
  of 128 and above (``pkg/util/train/train_util.go``, ``IsRetryableExitCode``); other
  exit codes fail the job. ``runPolicy.backoffLimit`` caps the restarts; without it they
  have no cap.
* torchrun's elastic agent: on any worker's failure it restarts the whole worker group in
  place, up to ``--max-restarts`` times (``torch.distributed.run``; the operator passes
  ``elasticPolicy.maxRestarts`` as ``PET_MAX_RESTARTS``, ``elastic.go``). Default 0.
* The MPI operator (v0.8.0, ``setRestartPolicy`` in ``mpi_job_controller.go``) maps
  ``ExitCode`` to the pod policy ``Never`` and leaves retries to the launcher Job's
  ``backoffLimit``: every failure is retried, whatever its exit code.

The semantics trainstack documents (docs/validation-jobs.md and docs/faults.md): a validation
job (device check, all-reduce) gives one verdict: a failed check or a missed floor fails
the job once and nothing restarts it (a lost node, exit 128 and above, may be retried). A
training job restarts within its backoff limit. A HyperPod job uses ``OnFailure`` on every
replica, which HyperPod's auto-resume requires (SageMaker developer guide, "job
auto-resume"). The model checks each rendered job against them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .jobs import Job, argv, job_name, main_container, pod_spec, replica_specs
from .model import Finding

CONTROLLER = "restarts"
SOURCE = ("kubeflow/training-operator v1.8.1 pkg/controller.v1/common/pod.go; torch.distributed.run --max-restarts; "
          "kubeflow/mpi-operator v0.8.0 mpi_job_controller.go; Kubernetes JobSpec")
VERDICT_FLAG = "--floor-gbps"
"""The all-reduce program's floor argument: a job that passes it ends with a verdict."""
JOB_POD_POLICIES = ("OnFailure", "Never")
HYPERPOD_AUTO_RESUME = "sagemaker.amazonaws.com/enable-job-auto-resume"


def check_restarts(job: Job) -> list[Finding]:
    kind = job.get("kind")
    if kind == "Job":
        return list(_verdict_job(job))
    if kind == "PyTorchJob":
        verdict = any(VERDICT_FLAG in argv(main_container(r)) for r in replica_specs(job).values())
        return list(_verdict_pytorchjob(job) if verdict else _training_pytorchjob(job))
    if kind == "MPIJob":
        return list(_mpijob(job))
    return []


def _verdict_job(job: Job) -> Iterator[Finding]:
    spec = job.get("spec", {})
    policy = pod_spec(spec).get("restartPolicy")
    if policy != "Never" or spec.get("backoffLimit") != 0:
        limit = spec.get("backoffLimit", "unset (6)")
        yield _finding(job, f"a check with restartPolicy {policy} and backoffLimit {limit}: a failed check would be "
                            "run again instead of failing once. Use Never and 0.")


def _verdict_pytorchjob(job: Job) -> Iterator[Finding]:
    for role, replica in sorted(replica_specs(job).items()):
        policy = replica.get("restartPolicy")
        if policy not in ("ExitCode", "Never"):
            yield _finding(job, f"{role} restartPolicy {policy}: the operator restarts a pod that missed the floor "
                                "(exit 1); a verdict must fail once. Use ExitCode (retries only exits of 128 and "
                                "above, a lost node) or Never.")
    max_restarts = (job.get("spec", {}).get("elasticPolicy") or {}).get("maxRestarts", 0)
    if max_restarts:
        yield _finding(job, f"elasticPolicy.maxRestarts {max_restarts}: torchrun's elastic agent reruns the whole "
                            f"all-reduce up to {max_restarts} times after a missed floor before the pod fails. Set 0.")


def _training_pytorchjob(job: Job) -> Iterator[Finding]:
    replicas = replica_specs(job)
    metadata: Mapping[str, Any] = job.get("metadata", {})
    if (metadata.get("annotations") or {}).get(HYPERPOD_AUTO_RESUME) == "true":
        for role, replica in sorted(replicas.items()):
            if replica.get("restartPolicy") != "OnFailure":
                yield _finding(job, f"{role} restartPolicy {replica.get('restartPolicy')}: HyperPod's job auto-resume "
                                    "requires OnFailure on every replica.")
        return
    restarting = any(r.get("restartPolicy") != "Never" for r in replicas.values())
    if restarting and "backoffLimit" not in (job.get("spec", {}).get("runPolicy") or {}):
        yield _finding(job, "replicas restart but runPolicy.backoffLimit is unset: the operator then restarts them "
                            "without end. Set a backoff limit.")


def _mpijob(job: Job) -> Iterator[Finding]:
    launcher = replica_specs(job).get("Launcher") or {}
    policy = launcher.get("restartPolicy")
    if policy not in JOB_POD_POLICIES:
        yield _finding(job, f"launcher restartPolicy {policy}: the launcher is a batch Job, whose pods restart "
                            "OnFailure or Never; the operator turns ExitCode into Never and the Job then retries every "
                            "failure whatever its exit code. Use OnFailure or Never.")
    if "backoffLimit" not in (job.get("spec", {}).get("runPolicy") or {}):
        yield _finding(job, "runPolicy.backoffLimit is unset: the launcher Job retries six times (Kubernetes' "
                            "default), whatever the job's restart policy says. Set it (0 for none).")


def _finding(job: Job, message: str) -> Finding:
    return Finding(controller=CONTROLLER, subject=job_name(job), message=message, source=SOURCE)
