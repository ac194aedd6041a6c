"""Every job every launcher renders for every shipped stack is admitted by a real
kube-apiserver (v1.35.4) with the operators' CRDs at the pinned tags: server-side dry-run,
strict field validation, so an unknown or misspelled field is refused, not dropped."""

from __future__ import annotations

import copy

import pytest
from support import rendered_jobs
from support.control_plane import ApiError, Cluster
from support.engine_cluster import crd_files, ensure_namespace
from trainstack.rehearsal import engines

pytestmark = pytest.mark.engines(engines.KUBERNETES)

KUBERNETES_JOBS = [job for job in rendered_jobs.shipped_jobs() + rendered_jobs.all_variant_jobs()
                   if isinstance(job.document, dict)]


def test_every_operator_crd_at_its_pinned_tag_is_served(cluster: Cluster) -> None:
    served = {g["name"]: [v["version"] for v in g["versions"]] for g in cluster.get("/apis")["groups"]}
    assert "v1" in served["kubeflow.org"] and "v2beta1" in served["kubeflow.org"]
    assert "v1beta2" in served["kueue.x-k8s.io"]
    assert "v1alpha1" in served["trainer.kubeflow.org"] and "v1" in served["karpenter.sh"]
    # training operator (MPIJob v1 left to the MPI operator), MPI, Kueue, Trainer v2, Karpenter
    assert len(crd_files()) == 5 + 1 + 11 + 2 + 2


@pytest.mark.parametrize("job", KUBERNETES_JOBS, ids=lambda job: job.id)
def test_rendered_job_passes_server_side_dry_run(cluster: Cluster, job: rendered_jobs.RenderedJob) -> None:
    assert isinstance(job.document, dict)
    ensure_namespace(cluster, job.document["metadata"].get("namespace", "default"))
    admitted = cluster.create(job.document, dry_run=True)
    assert admitted["kind"] == job.document["kind"]
    assert admitted["metadata"]["uid"]  # defaulted by the server: the object went through admission


@pytest.mark.parametrize("job_id, field", [
    ("fsdp-p5/p5/render_pytorchjob/16", ["spec", "runPolicy", "backoffLimits"]),
    ("fsdp-p5/p5/render_pytorchjob/16", ["spec", "pytorchReplicaSpecs", "Worker", "template", "spec", "nodeSelectors"]),
    ("trn1/trn1/render_mpijob/4", ["spec", "slotsPerWorkers"]),
    ("fsdp-p5/p5/render_device_check/16", ["spec", "template", "spec", "containers", 0, "resource"]),
])
def test_a_misspelled_field_is_refused_by_the_api_server(cluster: Cluster, job_id: str, field: list) -> None:
    """The dry-run above would catch a launcher that renders a field its CRD or Kubernetes does not have."""
    job = copy.deepcopy(next(j.document for j in KUBERNETES_JOBS if j.id == job_id))
    assert isinstance(job, dict)
    target = job
    for key in field[:-1]:
        target = target[key]
    target[field[-1]] = {"x": "1"} if field[-1] != "backoffLimits" else 3
    with pytest.raises(ApiError) as refused:
        cluster.create(job, dry_run=True)
    assert refused.value.status in (400, 422)
    assert 'unknown field' in str(refused.value) and field[-1] in str(refused.value)


CUSTOM_GROUPS = ("kueue.x-k8s.io/", "trainer.kubeflow.org/", "karpenter.sh/", "karpenter.k8s.aws/")


def _custom_objects() -> list[tuple[str, dict]]:
    """Every Kueue, Trainer and Karpenter object kueue-p5's plan records, its v1-operator variant's, and
    trn1-trainer's (the MPI runtime)."""
    records = {"kueue-p5": rendered_jobs.planned_record("kueue-p5"),
               "kueue-v1": rendered_jobs.variant_record("kueue-v1"),
               "trn1-trainer": rendered_jobs.variant_record("trn1-trainer")}
    # Each object as the provider applies it: its inputs under its type's apiVersion and kind (a
    # WorkloadPriorityClass keeps its fields beside metadata, not under a spec).
    return [(f"{stack}/{r['name']}", {**r["inputs"], "apiVersion": r["type"].split(":")[1],
                                       "kind": r["type"].rsplit(":", 1)[1]})
            for stack, record in records.items() for r in record["resources"]
            if r["type"].startswith(tuple(f"kubernetes:{group}" for group in CUSTOM_GROUPS))]


CUSTOM_OBJECTS = _custom_objects()


def test_the_stacks_queues_runtimes_and_pools_are_there_to_check() -> None:
    kinds = {obj["kind"] for _, obj in CUSTOM_OBJECTS}
    assert {"ResourceFlavor", "ClusterQueue", "LocalQueue", "Cohort", "Topology", "ClusterTrainingRuntime",
            "NodePool", "EC2NodeClass"} <= kinds


@pytest.mark.parametrize(("name", "obj"), CUSTOM_OBJECTS, ids=[name for name, _ in CUSTOM_OBJECTS])
def test_every_queue_runtime_and_pool_the_stack_creates_passes_server_side_dry_run(cluster: Cluster, name: str,
                                                                                   obj: dict) -> None:
    """The Kueue v0.19.2, Trainer v2.3.0 and Karpenter v1.14.1 objects trainstack creates, admitted by the real
    API server with strict field validation and the CRDs' own CEL rules (which a JSON-schema check does not run)."""
    ensure_namespace(cluster, obj["metadata"].get("namespace", "default"))
    admitted = cluster.create(obj, dry_run=True)
    assert admitted["metadata"]["uid"], name
