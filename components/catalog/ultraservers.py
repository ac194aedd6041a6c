"""UltraServers: instances AWS sells and schedules as one unit, joined by an accelerator fabric across them.

A job that spans more instances than one UltraServer leaves the fabric for EFA; a job inside one unit
keeps its collectives on NVLink (GB200) or NeuronLink (Trainium2). Sources, read 2026-11-26:

* P6e-GB200: "The ``p6e-gb200.36xlarge`` instance type with 4 NVIDIA Blackwell GPUs is only available as
  P6e-GB200 UltraServers ... ``u-p6e-gb200x36`` has 9 ``p6e-gb200.36xlarge`` instances and
  ``u-p6e-gb200x72`` has 18"; offered through EC2 Capacity Blocks for ML; DRA required (IMEX through
  ComputeDomains); managed or self-managed node groups, not Karpenter or Auto Mode; a managed node group on
  a Capacity Block needs a custom launch template and desired size 0 before an upgrade
  (https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-nvidia-ultraserver.html).
* Trn2: "A Trn2 UltraServer comprises four trn2u.48xlarge instances connected together via the
  NeuronLink-v3 chip-to-chip interconnect ... a total of 64 Trainium2 chips"
  (https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/arch/neuron-hardware/trn2-arch.html);
  the unit's name ``u-trn2x64`` is the Neuron docs' of release 2.21
  (.../en/v2.21.0.beta/general/arch/neuron-hardware/trn2-arch.html).

What the catalog holds of the two types (read 2026-11-26):

* ``p6e-gb200.36xlarge`` is absent from EC2's instance data as moto 5.2.5 ships it; its facts come from AWS's
  pages (EC2 Instance Types guide ac.html, the EC2 User Guide's EFA configuration for P6e-GB200, this EKS page),
  kept by hand in ``p6e_gb200.py``: 17 network cards, 4 EFA-only interfaces on cards 1, 5, 9 and 13 (AWS's
  recommended layout, one per GPU), card 0 plain. Card 0's ENIs are not published; the catalog takes the smaller
  reading of the one per-card source (a ParallelCluster review comment) and says so there.
* ``trn2u.48xlarge`` is in EC2's data with its network (16 network cards, ``MaximumEfaInterfaces`` 16, 2 ENIs
  per card, 50 IPv4 per ENI, 192 vCPUs, 2048 GiB, the ``capacity-block`` usage class, offered in ap-south-2
  only) but without ``NeuronInfo``; the generator gives it 16 Trainium2 from the Neuron docs
  (``generate.ACCELERATOR_OVERRIDES``), and the catalog the trn2 family's AMI types, which the EKS AMI table
  lists for trn2 and not for trn2u (``instances.py`` says why).

The label that names a node's unit, by who runs the node (``UNIT_LABELS``, ``HYPERPOD_UNIT_LABEL``; read 2026-11-26):

* P6e-GB200 on EKS: ``nvidia.com/gpu.clique``, applied by NVIDIA GPU Feature Discovery: "Nodes within the same
  ``nvidia.com/gpu.clique`` have multi-node NVLink-reachability, and you can use pod affinities in your application
  to schedule pods to the same NVlink domain"; its sample job's workers carry a required ``podAffinity`` with
  ``topologyKey: nvidia.com/gpu.clique`` (EKS User Guide source, awsdocs/amazon-eks-user-guide @00e3293d,
  latest/ug/ml/ml-eks-nvidia-ultraserver.adoc; https://docs.aws.amazon.com/eks/latest/userguide/
  ml-eks-nvidia-ultraserver.html). EKS itself puts no UltraServer label on a managed node group's nodes in any page
  read here; the clique label exists only where GFD runs, so trainstack installs GFD, with the Node Feature
  Discovery it needs, on the DRA groups of this type (``needs_gpu_feature_discovery``;
  addons/feature_discovery.py says which chart and values, and why).
* Trn2 UltraServers on EKS: ``neuron.amazonaws.com/ultraserver-server-id-4`` (one value per four-node unit; ``-2``
  per pair), set by the Neuron device plugin (>= 2.26.26.0); a 2- or 4-node MPIJob's workers carry a required
  ``podAffinity`` on it, a larger job a preferred one (weight 100) (aws-neuron/aws-neuron-sdk @0521004c,
  containers/how-to/how-to-ultraserver.rst, "How to schedule MPI jobs to run on Neuron UltraServer on EKS").
* SageMaker HyperPod: "When using UltraServers with Amazon SageMaker HyperPod, SageMaker HyperPod automatically
  applies topology labels to your resources" (https://docs.aws.amazon.com/sagemaker/latest/dg/
  sagemaker-hyperpod-topology.html); the key, ``topology.k8s.aws/ultraserver-id``, is from AWS's HyperPod CLI,
  which accepts it as a job's topology label (aws/sagemaker-hyperpod-cli @70997259, hyperpod-pytorch-job-template/
  hyperpod_pytorch_job_template/v1_1/model.py, ``ALLOWED_TOPOLOGY_LABELS``). The HyperPod page that defines the key
  (task governance scheduling) was not read here.

Capacity Block rules specific to UltraServers (EKS User Guide, ml-eks-nvidia-ultraserver, above): P6e-GB200
UltraServers "are made available through EC2 Capacity Blocks for ML"; a managed node group on Capacity Blocks
needs a custom launch template (trainstack always renders one); "When upgrading EKS managed node groups with
P6e-GB200 UltraServers, you must set the desired size of the node group to 0 before upgrading" (a plan
warning: config/ultraserver_capacity.py says why trainstack does not do it). EC2's own rules (each UltraServer one
Capacity Block, offerings searched by ``UltraserverType`` and ``UltraserverCount``) are enforced in
config/ultraserver_capacity.py (blocks and groups in whole units) and preflight/capacity_blocks.py (the search).
Not modelled: EC2's resource groups of UltraServer Capacity Blocks, which instances may target instead of one block
(EC2 User Guide, cb-group.html, read 2026-11-26 in its Chinese edition; trainstack still targets blocks by id), and
the Dallas Local Zone opt-in EC2 requires for P6e-GB200 UltraServer blocks (capacity-blocks-launch.html).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Optional

from ..names import GPU_CLIQUE_LABEL, HYPERPOD_ULTRASERVER_LABEL, NEURON_ULTRASERVER_LABEL

EKS_ULTRASERVER_PAGE = "Amazon EKS User Guide, ml-eks-nvidia-ultraserver (read 2026-11-26)"
NEURON_TRN2_PAGE = "AWS Neuron docs, Amazon EC2 Trn2 Architecture (read 2026-11-26)"


@dataclass(frozen=True)
class UltraServer:
    name: str
    """The unit's name as AWS sells it (Capacity Blocks, training plans)."""
    instance_type: str
    instances: int
    """Instances in one unit; AWS sells and places whole units."""
    accelerators: int
    """Accelerators across the unit (GPUs or Trainium2 chips)."""
    fabric: Literal["nvlink-imex", "neuronlink"]
    """``nvlink-imex``: one NVLink domain across the unit's instances, handed to a job's pods through an
    IMEX channel (the NVIDIA DRA driver's ComputeDomain); ``neuronlink``: NeuronLink-v3 across instances."""
    source: str

    @property
    def needs_compute_domain(self) -> bool:
        """Whether a job across the unit's instances needs a ComputeDomain (IMEX) to reach its NVLink."""
        return self.fabric == "nvlink-imex"

    @property
    def accelerators_per_instance(self) -> int:
        return self.accelerators // self.instances


