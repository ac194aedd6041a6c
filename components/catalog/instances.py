"""Instance types a training cluster uses, with their sources.

Where the research sources conflict, the choice is made here and said why:

* EFA interface counts, network cards, ENIs and IPs: EC2 ``DescribeInstanceTypes``
  (moto 5.2.5's snapshot) over eksctl/ParallelCluster, which size EFA by network
  cards and so get p6-b300 (17 cards, 16 EFA, none on card 0) wrong.
* Max pods: amazon-eks-ami nodeadm, which counts only the default network card;
  it agrees with the retired AL2 ``eni-max-pods.txt`` for every type here.
* GPU memory: the usable MiB the EC2 API reports (one convention for all GPUs).
* Trainium2 memory: Neuron docs (96 GiB HBM per chip), not the EC2 API's
  524288 MiB, which is 5x the physical HBM.
* p6e-gb200: absent from the EC2 snapshot and nodeadm; its EFA count, ENIs,
  IPs, vCPUs and memory are unknown and stay ``None`` (a maintainer comment in
  ParallelCluster is not a primary source). The GPU count of 4 is derived from
  the UltraServer size (72 GPUs / 18 instances).
"""

from __future__ import annotations

from datetime import date
from typing import Any, Optional

from .model import NO_EFA, Accelerator, AcceleratorKind, Efa, InstanceType, Network, Source
from .prices import ON_DEMAND

GPU = AcceleratorKind.GPU
NEURON = AcceleratorKind.NEURON

EC2_SNAPSHOT = Source(
    "EC2 DescribeInstanceTypes (moto 5.2.5 snapshot); max pods from amazon-eks-ami "
    "nodeadm @81fec2e; AMI types from the EKS user guide; HyperPod and capacity-block "
    "availability from botocore 1.44.5",
    date(2026, 7, 23),
)
NEURON_DOCS = Source(
    EC2_SNAPSHOT.description + "; Trainium2 HBM from the AWS Neuron docs (Trainium2 architecture)",
    date(2026, 7, 23),
)
GB200_SECONDARY = Source(
    "botocore 1.44.5 InstanceType and HyperPod enums; EKS AMI table (AL2023 ARM NVIDIA); "
    "GPU count derived from u-p6e-gb200x72 = 18 instances",
    date(2026, 7, 23),
)

NVIDIA_AMIS = ("AL2023_x86_64_NVIDIA", "BOTTLEROCKET_x86_64_NVIDIA")
NEURON_AMIS = ("AL2023_x86_64_NEURON", "BOTTLEROCKET_x86_64")
STANDARD_AMIS = ("AL2023_x86_64_STANDARD", "BOTTLEROCKET_x86_64")

TRAINIUM2_HBM_MIB = 96 * 1024


def _efa_on_all_cards(interfaces: int) -> Efa:
    return Efa(supported=True, max_interfaces=interfaces, cards=tuple(range(interfaces)))


def _gpu(name: str, *, vcpus: int, memory_gib: int, gpu: str, count: int, gpu_memory_mib: int, cards: int,
         enis_on_card0: int, ipv4_per_eni: int, max_pods: int, efa: int, capacity_block: bool,
         hyperpod_training_plan: bool, efa_cards: Optional[tuple[int, ...]] = None,
         notes: tuple[str, ...] = ()) -> InstanceType:
    return InstanceType(
        name, arch="x86_64", vcpus=vcpus, memory_gib=memory_gib,
        accelerator=Accelerator(GPU, gpu, count=count, memory_mib=gpu_memory_mib),
        network=Network(cards=cards, enis_on_card0=enis_on_card0, ipv4_per_eni=ipv4_per_eni, max_pods=max_pods),
        efa=(Efa(True, efa, efa_cards) if efa_cards else _efa_on_all_cards(efa)) if efa else NO_EFA,
        ami_types=NVIDIA_AMIS, capacity_block=capacity_block, hyperpod=True,
        hyperpod_training_plan=hyperpod_training_plan, source=EC2_SNAPSHOT,
        prices=ON_DEMAND.get(name, ()), notes=notes,
    )


