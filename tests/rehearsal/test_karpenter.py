"""Karpenter itself launches kueue-p5's dev pool (rehearsal/karpenter.py): the release's core with its kwok provider,
offering the pool's g6.xlarge as the rehearsal's node model shapes it. Each time pods wait for the pool, its model
(controllers/karpenter.py and the rehearsal's former scale-up: a node per pod that fits, up to the pool's limit) is
asked the same question, and the two answers are held to each other: the same instance type, zone and node count, or
a finding that names both."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from support import rendered_jobs
from support.rehearsals import rehearsed
from trainstack.plan import Plan
from trainstack.rehearsal import engines
from trainstack.rehearsal.cluster import RehearsalCluster, cluster_for
from trainstack.rehearsal.jobs import RenderedJob, jobs_for
from trainstack.rehearsal.karpenter import Launch
from trainstack.rehearsal.nodes import node_object
from trainstack.rehearsal.submission import delete_job, submit

pytestmark = pytest.mark.engines(*engines.REHEARSAL)

DEV = Launch(("g6.xlarge",), ("us-east-1a",), 8)


@pytest.fixture(scope="module")
def running() -> Iterator[RehearsalCluster]:
    with cluster_for(Plan.from_dict(rendered_jobs.planned_record("kueue-p5")), ["default-scheduler"]) as running:
        yield running


def _small_pods(count: int) -> RenderedJob:
    """``count`` pods of one CPU each for the dev pool: three fit one g6.xlarge (3.92 CPUs allocatable)."""
    pod = {"nodeSelector": {"trainstack.io/node-group": "dev"}, "restartPolicy": "Never",
           "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
           "containers": [{"name": "notebook", "image": "rehearsal.invalid/notebook",
                           "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}
    document: dict[str, Any] = {"apiVersion": "batch/v1", "kind": "Job",
                                "metadata": {"name": "notebooks", "namespace": "default"},
                                "spec": {"parallelism": count, "completions": count, "template": {"spec": pod}}}
    return RenderedJob("kueue-p5", "notebooks", "dev", count, document)


def test_pods_that_share_a_node_are_a_finding_naming_karpenters_launch_and_the_models(
        running: RehearsalCluster) -> None:
    """Karpenter packs pods onto a node; the model's scale-up gives each pod a node of its own. Asked first, of the
    empty pool (the module's tests share one cluster)."""
    watch = running.nodes.karpenter
    assert watch.nodes("dev") == 0, "asked of a pool that already has nodes: this test runs first in the module"
    job = _small_pods(3)
    result = submit(running.cluster, running.nodes, job, timeout=120, progress=lambda line: None)
    assert result.ok, result.problem
    assert len(set(result.seen.nodes)) == 1
    assert watch.findings() == [
        "Karpenter launched 1 node(s) of g6.xlarge in us-east-1a for the 3 pod(s) that waited for NodePool dev; its "
        "model (controllers/karpenter.py: a node per pod that fits, up to the limit of 8) launches 3 node(s) of "
        "g6.xlarge in us-east-1a"]
    assert isinstance(job.document, dict)
    delete_job(running.cluster, job.document)


def test_karpenter_launches_for_the_dev_device_check_what_its_model_launches_with_the_models_allocatable(
        running: RehearsalCluster) -> None:
    """The launchers' jobs ask a whole g6.xlarge per pod: the question the model was made for."""
    outputs = rendered_jobs.outputs_of("kueue-p5")
    job = next(j for j in jobs_for(outputs, sizes="whole", named_by_launcher=True)
               if j.group == "dev" and j.launcher == "render_device_check")
    watch = running.nodes.karpenter
    earlier = watch.nodes("dev")  # the pool may hold the first test's node: one pod goes there, no node for it
    result = submit(running.cluster, running.nodes, job, timeout=120, progress=lambda line: None)
    assert result.ok, result.problem
    real, model = watch.answers("dev")
    assert real == model == Launch(DEV.instance_types, DEV.zones, DEV.nodes - earlier)
    assert watch.findings() == []
    registered = node_object(running.nodes.shapes["dev"], 0)["status"]  # as the rehearsal's own nodes register
    for name in set(result.seen.nodes):
        node = running.cluster.get(f"/api/v1/nodes/{name}")
        assert node["metadata"]["labels"]["karpenter.sh/nodepool"] == "dev"
        assert node["status"]["allocatable"] == registered["allocatable"]
        assert (node["status"]["allocatable"]["cpu"], node["status"]["capacity"]["cpu"]) == ("3920m", "4")
        assert {(t["key"], t["effect"]) for t in node["spec"]["taints"]} == {("nvidia.com/gpu", "NoSchedule")}
    assert isinstance(job.document, dict)
    delete_job(running.cluster, job.document)


def test_the_rehearsal_records_karpenters_launch_beside_the_models_and_no_finding() -> None:
    result = rehearsed("kueue-p5")
    dev = result.groups["dev"]
    assert result.controllers["karpenter"] == "v1.14.1"
    assert dev["launchedByKarpenter"] == dev["modelLaunches"] == str(DEV)
    assert dev["registeredAtEnd"] == 8
    assert not [note for note in result.notes if "Karpenter launched" in note]
    jobs = [job for job in result.jobs if job.group == "dev"]
    assert jobs and all(job.ok for job in jobs)
