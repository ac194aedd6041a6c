"""p6e-gb200.36xlarge, kept by hand: EC2's instance data as moto 5.2.5 ships it, nodeadm's and the VPC CNI's
generated limits (aws/amazon-vpc-cni-k8s @b5218838 ``pkg/vpc/vpc_ip_resource_limit.go``) all lack the type, so
its facts come from AWS's pages, each read 2026-11-26:

* EC2 Instance Types guide, accelerated computing specifications
  (https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html): NVIDIA Grace (arm64), 144 vCPUs, 960 GiB,
  "4 x NVIDIA B200 GPU" with "740 GiB (4 x 185 GiB)"; network "3200 Gigabit", EFA yes, 17 network cards,
  39 network interfaces at most, 50 IP addresses per interface; instance store "3 x 7500 GB" NVMe SSD.
* EC2 User Guide, "EFA configuration for P6e-GB200 instances"
  (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html#efa-for-p6e): the primary card
  (index 0) carries ENA only, up to 100 Gbps; cards 1, 3, 5, ..., 15 "support EFA-only network interfaces and
  400 Gbps EFA bandwidth"; cards 2, 4, ..., 16 up to 200 Gbps ENA or EFA; cards 1-2, 3-4, ... share one
  physical NIC; each GPU sends through the pairs 1-3, 5-7, 9-11, 13-15 at up to 400 Gbps of EFA, so 1,600 Gbps
  of EFA per instance at most. AWS recommends either one EFA-only interface per GPU pair (4 x 400 Gbps) or one
  on each card of each pair (8 x 200 Gbps), and spells out the first: ENA on card 0, EFA-only on cards 1, 5,
  9 and 13, device index 0.
* EKS User Guide, ml-eks-nvidia-ultraserver
  (https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-nvidia-ultraserver.html): card 0 "must be of type
  interface"; with "1 efa-only interface in each NCI group ... it is expected to see 4 allocatable EFA devices
  per node"; P6e-GB200 UltraServers come through EC2 Capacity Blocks for ML; the AL2023 ARM NVIDIA AMI.

Decisions, and why:

* EFA: the layout AWS spells out on both pages, EFA-only on cards 1, 5, 9 and 13 (4 interfaces, one per GPU,
  400 Gbps each). It reaches the same 1,600 Gbps as AWS's 8-interface choice with half the interfaces, and it is
  the one the EKS page shows a node advertising. The even cards could carry EFA too, but they share their NIC
  with an odd card, so EFA there adds no bandwidth and AWS recommends it in neither layout. ParallelCluster puts
  ``efa-only`` on every odd card and ``efa`` on every even one (aws/aws-parallelcluster#6930, merged 2025-08):
  a secondary source, which agrees that the odd cards carry EFA-only and is not followed for the even cards.
* ENIs on card 0: no AWS page read here gives a card's own ``MaximumNetworkInterfaces``, only the 39 across all
  17 cards. The one per-card statement is an AWS engineer's review comment on that ParallelCluster pull request
  (2025-08-07, secondary): "1 for odd indexes and 2 for even indexes". Read with card 0 among the even cards, as
  this project's research read it, card 0 has 2 (but the cards then total 26, not AWS's 39); read as the
  secondary cards only, card 0 has the remaining 15. The catalog takes 2, the smaller: too many assumed pod IPs
  lets the scheduler place pods that never get an address, too few only caps a node at nodeadm's
  2 x (50 - 1) + 2 = 100 pods, far above what a 4-GPU training node runs. If ``describe-instance-types`` shows
  otherwise, its value wins here.
* GPU memory: 185 GiB (189440 MiB) from ac.html; the EC2 API's usable MiB, which the catalog uses for other GPUs,
  is not published for this type. The catalog names the GPU ``GB200`` (ac.html says "B200"): the Grace-paired
  part, told apart from p6-b200's B200 wherever a fact is keyed by GPU model.
* Offered regions and zones: unknown (no offering data covers the type), so ``None``.
"""

from __future__ import annotations

from datetime import date

from .model import Accelerator, AcceleratorKind, Efa, InstanceType, Network, Source, max_pods_nodeadm

AWS_PAGES = Source(
    "EC2 Instance Types guide, accelerated computing specifications (ac.html); EC2 User Guide, EFA configuration "
    "for P6e-GB200 instances (efa-acc-inst-types.html#efa-for-p6e); EKS User Guide, ml-eks-nvidia-ultraserver; "
    "HyperPod and training-plan enums from botocore; ENIs on card 0 derived (see catalog/p6e_gb200.py)",
    date(2026, 11, 26),
)

EFA_CARDS = (1, 5, 9, 13)
"""One EFA-only interface per GPU's NCI pair, AWS's worked example (efa-for-p6e)."""
ENIS_ON_CARD0 = 2
"""The smaller of the two readings of the only per-card source (a secondary one): see the module."""
IPV4_PER_ENI = 50

P6E_GB200 = InstanceType(
    "p6e-gb200.36xlarge", arch="arm64", vcpus=144, memory_gib=960,
    accelerator=Accelerator(AcceleratorKind.GPU, "GB200", count=4, memory_mib=185 * 1024),
    network=Network(cards=17, enis_on_card0=ENIS_ON_CARD0, ipv4_per_eni=IPV4_PER_ENI,
                    max_pods=max_pods_nodeadm(ENIS_ON_CARD0, IPV4_PER_ENI), bandwidth_gbps=3200.0),
    efa=Efa(supported=True, max_interfaces=len(EFA_CARDS), cards=EFA_CARDS),
    ami_types=("AL2023_ARM_64_NVIDIA",), capacity_block=True, hyperpod=True,
    hyperpod_training_plan=True, source=AWS_PAGES, nvme_instance_store_gb=3 * 7500,
    notes=("Card 0 carries only a plain interface; EFA-only sits on cards 1, 5, 9 and 13 (one per GPU), "
           "AWS's recommended P6e-GB200 layout.",
           "ENIs on card 0 (2) are not published by AWS: the smaller reading of an AWS engineer's "
           "ParallelCluster review comment (aws/aws-parallelcluster#6930), so maxPods is at most 100.",
           "EFA bandwidth is 1,600 Gbps at most (4 GPUs x 400 Gbps), below the 3,200 Gbps network figure."),
)
"""Kept by hand until the EC2 data has it; if the data gains it, the generated entry wins."""