def _neuron(name: str, *, vcpus: int, memory_gib: int, chip: str, count: int, chip_memory_mib: int,
            neuron_cores: int, enis_on_card0: int, ipv4_per_eni: int, max_pods: int, efa: int,
            capacity_block: bool, hyperpod: bool, hyperpod_training_plan: bool,
            source: Source = EC2_SNAPSHOT) -> InstanceType:
    return InstanceType(
        name, arch="x86_64", vcpus=vcpus, memory_gib=memory_gib,
        accelerator=Accelerator(NEURON, chip, count=count, memory_mib=chip_memory_mib, neuron_cores=neuron_cores),
        network=Network(cards=max(efa, 1), enis_on_card0=enis_on_card0, ipv4_per_eni=ipv4_per_eni, max_pods=max_pods),
        efa=_efa_on_all_cards(efa) if efa else NO_EFA,
        ami_types=NEURON_AMIS, capacity_block=capacity_block, hyperpod=hyperpod,
        hyperpod_training_plan=hyperpod_training_plan, source=source, prices=ON_DEMAND.get(name, ()),
    )


def _cpu(name: str, *, vcpus: int, memory_gib: int, enis: int, ipv4_per_eni: int, max_pods: int) -> InstanceType:
    """System, controller and CPU worker types: no accelerator, no EFA, one network card."""
    return InstanceType(
        name, arch="x86_64", vcpus=vcpus, memory_gib=memory_gib, accelerator=None,
        network=Network(cards=1, enis_on_card0=enis, ipv4_per_eni=ipv4_per_eni, max_pods=max_pods),
        efa=NO_EFA, ami_types=STANDARD_AMIS, capacity_block=False, hyperpod=True,
        hyperpod_training_plan=False, source=EC2_SNAPSHOT, prices=ON_DEMAND.get(name, ()),
    )


_P_FAMILY: dict[str, Any] = dict(ipv4_per_eni=50, capacity_block=True, hyperpod_training_plan=True)
_G_FAMILY: dict[str, Any] = dict(capacity_block=False, hyperpod_training_plan=False)