ULTRASERVERS: tuple[UltraServer, ...] = (
    UltraServer("u-p6e-gb200x36", "p6e-gb200.36xlarge", 9, 36, "nvlink-imex", EKS_ULTRASERVER_PAGE),
    UltraServer("u-p6e-gb200x72", "p6e-gb200.36xlarge", 18, 72, "nvlink-imex", EKS_ULTRASERVER_PAGE),
    UltraServer("u-trn2x64", "trn2u.48xlarge", 4, 64, "neuronlink", NEURON_TRN2_PAGE),
)


def ultraservers_of(instance_type: str) -> tuple[UltraServer, ...]:
    """The units an instance type is sold in (none for a type sold alone)."""
    return tuple(u for u in ULTRASERVERS if u.instance_type == instance_type)


def ultraserver_of(instance_type: str) -> Optional[UltraServer]:
    """The largest unit an instance type is sold in, or ``None`` for a type sold alone."""
    units = ultraservers_of(instance_type)
    return max(units, key=lambda u: u.instances) if units else None


def needs_compute_domain(instance_type: str) -> bool:
    """Whether the type's NVLink domain spans instances, so its nodes run the NVIDIA DRA driver's ComputeDomains."""
    return any(u.needs_compute_domain for u in ultraservers_of(instance_type))


@dataclass(frozen=True)
class UnitLabel:
    """The node label whose value is the same on every node of one UltraServer, and who sets it."""

    key: str
    set_by: str
    source: str


UNIT_LABELS: dict[str, UnitLabel] = {
    "p6e-gb200.36xlarge": UnitLabel(GPU_CLIQUE_LABEL, "NVIDIA GPU Feature Discovery",
                                    "awsdocs/amazon-eks-user-guide @00e3293d ml-eks-nvidia-ultraserver.adoc"),
    "trn2u.48xlarge": UnitLabel(NEURON_ULTRASERVER_LABEL, "the Neuron device plugin (>= 2.26.26.0)",
                                "aws-neuron/aws-neuron-sdk @0521004c containers/how-to/how-to-ultraserver.rst"),
}
"""On EKS nodes: the unit label of each UltraServer instance type."""
HYPERPOD_UNIT_LABEL = UnitLabel(HYPERPOD_ULTRASERVER_LABEL, "SageMaker HyperPod",
                                "aws/sagemaker-hyperpod-cli @70997259 hyperpod-pytorch-job-template/"
                                "hyperpod_pytorch_job_template/v1_1/model.py")
"""On HyperPod's nodes, whatever the UltraServer type."""


def needs_gpu_feature_discovery(instance_type: str) -> bool:
    """Whether the type's unit label on EKS is GFD's ``nvidia.com/gpu.clique``, so its nodes run GFD
    (addons/feature_discovery.py) for a job kept inside one unit to be scheduled at all."""
    label = UNIT_LABELS.get(instance_type)
    return label is not None and label.key == GPU_CLIQUE_LABEL


def smallest_unit(instance_type: str) -> Optional[UltraServer]:
    """The smallest unit the type is sold in: a job that fits it fits whichever unit was bought."""
    units = ultraservers_of(instance_type.removeprefix("ml."))
    return min(units, key=lambda u: u.instances) if units else None


def unit_label(instance_type: str, hyperpod: bool) -> Optional[UnitLabel]:
    """The label naming the node's UltraServer, where a source gives one; None for a type sold alone."""
    bare = instance_type.removeprefix("ml.")
    if not ultraservers_of(bare):
        return None
    return HYPERPOD_UNIT_LABEL if hyperpod else UNIT_LABELS.get(bare)
