"""What the API server and the job controllers refuse of a job by its size: each limit at the version trainstack
pins, whether it exists, and the check the Kubernetes launchers run on every job they render (issue 55: a
2,048-node job). Sources were read at the pinned tags on 2026-11-27 (catalog/addons.py and engines/ pin them):
Kubernetes v1.35.4, etcd v3.6.5 (engines/kubernetes/go.mod), Kubeflow training operator v1.8.1, MPI operator
v0.8.0, Kubeflow Trainer v2.3.0 with JobSet v0.12.0, Kueue v0.19.2.

Node counts. No controller caps a job's nodes below int32, except an Indexed Job's parallelism:

* training operator v1.8.1: ``ReplicaSpec.Replicas`` is an ``*int32`` (pkg/apis/kubeflow.org/v1/common_types.go) and
  the webhook only holds ``Master`` to 1 (pkg/webhooks/pytorch/pytorchjob_webhook.go); no maximum.
* MPI operator v0.8.0: Worker replicas must be >= 1 (pkg/apis/kubeflow/validation/validation.go); no maximum. But
  the operator writes a ConfigMap ``<job>-config`` with one hostfile line and one ``discover_hosts.sh`` line per
  worker (pkg/controller/mpi_job_controller.go ``newConfigMap``, ``updateDiscoverHostsInConfigMap``), and the API
  server refuses a ConfigMap whose data exceeds 1 MiB (kubernetes v1.35.4 pkg/apis/core/validation/validation.go
  ``ValidateConfigMap``, ``core.MaxSecretSize``). The job is accepted and then never starts: refused here.
* Trainer v2.3.0: ``trainer.numNodes`` is an ``*int32`` with no bound (pkg/apis/trainer/v1alpha1/trainjob_types.go);
  it becomes the node Job's parallelism and completions (pkg/runtime/framework/plugins/jobset/jobset.go), JobSet
  makes every Job Indexed (sigs.k8s.io/jobset v0.12.0 pkg/webhooks/jobset_webhook.go ``Default``) and refuses
  replicas x parallelism over int32, and Kubernetes refuses an Indexed Job's parallelism over 100,000
  (pkg/apis/batch/validation/validation.go ``maxParallelismForIndexedJob``). The MPI runtime's hostfile ConfigMap
  (pkg/runtime/framework/plugins/mpi/mpi.go ``buildHostFileConfigMap``: one line per node) is under the same 1 MiB.
* A batch Job that is not Indexed (the device check) has no such bound: only Indexed Jobs are capped.
* Kueue v0.19.2: a Workload holds at most 18 pod sets, each ``count`` an int32 >= 0
  (apis/kueue/v1beta2/workload_types.go ``WorkloadSpec.PodSets`` MaxItems=18, ``PodSet.Count``); trainstack's jobs
  have 1 to 3. Topology-aware scheduling: a Topology has at most 16 levels (topology_types.go), and a Workload's
  topology assignment at most 1,000 slices of at most 100,000 domains each (workload_types.go
  ``TopologyAssignment``): 2,048 nodes is far inside both.

Object size. The API server stores a custom resource as JSON in one etcd write, and etcd refuses a request over
``--max-request-bytes``, 1.5 MiB by default (etcd v3.6.5 server/embed/config.go ``DefaultMaxRequestBytes``); the API
server's own body limit, 3 MiB (k8s.io/apiserver v0.35.4 pkg/server/config.go ``MaxRequestBodyBytes``), is looser, so
etcd's governs. AWS publishes no other value for EKS's etcd (searched 2026-11-27: the EKS user guide and AWS's
"Managing etcd database size on Amazon EKS clusters" name the 8 GB database, not the request size), so the default
is taken. The stored object is what is rendered plus what the API server adds (managedFields, defaults, status), so
a job near the limit can still be refused: the check is a floor, not a guarantee. ``kubectl apply`` without
``--server-side`` copies the whole object into its ``last-applied-configuration`` annotation, and annotations
together may hold 256 KiB (k8s.io/apimachinery v0.35.4 pkg/api/validation/objectmeta.go
``TotalAnnotationSizeLimitB``): a job over that is applied with ``kubectl create`` or ``kubectl apply --server-side``
(docs/launchers.md says so). A job's size does not grow with its nodes: replicas are a count.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Optional

from .placement import LaunchError


@dataclass(frozen=True)
class Limit:
    """One limit a job meets at the API server or a controller: its value (None where no such limit exists)."""

    what: str
    value: Optional[int]
    source: str


INT32_MAX = 2**31 - 1
ETCD_REQUEST_BYTES = Limit("etcd's request size (--max-request-bytes default)", 1536 * 1024,
                           "etcd v3.6.5 server/embed/config.go DefaultMaxRequestBytes")
APISERVER_BODY_BYTES = Limit("the API server's request body", 3 * 1024 * 1024,
                             "k8s.io/apiserver v0.35.4 pkg/server/config.go MaxRequestBodyBytes")
ANNOTATION_BYTES = Limit("an object's annotations together (kubectl apply's last-applied-configuration)", 256 * 1024,
                         "k8s.io/apimachinery v0.35.4 pkg/api/validation/objectmeta.go TotalAnnotationSizeLimitB")
CONFIGMAP_BYTES = Limit("a ConfigMap's data", 1024 * 1024,
                        "kubernetes v1.35.4 pkg/apis/core/validation/validation.go ValidateConfigMap (MaxSecretSize)")
INDEXED_JOB_PARALLELISM = Limit("an Indexed Job's parallelism", 100_000,
                                "kubernetes v1.35.4 pkg/apis/batch/validation/validation.go "
                                "maxParallelismForIndexedJob")
REPLICAS = Limit("replicas of a PyTorchJob, MPIJob or TrainJob, a Kueue pod set's count", INT32_MAX,
                 "int32 fields: training-operator v1.8.1 common_types.go ReplicaSpec.Replicas, mpi-operator v0.8.0 "
                 "ReplicaSpec.Replicas, trainer v2.3.0 trainjob_types.go Trainer.NumNodes, kueue v0.19.2 "
                 "workload_types.go PodSet.Count")
KUEUE_POD_SETS = Limit("pod sets of a Kueue Workload", 18,
                       "kueue v0.19.2 apis/kueue/v1beta2/workload_types.go WorkloadSpec.PodSets MaxItems")
KUEUE_TOPOLOGY_LEVELS = Limit("levels of a Kueue Topology", 16, "kueue v0.19.2 apis/kueue/v1beta2/topology_types.go")
KUEUE_TAS_SLICES = Limit("slices of a Workload's topology assignment", 1000,
                         "kueue v0.19.2 apis/kueue/v1beta2/workload_types.go TopologyAssignment.Slices MaxItems")
TRAINING_OPERATOR_MAX_REPLICAS = Limit("a training operator replica count beyond int32", None,
                                       "kubeflow/training-operator v1.8.1 pkg/webhooks/pytorch/pytorchjob_webhook.go "
                                       "(Master must be 1; no maximum)")
MPI_OPERATOR_MAX_WORKERS = Limit("an MPI operator worker count beyond int32", None,
                                 "kubeflow/mpi-operator v0.8.0 pkg/apis/kubeflow/validation/validation.go (>= 1; no "
                                 "maximum)")

LIMITS = (ETCD_REQUEST_BYTES, APISERVER_BODY_BYTES, ANNOTATION_BYTES, CONFIGMAP_BYTES, INDEXED_JOB_PARALLELISM,
          REPLICAS, KUEUE_POD_SETS, KUEUE_TOPOLOGY_LEVELS, KUEUE_TAS_SLICES, TRAINING_OPERATOR_MAX_REPLICAS,
          MPI_OPERATOR_MAX_WORKERS)
"""Every limit a job meets, for the docs and the tests; ``check_job`` applies those that bind."""

TRAINER_NODE_JOB = "node"
TRAINER_LAUNCHER_JOB = "launcher"


def object_bytes(job: Mapping[str, Any]) -> int:
    """The job as the API server stores a custom resource: compact JSON, UTF-8."""
    return len(json.dumps(job, separators=(",", ":"), ensure_ascii=False).encode())


def pod_sets(job: Mapping[str, Any]) -> dict[str, int]:
    """Pod set -> pods, as Kueue's integrations split each kind (a Job's one set; a replica or replicated job each)."""
    spec = job.get("spec", {})
    if job.get("kind") == "Job":
        return {"main": int(spec.get("parallelism", 1))}
    if job.get("kind") == "TrainJob":
        nodes = int(spec.get("trainer", {}).get("numNodes", 1))
        patched = [j["name"] for p in spec.get("runtimePatches", [])
                   for j in p.get("trainingRuntimeSpec", {}).get("template", {}).get("spec", {}).get(
                       "replicatedJobs", [])]
        # The MPI runtime's launcher is one of the nodes (runLauncherAsNode): the node job keeps the rest.
        if TRAINER_LAUNCHER_JOB in patched:
            return {TRAINER_LAUNCHER_JOB: 1, TRAINER_NODE_JOB: nodes - 1}
        return {name: nodes for name in patched} or {TRAINER_NODE_JOB: nodes}
    replicas = spec.get("pytorchReplicaSpecs") or spec.get("mpiReplicaSpecs") or {}
    return {name: int(r.get("replicas", 1)) for name, r in replicas.items()}


def mpi_operator_configmap_bytes(name: str, namespace: str, workers: int, slots: int) -> int:
    """The data of the MPI operator's ``<job>-config`` once every worker runs: a hostfile line
    ``<job>-worker-<i>.<job>.<namespace>.svc slots=<n>`` and a ``discover_hosts.sh`` line ``echo <host>`` per worker
    (mpi-operator v0.8.0 ``newConfigMap``, ``updateDiscoverHostsInConfigMap``; trainstack installs it without
    ``--cluster-domain``, so no domain is appended)."""
    hosts = sum(len(f"{name}-worker-{i}.{name}.{namespace}.svc") for i in range(workers))
    return hosts + workers * len(f" slots={slots}\n") + len("#!/bin/sh\n") + hosts + workers * len("echo \n")


def trainer_mpi_configmap_bytes(name: str, nodes: int, slots: int) -> int:
    """The data of Trainer v2.3.0's MPI hostfile: one ``<job>-<replicated job>-0-<i>.<job> slots=<n>`` line per node,
    the launcher's first (runLauncherAsNode; jobset.go endpoints, mpi.go ``buildHostFileConfigMap``)."""
    lines = [f"{name}-{TRAINER_LAUNCHER_JOB}-0-0.{name}"] + [f"{name}-{TRAINER_NODE_JOB}-0-{i}.{name}"
                                                             for i in range(nodes - 1)]
    return sum(len(f"{line} slots={slots}\n") for line in lines)