INSTANCE_TYPES: tuple[InstanceType, ...] = (
    # NVIDIA A100 / H100 / H200 / B200 / B300
    _gpu("p4d.24xlarge", vcpus=96, memory_gib=1152, gpu="A100", count=8, gpu_memory_mib=40960,
         cards=4, enis_on_card0=15, max_pods=737, efa=4, **_P_FAMILY),
    _gpu("p4de.24xlarge", vcpus=96, memory_gib=1152, gpu="A100", count=8, gpu_memory_mib=81920,
         cards=4, enis_on_card0=15, max_pods=737, efa=4, **_P_FAMILY),
    _gpu("p5.4xlarge", vcpus=16, memory_gib=256, gpu="H100", count=1, gpu_memory_mib=81920,
         cards=1, enis_on_card0=4, ipv4_per_eni=30, max_pods=118, efa=1,
         capacity_block=True, hyperpod_training_plan=True),
    _gpu("p5.48xlarge", vcpus=192, memory_gib=2048, gpu="H100", count=8, gpu_memory_mib=81920,
         cards=32, enis_on_card0=2, max_pods=100, efa=32, **_P_FAMILY),
    _gpu("p5e.48xlarge", vcpus=192, memory_gib=2048, gpu="H200", count=8, gpu_memory_mib=144384,
         cards=32, enis_on_card0=2, max_pods=100, efa=32, **_P_FAMILY),
    _gpu("p5en.48xlarge", vcpus=192, memory_gib=2048, gpu="H200", count=8, gpu_memory_mib=144384,
         cards=16, enis_on_card0=4, max_pods=198, efa=16, **_P_FAMILY),
    _gpu("p6-b200.48xlarge", vcpus=192, memory_gib=2048, gpu="B200", count=8, gpu_memory_mib=183359,
         cards=8, enis_on_card0=4, max_pods=198, efa=8, **_P_FAMILY),
    _gpu("p6-b300.48xlarge", vcpus=192, memory_gib=4096, gpu="B300", count=8, gpu_memory_mib=275040,
         cards=17, enis_on_card0=4, max_pods=198, efa=16, efa_cards=tuple(range(1, 17)), **_P_FAMILY,
         notes=("Card 0 carries only a plain interface; EFA sits on cards 1-16.",)),
    InstanceType(
        "p6e-gb200.36xlarge", arch="arm64", vcpus=None, memory_gib=None,
        accelerator=Accelerator(GPU, "GB200", count=4, memory_mib=None),
        network=Network(cards=None, enis_on_card0=None, ipv4_per_eni=None, max_pods=None),
        efa=Efa(supported=True, max_interfaces=None, cards=None),
        ami_types=("AL2023_ARM_64_NVIDIA",), capacity_block=None, hyperpod=True,
        hyperpod_training_plan=True, source=GB200_SECONDARY,
        notes=("p6e-gb200 is missing from the EC2 snapshot and nodeadm data; its EFA interfaces, "
               "network cards, ENIs and IPs are unconfirmed. Check `aws ec2 describe-instance-types "
               "--instance-types p6e-gb200.36xlarge` and add the facts to the catalog.",),
    ),
    # NVIDIA A10G / L4 / L40S
    _gpu("g5.xlarge", vcpus=4, memory_gib=16, gpu="A10G", count=1, gpu_memory_mib=22888,
         cards=1, enis_on_card0=4, ipv4_per_eni=15, max_pods=58, efa=0, **_G_FAMILY),
    _gpu("g5.2xlarge", vcpus=8, memory_gib=32, gpu="A10G", count=1, gpu_memory_mib=22888,
         cards=1, enis_on_card0=4, ipv4_per_eni=15, max_pods=58, efa=0, **_G_FAMILY),
    _gpu("g5.4xlarge", vcpus=16, memory_gib=64, gpu="A10G", count=1, gpu_memory_mib=22888,
         cards=1, enis_on_card0=8, ipv4_per_eni=30, max_pods=234, efa=0, **_G_FAMILY),
    _gpu("g5.8xlarge", vcpus=32, memory_gib=128, gpu="A10G", count=1, gpu_memory_mib=22888,
         cards=1, enis_on_card0=8, ipv4_per_eni=30, max_pods=234, efa=1, **_G_FAMILY),
    _gpu("g5.12xlarge", vcpus=48, memory_gib=192, gpu="A10G", count=4, gpu_memory_mib=22888,
         cards=1, enis_on_card0=15, ipv4_per_eni=50, max_pods=737, efa=1, **_G_FAMILY),
    _gpu("g5.16xlarge", vcpus=64, memory_gib=256, gpu="A10G", count=1, gpu_memory_mib=22888,
         cards=1, enis_on_card0=8, ipv4_per_eni=30, max_pods=234, efa=1, **_G_FAMILY),
    _gpu("g5.24xlarge", vcpus=96, memory_gib=384, gpu="A10G", count=4, gpu_memory_mib=22888,
         cards=1, enis_on_card0=15, ipv4_per_eni=50, max_pods=737, efa=1, **_G_FAMILY),
    _gpu("g5.48xlarge", vcpus=192, memory_gib=768, gpu="A10G", count=8, gpu_memory_mib=22888,
         cards=1, enis_on_card0=7, ipv4_per_eni=50, max_pods=345, efa=1, **_G_FAMILY),
    _gpu("g6.48xlarge", vcpus=192, memory_gib=768, gpu="L4", count=8, gpu_memory_mib=22888,
         cards=1, enis_on_card0=15, ipv4_per_eni=50, max_pods=737, efa=1, **_G_FAMILY),
    _gpu("g6e.48xlarge", vcpus=192, memory_gib=1536, gpu="L40S", count=8, gpu_memory_mib=45776,
         cards=4, enis_on_card0=10, ipv4_per_eni=50, max_pods=492, efa=4, **_G_FAMILY),
    # AWS Trainium / Trainium2 / Inferentia2
    _neuron("trn1.2xlarge", vcpus=8, memory_gib=32, chip="Trainium", count=1, chip_memory_mib=32768,
            neuron_cores=2, enis_on_card0=4, ipv4_per_eni=15, max_pods=58, efa=0,
            capacity_block=False, hyperpod=False, hyperpod_training_plan=False),
    _neuron("trn1.32xlarge", vcpus=128, memory_gib=512, chip="Trainium", count=16, chip_memory_mib=32768,
            neuron_cores=32, enis_on_card0=5, ipv4_per_eni=50, max_pods=247, efa=8,
            capacity_block=True, hyperpod=True, hyperpod_training_plan=True),
    _neuron("trn1n.32xlarge", vcpus=128, memory_gib=512, chip="Trainium", count=16, chip_memory_mib=32768,
            neuron_cores=32, enis_on_card0=5, ipv4_per_eni=50, max_pods=247, efa=16,
            capacity_block=False, hyperpod=True, hyperpod_training_plan=False),
    _neuron("trn2.3xlarge", vcpus=12, memory_gib=128, chip="Trainium2", count=1, chip_memory_mib=TRAINIUM2_HBM_MIB,
            neuron_cores=8, enis_on_card0=2, ipv4_per_eni=15, max_pods=30, efa=1,
            capacity_block=True, hyperpod=True, hyperpod_training_plan=False, source=NEURON_DOCS),
    _neuron("trn2.48xlarge", vcpus=192, memory_gib=2048, chip="Trainium2", count=16, chip_memory_mib=TRAINIUM2_HBM_MIB,
            neuron_cores=128, enis_on_card0=2, ipv4_per_eni=50, max_pods=100, efa=16,
            capacity_block=True, hyperpod=True, hyperpod_training_plan=True, source=NEURON_DOCS),
    _neuron("inf2.48xlarge", vcpus=192, memory_gib=768, chip="Inferentia2", count=12, chip_memory_mib=32768,
            neuron_cores=24, enis_on_card0=15, ipv4_per_eni=50, max_pods=737, efa=0,
            capacity_block=False, hyperpod=False, hyperpod_training_plan=False),
    # System, controller and login nodes
    _cpu("c5.large", vcpus=2, memory_gib=4, enis=3, ipv4_per_eni=10, max_pods=29),
    _cpu("c5.xlarge", vcpus=4, memory_gib=8, enis=4, ipv4_per_eni=15, max_pods=58),
    _cpu("c5.2xlarge", vcpus=8, memory_gib=16, enis=4, ipv4_per_eni=15, max_pods=58),
    _cpu("c5.4xlarge", vcpus=16, memory_gib=32, enis=8, ipv4_per_eni=30, max_pods=234),
    _cpu("c5.9xlarge", vcpus=36, memory_gib=72, enis=8, ipv4_per_eni=30, max_pods=234),
    _cpu("c5.12xlarge", vcpus=48, memory_gib=96, enis=8, ipv4_per_eni=30, max_pods=234),
    _cpu("c5.18xlarge", vcpus=72, memory_gib=144, enis=15, ipv4_per_eni=50, max_pods=737),
    _cpu("c5.24xlarge", vcpus=96, memory_gib=192, enis=15, ipv4_per_eni=50, max_pods=737),
    _cpu("m5.large", vcpus=2, memory_gib=8, enis=3, ipv4_per_eni=10, max_pods=29),
    _cpu("m5.xlarge", vcpus=4, memory_gib=16, enis=4, ipv4_per_eni=15, max_pods=58),
    _cpu("m5.2xlarge", vcpus=8, memory_gib=32, enis=4, ipv4_per_eni=15, max_pods=58),
    _cpu("m5.4xlarge", vcpus=16, memory_gib=64, enis=8, ipv4_per_eni=30, max_pods=234),
    _cpu("m5.8xlarge", vcpus=32, memory_gib=128, enis=8, ipv4_per_eni=30, max_pods=234),
    _cpu("m5.12xlarge", vcpus=48, memory_gib=192, enis=8, ipv4_per_eni=30, max_pods=234),
    _cpu("m5.16xlarge", vcpus=64, memory_gib=256, enis=15, ipv4_per_eni=50, max_pods=737),
    _cpu("m5.24xlarge", vcpus=96, memory_gib=384, enis=15, ipv4_per_eni=50, max_pods=737),
)
