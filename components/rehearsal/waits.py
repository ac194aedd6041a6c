"""How long the rehearsal waits for a job: from the job's size and the client rates of the controllers that make,
bind and run its pods, as the deletion waits already do (submission.delete_job), never one fixed figure.

A fixed 90 s was right for 16 nodes and wrong for 2,048: kube-controller-manager's Job controller creates pods at
its client's 20 requests a second, so a 2,048-pod Job needs 102 s for its creates alone (issue 64, class 8: "the
operator created 1,783 of 2,048 pods" after 90 s, which is 20 a second).

The wait of a job of ``pods`` pods is the sum of what each step needs at its rate, plus a base:

* created by the job's controller (``creators``): the Job controller, for a Job and for the Jobs a TrainJob's JobSet
  makes; the training operator, a Pod and a Service per replica; the MPI operator, at the rate the rehearsal runs it at;
* bound by kube-scheduler, one binding each, at its client's 50 a second;
* run by kwok, one status update each, at the rate measured on this project's 2-core machines (kwok itself sets no
  client limit);
* on a Kueue queue, ungated by Kueue's topology ungater, one patch each, at its chart's 300 a second.

The steps overlap in practice, so their sum is an upper bound with room in it. The base is the 90 s every job had
before: the controllers' reconciles, Kueue's admission and the watcher's looks, which do not grow with the pods.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..config.controller_resources import MPI_OPERATOR_DEFAULT_QPS, TRAINING_OPERATOR_CLIENT_QPS
from ..launch.queueing import QUEUE_LABEL
from .watch import expected_pods

BASE_SECONDS = 90.0
"""What every job was given before the waits scaled; enough for the shipped 16-node stacks' jobs (the suite's
rehearsals ran them inside it since issue 28)."""

KUBE_CONTROLLER_MANAGER_QPS = 20
"""kube-controller-manager's ``--kube-api-qps`` default, which the rehearsal keeps: k8s.io/controller-manager
config/v1alpha1/defaults.go (``RecommendedDefaultGenericControllerManagerConfiguration``: QPS 20, burst 30)."""
KUBE_SCHEDULER_QPS = 50
"""kube-scheduler's ``clientConnection.qps`` default, which the rehearsal's configuration keeps (it sets none):
kubernetes pkg/scheduler/apis/config/v1/defaults.go (QPS 50, burst 100)."""
KWOK_PODS_PER_SECOND = 40
"""kwok marks pods Running without a client limit of its own (sigs.k8s.io/kwok pkg/utils/client/clientset.go sets
``flowcontrol.NewFakeAlwaysRateLimiter``), so the machine sets its pace. Our measurement, not upstream's: the
2,048-node rehearsal made 2,050 nodes Ready in 51 s on a 2-core machine (docs/guides/frontier-p5.md, 2026-11-27),
40 status updates a second with the API server and etcd sharing the cores."""
KUEUE_QPS = 300
"""Kueue's client rate at v0.19.2, its chart's (config/controller_resources.py): the topology ungater patches each
pod of an admitted gang once."""

POD_GC_QUARANTINE_SECONDS, POD_GC_CHECK_SECONDS = 40, 20
"""kube-controller-manager's pod garbage collector removes the pods of a deleted node after its quarantine, checked
every 20 s (kubernetes pkg/controller/podgc/gc_controller.go, ``quarantineTime`` and ``gcCheckPeriod``)."""


@dataclass(frozen=True)
class Rates:
    """The client rates of the rehearsal's controllers that a stack may change.

    The rehearsal starts the MPI operator with its manifest's flags (rehearsal/controllers.py), at its default
    5 requests a second. A large stack installs it faster (config/controller_resources.py,
    ``mpi_operator_client_qps``), so a wait at the default is never shorter than one at the stack's rate."""

    mpi_operator_qps: int = MPI_OPERATOR_DEFAULT_QPS


@dataclass(frozen=True)
class Wait:
    seconds: float
    why: str
    """Each term, in words: what the progress line and the record say."""

    def as_dict(self) -> dict[str, Any]:
        return {"seconds": self.seconds, "why": self.why}


