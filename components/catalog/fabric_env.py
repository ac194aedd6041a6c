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
  (aws-samples/aws-do-eks issue 54). ``FI_EFA_USE_DEVICE_RDMA=1`` only on the families with
  GPUDirect RDMA over EFA (``GPUDIRECT_RDMA_FAMILIES``): aws-ofi-nccl 1.6.x needs it there,
  1.7.0+ with libfabric 1.18+ turns device RDMA on by itself and calls setting it on p4/p5
  harmless (efa-env-var.md, "Sample Presets"), so setting it covers whatever plugin the
  user's image pins; on a GPU type without RDMA (g5, g6, g6e, ...) it is never set, since the
  EFA provider then refuses to open. ``NCCL_PROTO=simple`` is for aws-ofi-nccl 1.5.0 and
  older only (same table) and is not set: it costs the LL/LL128 protocols on every later one.
  ``NCCL_DEBUG=INFO`` (``NCCL_DEBUG_ENV``) makes NCCL say which network it chose, in one line of each
  rank's log: ``NCCL INFO Using network AWS Libfabric`` over EFA, ``... Using network Socket`` when it
  fell back to TCP (NVIDIA/nccl src/init.cc at v2.28.9-1, printed under the INIT subsystem, which INFO
  shows by default). NCCL's default level (WARN) prints neither, and a job that runs over sockets on an
  EFA node is otherwise silent: ``trainstack doctor`` reads that line from rank 0's log.

Ranks on the host's own network (HyperPod Slurm's sbatch, not a pod) get the same list less
what names a pod's interface (``POD_NETWORK_ENV``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Optional

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

# GPU families whose GPUs and EFA devices do GPUDirect RDMA (the NIC reads and writes GPU
# memory). aws-ofi-nccl's doc/efa-env-var.md@518f4c6 ("Sample Presets") names p4 and p5 as the
# EFA GPU types with GPUDirect RDMA; AWS's P4d launch post says the same of p4d
# (https://aws.amazon.com/blogs/compute/amazon-ec2-p4d-instances-deep-dive/). p5e and p5en are p5
# with H200 GPUs and the p6 families their Blackwell successors, on Nitro v4 or later, where EFA
# does RDMA read and write (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html, "EFA
# supports RDMA write on most supported instance types that have Nitro version 4 and later"): a
# judgment, recorded here, where the plugin's page has not caught up. The G families (g4dn, g5,
# g6, g6e) have EFA on their largest sizes but no GPUDirect RDMA.
GPUDIRECT_RDMA_FAMILIES = frozenset({"p4d", "p4de", "p5", "p5e", "p5en", "p6-b200", "p6-b300", "p6e-gb200"})
GPUDIRECT_RDMA_ENV: Mapping[str, str] = MappingProxyType({"FI_EFA_USE_DEVICE_RDMA": "1"})
NCCL_DEBUG_ENV: Mapping[str, str] = MappingProxyType({"NCCL_DEBUG": "INFO"})
NCCL_DEBUG_SOURCE = ("NVIDIA/nccl src/init.cc@v2.28.9-1 ('Using network', INIT subsystem); "
                     "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-debug")
GPUDIRECT_RDMA_SOURCE = ("aws/aws-ofi-nccl doc/efa-env-var.md@518f4c6 (Sample Presets); "
                         "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html")


def gpudirect_rdma(instance_type: str) -> bool:
    """Whether ``instance_type`` (an EC2 name, or HyperPod's ``ml.`` one) has GPUDirect RDMA over EFA."""
    name = instance_type.removeprefix("ml.")
    return name.split(".")[0] in GPUDIRECT_RDMA_FAMILIES


# What names the interface of a pod: in a pod on EKS ``eth0`` is the VPC CNI's interface, but a rank on
# the host's network (HyperPod Slurm) sees the instance's interfaces, named by its AMI (``ens5`` and the
# like on Ubuntu). AWS Neuron's NeMo sample sets CCOM_SOCKET_IFNAME=eth0 for its "MPI runs on EKS" and
# not for its Slurm runs (aws-neuron/neuronx-nemo-megatron nemo/examples/nlp/language_modeling/
# train_setup.sh@05dde85a), so a host-network rank leaves it to the Neuron runtime's own choice.
POD_NETWORK_ENV = frozenset({"CCOM_SOCKET_IFNAME"})


def efa_env(accelerator_kind: str, efa_interfaces: int, instance_type: Optional[str] = None, *,
            host_network: bool = False) -> Mapping[str, str]:
    """The variables a process of ``accelerator_kind`` (``nvidia-gpu`` or ``neuron``) needs on a
    node of ``instance_type`` with ``efa_interfaces`` EFA interfaces; none without EFA. Without
    the instance type (a pod that does not say), the GPU settings every EFA type shares. With
    ``host_network`` (a process outside any pod), those that name a pod's interface are left out."""
    if not efa_interfaces:
        return MappingProxyType({})
    if accelerator_kind == "neuron":
        env = NEURON_EFA_ENV
    elif instance_type is not None and gpudirect_rdma(instance_type):
        env = MappingProxyType({**NCCL_EFA_ENV, **GPUDIRECT_RDMA_ENV, **NCCL_DEBUG_ENV})
    else:
        env = MappingProxyType({**NCCL_EFA_ENV, **NCCL_DEBUG_ENV})
    if host_network:
        return MappingProxyType({name: value for name, value in env.items() if name not in POD_NETWORK_ENV})
    return env
