"""How a PyTorchJob's torchrun agents find each other: decided per job from what the job needs.

c10d, unless the job is elastic (``min_nodes`` below ``nodes``) and asks for etcd. Why:

* torchrun supports ``c10d`` (recommended), ``etcd-v2`` and ``etcd`` (legacy); c10d needs no server of its own
  ("Not needed for the C10d backend"): torch.distributed.run's "Note on rendezvous backend" and "Deployment",
  https://docs.pytorch.org/docs/stable/elastic/run.html (pytorch/pytorch torch/distributed/run.py @010929fd).
* etcd needs more than torch: the ``etcd`` module of the ``python-etcd`` distribution in the job's image, which torch
  does not depend on (torch/distributed/elastic/rendezvous/etcd_rendezvous_backend.py imports it; etcd_rendezvous.py,
  the backend ``rdzvBackend: etcd`` selects, imports it too or, in recent releases, a stub whose every call raises
  "The 'etcd' module is required but not installed.", _etcd_stub.py @123527f6), and an etcd serving the v2 API on a
  volume the cluster's EBS CSI driver provisions (addons/operators.py; ``trainstack preflight nodes`` checks it).
* What etcd buys is a rendezvous that outlives the training pods. With c10d the training operator points torchrun at
  ``<job>-worker-0`` on the pytorchjob port when the elastic policy names no host and port
  (kubeflow/training-operator v1.8.1 pkg/controller.v1/pytorch/elastic.go, ``generateEnvRDZVEndpoint``; its own
  elastic examples, examples/pytorch/elastic/echo/echo.yaml, set ``rdzvBackend: c10d`` alone), and torchrun hosts
  the c10d store in the agent at that endpoint ("the node ... on which the C10d rendezvous backend should be
  instantiated and hosted", run.py). Losing worker 0's node stops every worker until its pod is back; losing any
  other keeps an elastic job training on the rest. Only an elastic job is better off with etcd, so only an elastic
  job may ask for it.

At 2,048 nodes (issue 55), decided 2026-11-27: c10d still, for both kinds of job. A fixed-size job meets on the
master's TCPStore with its rank given (``PET_NODE_RANK``), so 2,048 agents contend for nothing. torchrun's docs
recommend c10d and call etcd legacy (run.py, "Note on rendezvous backend", above). The ``etcd`` backend is the
legacy ``EtcdRendezvous``: each agent joins by compare-and-swap on one key that holds the whole participant list,
and retries when another agent wrote first (torch/distributed/elastic/rendezvous/etcd_rendezvous.py,
``join_rendezvous``, read 2026-11-27). trainstack's etcd has one member (addons/operators.py) and writes each swap to
disk, so 2,048 agents would queue on one key of one server. No source gives a node count at which it fails, so
etcd is not refused: an elastic job may still ask for it, to survive the loss of worker 0's node.

A job of fixed size keeps the operator's Master and Workers: the operator gives every pod the master's Service as
``MASTER_ADDR``/``PET_MASTER_ADDR`` (pytorch/master.go, envvar.go at v1.8.1), and torchrun's default ``static``
rendezvous meets on a c10d TCPStore there. No elastic policy, no etcd, nothing beyond torch in the image.

Every job's rendezvous has its own id (issue 64), ``<namespace>.<name>``: the two are unique in the cluster at any
one time, and ``.`` is in neither a namespace (a DNS-1123 label) nor a job's name (a DNS-1035 label), so no two jobs
make the same id. torchrun's ``--rdzv-id`` (``PET_RDZV_ID``) defaults to ``none`` (run.py), and the etcd backend keys
its whole state by it (``/torchelastic/p2p/run_<id>``, etcd_rendezvous.py): two elastic jobs left at ``none`` on one
etcd join each other's rendezvous. The training operator sets ``PET_RDZV_ID`` only from ``elasticPolicy.rdzvId``
(kubeflow/training-operator v1.8.1 pkg/controller.v1/pytorch/elastic.go, ``Generate``), so an elastic PyTorchJob
names it there; a PyTorchJob of fixed size (no elastic policy, so the operator sets none) and a TrainJob (Trainer
v2.3.0's torch plugin sets ``PET_NNODES``, ``PET_NPROC_PER_NODE``, ``PET_NODE_RANK``, ``PET_MASTER_*`` and reserves
only those: pkg/runtime/framework/plugins/torch/torch.go, pkg/constants) carry ``PET_RDZV_ID`` in their container's
environment. Those meet on a store of their own (the master's, worker 0's), where the id keeps apart nothing but
runs of the job itself; it is set anyway so that no torch launcher leaves it at ``none`` (the sbatch script exports
the Slurm job id). A job whose namespace is not rendered (kubectl's context picks it) is named by its name alone;
etcd, the one store jobs share, is refused for it.

On a stack with teams, etcd is refused (``check_backend``): trainstack's etcd is one member serving the whole
cluster, without authentication (addons/operators.py: no ``--auth-token``, no client certificates, plain HTTP on
2379), in a namespace no NetworkPolicy fences. Any pod of any team could read and write every job's rendezvous
keys, or join another team's job as a rank. A unique id keeps honest jobs apart; it does not keep a team out. The
alternatives are an etcd per team namespace, or etcd's auth with a role per team prefix, which torch's etcd
backend could reach only with a client certificate per team (its ``rdzv_conf`` takes ``protocol``, ``cacert``,
``cert`` and ``key``, no user or password: etcd_rendezvous.py ``_create_etcd_client``): certificates issued, stored
and rotated per team. Both are larger than what etcd buys (an elastic job that survives the loss of worker 0's
node, above), and c10d, torch's recommended backend, keeps the rendezvous inside the job's own namespace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Optional, get_args

from ..outputs import StackOutputs
from .placement import LaunchError

Backend = Literal["c10d", "etcd"]
BACKENDS: tuple[str, ...] = get_args(Backend)
DEFAULT_BACKEND: Backend = "c10d"
RDZV_ID_ENV = "PET_RDZV_ID"
"""torchrun's ``--rdzv-id`` as its environment fallback (torch/distributed/run.py: each option reads ``PET_<NAME>``)."""


