"""Instance types a training cluster uses, with their sources.

Most facts are generated: ``ec2_instance_types.json`` is written by
:mod:`.generate` from the EC2 ``DescribeInstanceTypes`` and
``DescribeInstanceTypeOfferings`` data moto ships and the SageMaker enums botocore
ships (its ``sources`` and ``generated_on`` say which versions and when). This
module reads that package data (moto is not needed at run time) and adds, by hand
and with sources, only what the data lacks: EKS AMI types, prices, the max-pods
rule, and the p6e-gb200 entry the data does not have (:mod:`.p6e_gb200`).

Where sources conflict, the choice is made here and said why:

* EFA interface counts, network cards, ENIs and IPs: EC2 ``DescribeInstanceTypes``
  over eksctl/ParallelCluster, which size EFA by network cards and so get
  p6-b300 (17 cards, 16 EFA, none on card 0) wrong. The cards that carry EFA are
  the cards whose ``InterfaceTypes`` include EFA.
* Max pods: amazon-eks-ami nodeadm's default, ``enis_on_card0 * (ipv4_per_eni - 1) + 2``
  counting only the default network card; it agrees with nodeadm @81fec2e and the
  retired AL2 ``eni-max-pods.txt`` for every type the research checked (41 types).
* GPU memory: the usable MiB the EC2 API reports (one convention for all GPUs).
* Trainium2 memory: Neuron docs (96 GiB HBM per chip), not the EC2 API's
  524288 MiB, which is 5x the physical HBM. The generated file keeps the API
  value; the override is applied below.
* HyperPod: ``hyperpod`` says the SageMaker API's ``ClusterInstanceType`` enum
  (botocore) accepts ``ml.<name>``: that enum is what every region's API validates
  against. Which ``ml.`` types a given region offers is narrower: cfn-lint's per-region
  list (from the AWS pricing API), generated into each type's ``hyperpod_regions`` and
  checked where HyperPod inputs are validated (``config/offerings.py``).
* p6e-gb200: absent from the EC2 snapshot and nodeadm; its facts come from AWS's
  published pages instead, and where they leave a fact open (the ENIs on card 0)
  :mod:`.p6e_gb200` says what it takes and why.
* trn2u.48xlarge: in the EC2 snapshot without ``NeuronInfo``; the generator gives it
  its accelerator from the Neuron docs (``generate.ACCELERATOR_OVERRIDES``) and it
  takes the trn2 family's AMI types (below).
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from .model import NO_EFA, Accelerator, AcceleratorKind, Efa, InstanceType, Network, Source, max_pods_nodeadm
from .p6e_gb200 import P6E_GB200
from .prices import ON_DEMAND

GPU = AcceleratorKind.GPU
NEURON = AcceleratorKind.NEURON

GENERATED: dict[str, Any] = json.loads(Path(__file__).with_name("ec2_instance_types.json").read_text())
"""The generated EC2 facts (see :mod:`.generate`)."""

_SOURCES = GENERATED["sources"]
EC2_SNAPSHOT = Source(
    f"EC2 DescribeInstanceTypes and DescribeInstanceTypeOfferings (moto {_SOURCES['moto']} snapshot); "
    f"HyperPod and training-plan enums from botocore {_SOURCES['botocore']}; max pods by the amazon-eks-ami "
    "nodeadm rule; AMI types from the EKS user guide; GPUDirect Storage clients from the FSx for Lustre "
    "User Guide",
    date.fromisoformat(GENERATED["generated_on"]),
)
NEURON_DOCS = Source(
    EC2_SNAPSHOT.description + "; Trainium2 HBM from the AWS Neuron docs (Trainium2 architecture)",
    EC2_SNAPSHOT.as_of,
)

NVIDIA_AMIS = ("AL2023_x86_64_NVIDIA", "BOTTLEROCKET_x86_64_NVIDIA")
NVIDIA_ARM_AMIS = ("AL2023_ARM_64_NVIDIA", "BOTTLEROCKET_ARM_64_NVIDIA")
NEURON_AMIS = ("AL2023_x86_64_NEURON", "BOTTLEROCKET_x86_64")
STANDARD_AMIS = ("AL2023_x86_64_STANDARD", "BOTTLEROCKET_x86_64")

# EKS-optimized AMI types by family: the EKS user guide's AMI table (eks-optimized
# AMIs, accelerated; checked at @f600414). The EC2 data has no such field.
AMI_TYPES_BY_FAMILY: dict[str, tuple[str, ...]] = {
    **{family: NVIDIA_AMIS for family in (
        "p3dn", "p4d", "p4de", "p5", "p5e", "p5en", "p6-b200", "p6-b300", "g4dn", "g5", "g6", "g6e", "g7e", "gr6")},
    "g5g": NVIDIA_ARM_AMIS,
    **{family: NEURON_AMIS for family in ("inf1", "inf2", "trn1", "trn1n", "trn2")},
    # trn2u: the EKS AMI table (@07d09a00, the same page) names the trn2 family and not trn2u. trn2u.48xlarge
    # carries the same 16 Trainium2 as trn2.48xlarge (EC2 lists it in the Trn2 family's specifications, ac.html,
    # read 2026-11-26), and the Neuron AMIs are the ones with the Neuron driver, so it takes trn2's AMI types. No
    # AWS page read here names trn2u with an AMI type: this is the catalog's inference, said as one.
    "trn2u": NEURON_AMIS,
}

TRAINIUM2_HBM_MIB = 96 * 1024

# NVIDIA GPUDirect Storage with FSx for Lustre: the instance families the FSx for Lustre
# User Guide lists as GDS clients of an EFA-enabled file system ("Working with
# EFA-enabled file systems", docs.aws.amazon.com/fsx/latest/LustreGuide/efa-file-systems.html,
# read 2026-11 through a quoting study; it also requires the NVIDIA GDS driver 2.24.2 or
# later). The EC2 data has no such field; a family not listed is False, not guessed.
GPUDIRECT_STORAGE_FAMILIES = frozenset({"p5", "p5e", "p5en", "p6-b200"})

NOTES: dict[str, tuple[str, ...]] = {
    "p6-b300.48xlarge": ("Card 0 carries only a plain interface; EFA sits on cards 1-16.",),
}


def _accelerator(facts: dict[str, Any] | None) -> Accelerator | None:
    if facts is None:
        return None
    memory_mib = TRAINIUM2_HBM_MIB if facts["name"] == "Trainium2" else facts["memory_mib"]
    return Accelerator(AcceleratorKind(facts["kind"]), facts["name"], count=facts["count"],
                       memory_mib=memory_mib, neuron_cores=facts["neuron_cores"])


def _ami_types(name: str, accelerator: Accelerator | None) -> tuple[str, ...]:
    if accelerator is None:
        return STANDARD_AMIS
    family = name.split(".")[0]
    if family not in AMI_TYPES_BY_FAMILY:
        raise ValueError(f"{name}: no EKS AMI types recorded for family {family!r}; add it to AMI_TYPES_BY_FAMILY "
                         "from the EKS user guide, or exclude the type in generate.py with the reason.")
    return AMI_TYPES_BY_FAMILY[family]


def _from_generated(name: str, facts: dict[str, Any]) -> InstanceType:
    accelerator = _accelerator(facts["accelerator"])
    efa = (Efa(True, facts["max_efa_interfaces"], tuple(facts["efa_cards"]))
           if facts["efa_supported"] else NO_EFA)
    return InstanceType(
        name, arch=facts["arch"], vcpus=facts["vcpus"], memory_gib=facts["memory_gib"], accelerator=accelerator,
        network=Network(cards=facts["network_cards"], enis_on_card0=facts["enis_on_default_card"],
                        ipv4_per_eni=facts["ipv4_per_eni"],
                        max_pods=max_pods_nodeadm(facts["enis_on_default_card"], facts["ipv4_per_eni"]),
                        bandwidth_gbps=facts["network_gbps"]),
        efa=efa, ami_types=_ami_types(name, accelerator), capacity_block=facts["capacity_block"],
        hyperpod=facts["hyperpod"], hyperpod_training_plan=facts["hyperpod_training_plan"],
        source=NEURON_DOCS if accelerator and accelerator.name == "Trainium2" else EC2_SNAPSHOT,
        prices=ON_DEMAND.get(name, ()), notes=NOTES.get(name, ()), regions=tuple(facts["regions"]),
        zones=tuple(facts["zones"]), hyperpod_regions=tuple(facts["hyperpod_regions"]),
        nvme_instance_store_gb=facts["nvme_instance_store_gb"],
        gpudirect_storage=name.split(".")[0] in GPUDIRECT_STORAGE_FAMILIES,
    )


_KIND_ORDER = {GPU: 0, NEURON: 1}


def _listing_order(entry: InstanceType) -> tuple[int, str, int, str]:
    """Accelerated types first (GPU, then Neuron), then system types; by family, then size."""
    kind = _KIND_ORDER[entry.accelerator.kind] if entry.accelerator else len(_KIND_ORDER)
    return (kind, entry.family, entry.vcpus or 0, entry.name)


_GENERATED_TYPES = [_from_generated(name, facts) for name, facts in GENERATED["instance_types"].items()]
INSTANCE_TYPES: tuple[InstanceType, ...] = tuple(sorted(
    _GENERATED_TYPES + ([P6E_GB200] if P6E_GB200.name not in GENERATED["instance_types"] else []),
    key=_listing_order,
))
