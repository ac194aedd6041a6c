"""The environment every process of a multi-node job needs to use EFA, per accelerator
kind: what the accelerator vendor's and AWS's own documentation set.

A fact about the hardware's software stack, kept beside the instance facts so the job
launchers (which set it) and the controller models (which check it reaches every rank)
read one list.

* Neuron (Trainium): AWS Neuron's multi-node EKS sample sets ``FI_PROVIDER=efa``,
  ``FI_EFA_USE_DEVICE_RDMA=1``, ``FI_EFA_FORK_SAFE=1`` and ``CCOM_SOCKET_IFNAME=eth0``
  on every worker (aws-neuron/aws-neuron-eks-samples, ``dp_bert_hf_pretrain/lib/
  trn1_dist_ddp.py`` at cecff9eb, ``env_mapping``). The Neuron collectives library
  (CCOM) bootstraps over that interface; in a pod on EKS ``eth0`` is the VPC CNI's
  interface.
* NVIDIA GPUs (NCCL with aws-ofi-nccl): ``FI_PROVIDER=efa`` keeps libfabric from
  opening any provider but EFA, so aws-ofi-nccl fails instead of running quietly over
  libfabric's TCP provider (aws-ofi-nccl ``doc/efa-env-var.md`` at 518f4c6 calls it
  needed only before 1.5.0 and harmless since; trainstack sets it for that failure).
  ``NCCL_SOCKET_IFNAME`` keeps NCCL's bootstrap off loopback, Docker's bridge and EKS
  Pod Identity's link-local ``pod-id-link`` interface, over which cross-node NCCL hangs
  (aws-samples/aws-do-eks issue 54). ``FI_EFA_USE_DEVICE_RDMA`` is not set: libfabric
  1.18+ enables device RDMA by itself where the type supports it (efa-env-var.md), and
  setting it on a type without RDMA read makes the EFA provider refuse to open; the
  catalog has no per-type RDMA fact to decide it by.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

NEURON_EFA_ENV: Mapping[str, str] = MappingProxyType({
    "FI_PROVIDER": "efa",
    "FI_EFA_USE_DEVICE_RDMA": "1",
    "FI_EFA_FORK_SAFE": "1",
    "CCOM_SOCKET_IFNAME": "eth0",
})
NEURON_EFA_ENV_SOURCE = "aws-neuron/aws-neuron-eks-samples dp_bert_hf_pretrain/lib/trn1_dist_ddp.py@cecff9eb"

NCCL_EFA_ENV: Mapping[str, str] = MappingProxyType({
    "FI_PROVIDER": "efa",
    "NCCL_SOCKET_IFNAME": "^lo,docker,pod-id-link",
})
NCCL_EFA_ENV_SOURCE = "aws/aws-ofi-nccl doc/efa-env-var.md@518f4c6; aws-samples/aws-do-eks issue 54"


def efa_env(accelerator_kind: str, efa_interfaces: int) -> Mapping[str, str]:
    """The variables a process of ``accelerator_kind`` (``nvidia-gpu`` or ``neuron``) needs on a
    node with ``efa_interfaces`` EFA interfaces; none without EFA."""
    if not efa_interfaces:
        return MappingProxyType({})
    return NEURON_EFA_ENV if accelerator_kind == "neuron" else NCCL_EFA_ENV