def problems(job: Mapping[str, Any]) -> Iterator[str]:
    """Each limit the job exceeds, in words with the numbers and the fix."""
    kind, name = job.get("kind", "?"), job.get("metadata", {}).get("name", "?")
    size = object_bytes(job)
    if size > (ETCD_REQUEST_BYTES.value or 0):
        yield (f"{kind} {name} is {size:,} bytes as JSON; etcd refuses a write over {ETCD_REQUEST_BYTES.value:,} "
               f"bytes ({ETCD_REQUEST_BYTES.source}), so the API server would refuse the job. Put what makes it "
               "large (an inline program or data in the command or environment) in the image or on FSx and pass "
               "its path.")
    sets = pod_sets(job)
    if len(sets) > (KUEUE_POD_SETS.value or 0):
        yield (f"{kind} {name} has {len(sets)} pod sets; a Kueue Workload holds at most {KUEUE_POD_SETS.value} "
               f"({KUEUE_POD_SETS.source}).")
    for pod_set, pods in sorted(sets.items()):
        if pods > INT32_MAX:
            yield (f"{kind} {name}: {pod_set} has {pods:,} pods; replica counts are int32, at most {INT32_MAX:,} "
                   f"({REPLICAS.source}).")
    yield from _derived(kind, name, job)