def creators(rates: Rates) -> dict[str, tuple[str, float, int]]:
    """Kind -> (who creates its pods, at how many requests a second, requests per pod)."""
    job_controller = ("kube-controller-manager's Job controller", KUBE_CONTROLLER_MANAGER_QPS, 1)
    return {
        "Job": job_controller,
        # Trainer makes one JobSet, JobSet a Job per replicated job, and the Job controller their pods.
        "TrainJob": job_controller,
        # A Pod and a headless Service per replica (pkg/controller.v1/common/service.go ``CreateNewService``).
        "PyTorchJob": ("the training operator", TRAINING_OPERATOR_CLIENT_QPS, 2),
        "HyperPodPyTorchJob": ("the training operator", TRAINING_OPERATOR_CLIENT_QPS, 2),
        "MPIJob": ("the MPI operator", rates.mpi_operator_qps, 1),
    }


def pods_wait(kind: str, pods: int, *, queued: bool, rates: Rates = Rates()) -> Wait:
    """How long ``pods`` pods of a ``kind`` job may take to run whole."""
    creator, qps, requests = creators(rates).get(kind, creators(rates)["Job"])
    terms = [(f"{BASE_SECONDS:.0f} s base", BASE_SECONDS),
             (f"created by {creator} at {qps}/s", requests * pods / qps),
             (f"bound by kube-scheduler at {KUBE_SCHEDULER_QPS}/s", pods / KUBE_SCHEDULER_QPS),
             (f"run by kwok at {KWOK_PODS_PER_SECOND}/s", pods / KWOK_PODS_PER_SECOND)]
    if queued:
        terms.append((f"ungated by Kueue at {KUEUE_QPS}/s", pods / KUEUE_QPS))
    seconds = round(sum(value for _, value in terms))
    why = ", ".join([terms[0][0]] + [f"{value:.0f} s {term}" for term, value in terms[1:]])
    return Wait(float(seconds), f"{pods:,} pods: {why}")


def job_wait(document: dict[str, Any], rates: Rates = Rates(), pods: int | None = None) -> Wait:
    """The wait of one rendered job (``pods``: when the rehearsal cannot read its size from its spec)."""
    if pods is None:
        pods = expected_pods(document)
    queued = QUEUE_LABEL in (document["metadata"].get("labels") or {})
    return pods_wait(document["kind"], pods, queued=queued, rates=rates)


def node_loss_wait(document: dict[str, Any], rates: Rates = Rates(), pods: int | None = None) -> Wait:
    """A node lost under the running job: the pod garbage collector's quarantine and its check, the gang's pods
    deleted through the controller manager's client (JobSet restarts the whole gang), then the job run whole again.
    ``pods``: the job's size where its spec does not say it."""
    try:
        pods = expected_pods(document)
    except ValueError:
        if pods is None:
            raise
    again = job_wait(document, rates, pods)
    seconds = POD_GC_QUARANTINE_SECONDS + POD_GC_CHECK_SECONDS + pods / KUBE_CONTROLLER_MANAGER_QPS + again.seconds
    return Wait(float(round(seconds)), f"{POD_GC_QUARANTINE_SECONDS + POD_GC_CHECK_SECONDS} s pod garbage collection, "
                f"{pods / KUBE_CONTROLLER_MANAGER_QPS:.0f} s deleting the gang at {KUBE_CONTROLLER_MANAGER_QPS}/s, "
                f"then {again.why}")


def together_wait(documents: list[dict[str, Any]], rates: Rates = Rates()) -> Wait:
    """Jobs submitted at once share the controllers' clients: the wait of all their pods as one job."""
    pods = sum(expected_pods(document) for document in documents)
    kind = documents[0]["kind"] if documents else "Job"
    return pods_wait(kind, pods, queued=True, rates=rates)


def explicit(seconds: float) -> Wait:
    return Wait(seconds, "--job-timeout, as given")