@dataclass(frozen=True)
class ImageImport:
    """A Python module the job's image must import for its rendezvous, and what to do where it cannot."""

    module: str
    fix: str


IMAGE_IMPORTS: dict[str, tuple[ImageImport, ...]] = {
    "c10d": (),
    "etcd": (ImageImport("etcd", "torch's etcd rendezvous imports it and torch does not install it: add python-etcd "
                                 "to the image (pip install python-etcd), or launch with --rendezvous c10d"),),
}
"""What each backend imports beyond torch (see the module's docstring)."""


@dataclass(frozen=True)
class Rendezvous:
    """One job's rendezvous: its backend, and for an elastic job the nodes it keeps training on."""

    backend: Backend
    nodes: int
    minimum: int
    etcd_endpoint: Optional[str] = None

    @property
    def elastic(self) -> bool:
        return self.minimum < self.nodes

    def elastic_policy(self, max_restarts: Optional[int], run_id: str) -> dict[str, Any]:
        """The PyTorchJob's ``elasticPolicy``. c10d names no host or port: the operator's default endpoint is worker
        0's Service on the ``pytorchjob-port`` its defaulting gives the container (23456,
        pkg/apis/kubeflow.org/v1/pytorch_defaults.go at v1.8.1). ``run_id``: :func:`run_id`, which the operator
        hands torchrun as ``PET_RDZV_ID`` (see the module's docstring)."""
        policy: dict[str, Any] = {"rdzvBackend": self.backend, "rdzvId": run_id}
        if self.backend == "etcd" and self.etcd_endpoint:
            host, port = self.etcd_endpoint.rsplit(":", 1)
            policy.update(rdzvHost=host, rdzvPort=int(port))
        policy.update(minReplicas=self.minimum, maxReplicas=self.nodes)
        if max_restarts is not None:
            # torchrun's own restarts of the worker group when membership changes (PET_MAX_RESTARTS).
            policy["maxRestarts"] = max_restarts
        return policy


def check_backend(outputs: StackOutputs, backend: str) -> Backend:
    """``backend`` as one torchrun knows and the stack serves: etcd only where the stack runs its etcd."""
    if backend not in BACKENDS:
        raise LaunchError(f"--rendezvous {backend!r} is not a rendezvous trainstack renders; use c10d (the default, "
                          "nothing to install) or etcd (elastic jobs on a stack with operators.etcd).")
    if backend == "etcd" and not outputs.operators.etcd_endpoint:
        raise LaunchError(f"--rendezvous etcd: stack {outputs.stack} runs no etcd; turn on operators.etcd, or use "
                          "--rendezvous c10d (the default), which needs no server.")
    if backend == "etcd" and outputs.scheduling is not None:
        raise LaunchError(f"--rendezvous etcd: stack {outputs.stack} has teams, and its one etcd serves them all "
                          "without authentication, so any team's pods could read, write or join this job's "
                          "rendezvous; trainstack puts no team's job on it. Use --rendezvous c10d (the default): an "
                          "elastic job then meets at its own worker 0, inside its team's namespace.")
    return "etcd" if backend == "etcd" else "c10d"


def run_id(name: str, namespace: Optional[str], backend: Backend = DEFAULT_BACKEND) -> str:
    """The job's rendezvous id, ``<namespace>.<name>`` (the module's docstring says why); ``name`` alone where the
    job's namespace is left to kubectl, which only a job on its own store may be."""
    if namespace:
        return f"{namespace}.{name}"
    if backend == "etcd":
        raise LaunchError(f"--rendezvous etcd: job {name} is rendered without a namespace (the stack has no FSx "
                          "claim to put it beside, and none was given), and its id in the stack's one etcd is "
                          "<namespace>.<name>, unique only with the namespace. Give the job a namespace "
                          "(render_pytorchjob's namespace), or use --rendezvous c10d (the default).")
    return name


def run_id_env(name: str, namespace: Optional[str]) -> list[dict[str, str]]:
    """``PET_RDZV_ID`` for a job that meets on its own store (a PyTorchJob of fixed size, a TrainJob)."""
    return [{"name": RDZV_ID_ENV, "value": run_id(name, namespace)}]


def choose_rendezvous(outputs: StackOutputs, *, nodes: int, min_nodes: Optional[int],
                      backend: str = DEFAULT_BACKEND) -> Rendezvous:
    """The job's rendezvous: ``min_nodes`` (default ``nodes``) below ``nodes`` makes it elastic, and an elastic job
    rendezvouses over ``backend``; a job of fixed size over c10d, so asking it for etcd is refused."""
    minimum = nodes if min_nodes is None else min_nodes
    if not 1 <= minimum <= nodes:
        raise LaunchError(f"the elastic minimum must be between 1 and the {nodes} nodes asked for; got {minimum}.")
    chosen = check_backend(outputs, backend)
    if chosen == "etcd" and minimum == nodes:
        raise LaunchError(f"--rendezvous etcd is for elastic jobs: this one needs all {nodes} nodes (no --min-nodes "
                          "below --nodes), and a job of fixed size meets on its master over c10d, with nothing to "
                          "install. Set --min-nodes below --nodes, or leave --rendezvous unset.")
    return Rendezvous(chosen, nodes, minimum, outputs.operators.etcd_endpoint if chosen == "etcd" else None)