def _derived(kind: str, name: str, job: Mapping[str, Any]) -> Iterator[str]:
    """What the job's controller makes from it and the API server would refuse after the job was accepted."""
    spec = job.get("spec", {})
    namespace = job.get("metadata", {}).get("namespace") or "default"
    if kind == "TrainJob":
        sets = pod_sets(job)
        pods = sets.get(TRAINER_NODE_JOB, 0)
        if pods > (INDEXED_JOB_PARALLELISM.value or 0):
            yield (f"TrainJob {name}: {spec['trainer']['numNodes']:,} nodes make its JobSet's '{TRAINER_NODE_JOB}' "
                   f"Job an Indexed Job of parallelism {pods:,}; Kubernetes refuses more than "
                   f"{INDEXED_JOB_PARALLELISM.value:,} ({INDEXED_JOB_PARALLELISM.source}), so Trainer's JobSet "
                   f"would never make its pods. Ask for at most {INDEXED_JOB_PARALLELISM.value:,} nodes.")
        if TRAINER_LAUNCHER_JOB in sets:
            slots = int(spec.get("trainer", {}).get("numProcPerNode", 1))
            data = trainer_mpi_configmap_bytes(name, int(spec["trainer"]["numNodes"]), slots)
            if data > (CONFIGMAP_BYTES.value or 0):
                yield _configmap(kind, name, f"{name}-mpi-hostfile", data)
    elif kind == "MPIJob":
        workers = int(spec.get("mpiReplicaSpecs", {}).get("Worker", {}).get("replicas", 1))
        data = mpi_operator_configmap_bytes(name, namespace, workers, int(spec.get("slotsPerWorker", 1)))
        if data > (CONFIGMAP_BYTES.value or 0):
            yield _configmap(kind, name, f"{name}-config", data)


def _configmap(kind: str, name: str, configmap: str, data: int) -> str:
    return (f"{kind} {name}: its operator writes ConfigMap {configmap} with a line per node, {data:,} bytes of "
            f"data; the API server refuses more than {CONFIGMAP_BYTES.value:,} ({CONFIGMAP_BYTES.source}), so the "
            "job would be accepted and never start. Use fewer nodes, or a shorter job name and namespace.")


def check_job(job: dict[str, Any]) -> dict[str, Any]:
    """The job, once it is inside every limit above; a LaunchError naming each one it exceeds otherwise."""
    found = list(problems(job))
    if found:
        raise LaunchError(" ".join(found))
    return job
