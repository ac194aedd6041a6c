"""The Kubeflow training operator (v1.8.1, PyTorchJob v1) starting torchrun on every pod.

What the operator gives each pod (``pkg/controller.v1/pytorch/envvar.go`` and
``elastic.go`` at v1.8.1), which torchrun reads as its defaults (every torchrun option
can come from a ``PET_``-prefixed variable, ``torch/distributed/argparse_util.py``):

* with a ``Master`` replica: ``MASTER_ADDR``/``MASTER_PORT`` (the master's Service),
  ``WORLD_SIZE``, ``RANK`` and ``PET_NODE_RANK``, and ``PET_NNODES`` = the replica count;
  without one and without an ``elasticPolicy`` there is no rendezvous address at all;
* with an ``elasticPolicy``: ``PET_RDZV_BACKEND``, ``PET_RDZV_ENDPOINT``
  (``rdzvHost:rdzvPort``; without them ``<job>-worker-0`` on the pytorchjob port),
  ``PET_NNODES`` = ``min:max`` and ``PET_MAX_RESTARTS``; ``PET_RDZV_ID`` only from ``rdzvId``;
* ``PET_NPROC_PER_NODE`` from ``spec.nprocPerNode``: how many ranks torchrun starts on a pod.

The model checks, per PyTorchJob (HyperPod's included): there is a rendezvous (a single
Master, or an elastic policy: c10d at worker 0, or etcd at the stack's etcd); the pods run torchrun,
the reader of those variables; one rank per accelerator the pod holds; the fabric
settings of ``catalog.fabric_env`` on every pod of an EFA node. Restart semantics are
``restarts.py``'s. Not checked: that the image has torchrun, NCCL and aws-ofi-nccl
(the all-reduce job's transport check reads that at run time), or the etcd server's API
version.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Optional

from ..catalog import EFA_RESOURCE
from ..catalog.fabric_env import NCCL_EFA_ENV_SOURCE, efa_env
from ..names import GPU_RESOURCE, NEURON_RESOURCE
from .jobs import Job, accelerator_kind, argv, env, job_name, limit, main_container, replica_specs, runs
from .model import Finding

CONTROLLER = "training-operator"
SOURCE = "kubeflow/training-operator v1.8.1 pkg/controller.v1/pytorch/envvar.go, elastic.go"


def check_pytorchjob(job: Job, etcd_endpoint: Optional[str] = None) -> list[Finding]:
    """What would keep torchrun on the job's pods from forming one job with every rank.

    ``etcd_endpoint``: the stack's etcd (``host:port``, outputs contract), which an elastic
    job's rendezvous must name."""
    if job.get("kind") != "PyTorchJob":
        return []
    replicas = replica_specs(job)
    spec = job.get("spec", {})
    return [*_rendezvous(job, spec, replicas, etcd_endpoint),
            *(finding for role, replica in sorted(replicas.items())
              for finding in _pods(job, spec, role, replica))]


def _rendezvous(job: Job, spec: Mapping[str, Any], replicas: Mapping[str, Any],
                etcd_endpoint: Optional[str]) -> Iterator[Finding]:
    elastic = spec.get("elasticPolicy")
    pods = sum(int(r.get("replicas", 1)) for r in replicas.values())
    if elastic is None:
        master = replicas.get("Master")
        if master is None and pods > 1:
            yield _finding(job, f"{pods} pods, no Master replica and no elasticPolicy: the operator sets "
                                "MASTER_ADDR and ranks only with a Master, so torchrun has no rendezvous. Add a "
                                "Master replica or an elasticPolicy.")
        elif master is not None and int(master.get("replicas", 1)) != 1:
            yield _finding(job, f"{master.get('replicas')} Master replicas: MASTER_ADDR names one pod; use 1.")
        return
    endpoint = f"{elastic.get('rdzvHost')}:{elastic.get('rdzvPort')}"
    if elastic.get("rdzvBackend") == "etcd" and etcd_endpoint and endpoint != etcd_endpoint:
        yield _finding(job, f"the rendezvous is {endpoint}, but the stack's etcd is {etcd_endpoint}: torchrun "
                            "would wait on an endpoint nothing serves.")
    if elastic.get("rdzvBackend") == "etcd" and not etcd_endpoint:
        yield _finding(job, "an etcd rendezvous on a stack that runs no etcd: turn on operators.etcd.")
    if elastic.get("rdzvBackend") == "etcd" and not elastic.get("rdzvId"):
        # torchrun's --rdzv-id defaults to "none" (torch/distributed/run.py) and the etcd backend keys its state by it
        # (etcd_rendezvous.py): every job left without one meets every other on the stack's one etcd.
        yield _finding(job, "an etcd rendezvous without rdzvId: the operator sets no PET_RDZV_ID, so torchrun meets "
                            "under its default id 'none', where every other such job on the stack's etcd meets too. "
                            "Set elasticPolicy.rdzvId to <namespace>.<name>.")
    low, high = int(elastic.get("minReplicas", 1)), int(elastic.get("maxReplicas", pods))
    if not low <= pods <= high:
        yield _finding(job, f"{pods} pods outside the elastic range {low}:{high} the operator gives torchrun as "
                            "PET_NNODES.")


def _pods(job: Job, spec: Mapping[str, Any], role: str, replica: Mapping[str, Any]) -> Iterator[Finding]:
    container = main_container(replica)
    if not runs(container, "torchrun"):
        yield _finding(job, f"{role} runs {' '.join(argv(container))[:80]!r}, not torchrun: the PET_* rendezvous "
                            "variables the operator sets are torchrun's, so nothing joins the job. Start it with "
                            "torchrun.")
    devices = limit(container, GPU_RESOURCE) or limit(container, NEURON_RESOURCE)
    nproc = spec.get("nprocPerNode") or (spec.get("elasticPolicy") or {}).get("nProcPerNode")
    if devices and str(nproc) != str(devices):
        yield _finding(job, f"{role} pods hold {devices} accelerators but nprocPerNode is {nproc}: torchrun starts "
                            f"that many ranks per pod (PET_NPROC_PER_NODE). Set nprocPerNode to {devices}.")
    kind = accelerator_kind(container)
    have = env(container)
    for name, value in sorted(efa_env(kind or "", limit(container, EFA_RESOURCE)).items()):
        if have.get(name) != value:
            now = "unset" if name not in have else f"{have[name]!r}"
            yield _finding(job, f"{role} pods run on EFA with {name} {now}; the fabric setting is {name}={value} "
                                f"({NCCL_EFA_ENV_SOURCE if kind == 'nvidia-gpu' else 'catalog.fabric_env'}).")


def _finding(job: Job, message: str) -> Finding:
    return Finding(controller=CONTROLLER, subject=job_name(job), message=message, source=SOURCE)
