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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Optional, get_args

from ..outputs import StackOutputs
from .placement import LaunchError

Backend = Literal["c10d", "etcd"]
BACKENDS: tuple[str, ...] = get_args(Backend)
DEFAULT_BACKEND: Backend = "c10d"


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

    def elastic_policy(self, max_restarts: Optional[int]) -> dict[str, Any]:
        """The PyTorchJob's ``elasticPolicy``. c10d names no host or port: the operator's default endpoint is worker
        0's Service on the ``pytorchjob-port`` its defaulting gives the container (23456,
        pkg/apis/kubeflow.org/v1/pytorch_defaults.go at v1.8.1)."""
        policy: dict[str, Any] = {"rdzvBackend": self.backend}
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
    return "etcd" if backend == "etcd" else "c10d"


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
