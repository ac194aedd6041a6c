"""`trainstack rehearse` waits for each job as long as its pods need at the controllers' rates (issue 64, class 8):
the default that users run, not a figure a benchmark overrides. No engine starts here: the waits are computed from
the rendered jobs, which are the rehearsal's own (rehearsal.jobs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.rendered_jobs import SHIPPED_STACKS, outputs_of
from trainstack.cli.parser import parser as cli_parser
from trainstack.rehearsal.jobs import jobs_for
from trainstack.rehearsal.run import default_wait
from trainstack.rehearsal.waits import explicit, node_loss_wait, pods_wait
from trainstack.rehearsal.watch import expected_pods

# The rates this test assumes, written out here rather than read from the module, so that a change to the module's
# figures has to change the specification too.
JOB_CONTROLLER_QPS = 20
"""kube-controller-manager's --kube-api-qps default (k8s.io/controller-manager config/v1alpha1/defaults.go), which
the rehearsal keeps: the Job controller creates a Job's pods, and a TrainJob's through JobSet's Jobs."""
TRAINING_OPERATOR_QPS, TRAINING_OPERATOR_REQUESTS_PER_POD = 20, 2
"""controller-runtime's default client rate, which training-operator v1.8.1 keeps; a Pod and a Service a replica."""
MPI_OPERATOR_QPS = 5
"""mpi-operator v0.8.0's --kube-api-qps default (cmd/mpi-operator/app/options/options.go): the rehearsal starts it
from its manifest."""
SCHEDULER_QPS = 50
"""kube-scheduler's clientConnection.qps default (kubernetes pkg/scheduler/apis/config/v1/defaults.go)."""
KWOK_PODS_PER_SECOND = 40
"""Our measurement: kwok sets no client limit; 2,050 nodes went Ready in 51 s on a 2-core machine
(docs/guides/frontier-p5.md)."""
CREATES = {"Job": (JOB_CONTROLLER_QPS, 1), "TrainJob": (JOB_CONTROLLER_QPS, 1),
           "PyTorchJob": (TRAINING_OPERATOR_QPS, TRAINING_OPERATOR_REQUESTS_PER_POD),
           "HyperPodPyTorchJob": (TRAINING_OPERATOR_QPS, TRAINING_OPERATOR_REQUESTS_PER_POD),
           "MPIJob": (MPI_OPERATOR_QPS, 1)}


def least_seconds(kind: str, pods: int) -> float:
    """What the pods of a ``kind`` job need at the least: created, bound and run, each at its rate."""
    qps, requests = CREATES[kind]
    return requests * pods / qps + pods / SCHEDULER_QPS + pods / KWOK_PODS_PER_SECOND


def rehearsed(stack: str) -> list[tuple[str, str, int, float]]:
    """(job, kind, pods, default wait) for each job `trainstack rehearse --stack STACK` submits."""
    found = []
    for job in jobs_for(outputs_of(stack), sizes="whole", named_by_launcher=True):
        if isinstance(job.document, dict):
            try:
                pods = expected_pods(job.document)
            except ValueError:
                pods = job.nodes
            found.append((job.id, job.document["kind"], pods, default_wait(job).seconds))
    return found


@pytest.mark.parametrize("stack", SHIPPED_STACKS)
def test_each_shipped_stacks_default_wait_covers_its_largest_jobs_pods_at_the_controllers_rates(stack: str) -> None:
    jobs = rehearsed(stack)
    if not jobs:
        pytest.skip(f"{stack} has no Kubernetes job to rehearse")
    job, kind, pods, wait = max(jobs, key=lambda each: (least_seconds(each[1], each[2]), each[0]))
    assert wait >= least_seconds(kind, pods), (
        f"{job}: {pods:,} pods need {least_seconds(kind, pods):.0f} s at the controllers' rates; "
        f"the rehearsal waits {wait:.0f} s")
    for other, other_kind, other_pods, other_wait in jobs:
        assert other_wait >= least_seconds(other_kind, other_pods), other


def test_frontier_p5s_2048_node_job_gets_the_time_its_creates_bindings_and_kwok_need() -> None:
    """The job that failed with the old 90 s ("the operator created 1,783 of 2,048 pods": 20 a second)."""
    jobs = {job: (kind, pods, wait) for job, kind, pods, wait in rehearsed("frontier-p5")}
    kind, pods, wait = jobs["frontier-p5/p5/render_device_check/2048"]
    assert (kind, pods) == ("Job", 2048)
    # 2,048 / 20 + 2,048 / 50 + 2,048 / 40 = 102 + 41 + 51 s, before any base.
    assert wait >= 2048 / 20 + 2048 / 50 + 2048 / 40
    assert wait > 90


def test_a_16_node_job_keeps_about_the_90_seconds_it_always_had() -> None:
    wait = pods_wait("TrainJob", 16, queued=True)
    assert 90 <= wait.seconds <= 95, wait


def test_the_wait_says_why_that_long() -> None:
    wait = pods_wait("Job", 2048, queued=True)
    assert wait.why.startswith("2,048 pods: 90 s base")
    for term in ("102 s created by kube-controller-manager's Job controller at 20/s",
                 "41 s bound by kube-scheduler at 50/s", "51 s run by kwok at 40/s", "7 s ungated by Kueue at 300/s"):
        assert term in wait.why


def test_a_lost_node_waits_for_the_pod_gc_the_gangs_deletion_and_the_job_again() -> None:
    """At 16 nodes this is the 150 s the fault always had; at 2,048 the gang's deletion and restart come on top."""
    job = next(j for j in jobs_for(outputs_of("frontier-p5"), sizes="whole", named_by_launcher=True)
               if j.launcher == "render_trainjob")
    assert isinstance(job.document, dict)
    wait = node_loss_wait(job.document)
    assert wait.seconds >= 40 + 20 + 2048 / JOB_CONTROLLER_QPS + least_seconds("TrainJob", 2048), wait


def test_job_timeout_stays_an_explicit_override_and_the_default_is_computed() -> None:
    parser = cli_parser()
    assert parser.parse_args(["rehearse", "--stack", "frontier-p5"]).job_timeout is None
    assert parser.parse_args(["rehearse", "--job-timeout", "900"]).job_timeout == 900.0
    assert explicit(900).seconds == 900 and "--job-timeout" in explicit(900).why


def test_the_frontier_guide_shows_the_command_users_run_with_the_wait_it_computes() -> None:
    """The guide's figure is the default's, not a benchmark's override: a change of rates changes the guide."""
    guide = (Path(__file__).resolve().parents[2] / "docs" / "guides" / "frontier-p5.md").read_text()
    # The guide's stack is frontier-p5 written into your project under the name frontier (trainstack init).
    assert "trainstack init --workload frontier-p5 --stack frontier" in guide
    assert "```bash\ntrainstack rehearse --stack frontier\n```" in guide
    waits = {wait for _, _, _, wait in rehearsed("frontier-p5")}
    assert len(waits) == 1, waits  # its three jobs are each 2,048 pods made by the Job controller
    assert f"Each job waits up to {waits.pop():.0f} s to run whole" in " ".join(guide.split())
