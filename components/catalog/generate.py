"""Regenerate ``ec2_instance_types.json`` and ``aws_regions.json`` from the AWS data that moto, botocore
and cfn-lint ship.

Run from a checkout with the dev extra installed, whenever moto or botocore move::

    .venv/bin/python -m trainstack.catalog.generate

What comes from where:

* moto's ``ec2/resources/instance_types.json.gz`` is EC2 ``DescribeInstanceTypes``
  output: vCPUs, memory, accelerators, network cards and bandwidth, ENIs, IPv4 per ENI, EFA
  support and the cards that carry it, the ``capacity-block`` usage class.
* moto's ``ec2/resources/instance_type_offerings/region/*.json.gz`` is
  ``DescribeInstanceTypeOfferings`` per region: where each type is offered; its
  ``availability-zone/*.json.gz`` the same by zone name: the zones that offer it.
* the regions and their zones: :mod:`.generate_regions` (``aws_regions.json``).
* botocore's SageMaker model: ``ClusterInstanceType`` (HyperPod accepts ``ml.<type>``)
  and ``ReservedCapacityInstanceType`` (HyperPod training plans); cfn-lint's SageMaker cluster
  instance types per region: the regions where HyperPod offers ``ml.<type>``.

The output holds the source values as AWS reports them, except the accelerator of a type
the EC2 data gives none (``ACCELERATOR_OVERRIDES``: trn2u.48xlarge, from the Neuron docs); where the
catalog departs from them (Trainium2 memory), :mod:`.instances` does so and says why. Runtime code
never imports this module's data sources: moto is a dev dependency, and the
generated JSON is package data.
"""

from __future__ import annotations

import gzip
import json
import re
from datetime import date
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from .generate_regions import build_regions, hyperpod_offerings
from .model import HYPERPOD_PREFIX

DATA_FILE = Path(__file__).with_name("ec2_instance_types.json")
REGIONS_FILE = Path(__file__).with_name("aws_regions.json")
FORMAT_VERSION = 2

# General-purpose and compute families offered for system, controller and login
# nodes: current x86_64 Intel and AMD generations, so the STANDARD x86_64 AMIs fit.
# Graviton (c7g, m7g, ...) needs the ARM AMIs and is left out until system nodes
# choose an AMI by architecture; burstable and "-flex" types are left out because
# cluster services need steady CPU.
SYSTEM_FAMILIES = ("c5", "c6i", "c6a", "c7i", "c7a", "m5", "m6i", "m6a", "m7i", "m7a")

# Accelerated types in the EC2 data that the catalog leaves out, with the reason.
# tests/catalog/test_catalog_against_aws.py fails for any accelerated type in the
# data that is neither in the catalog nor here.
EXCLUDED_ACCELERATED: dict[str, str] = {
    **{name: "Qualcomm AI 100 inference accelerators: no EKS-optimized AMI and no device plugin "
             "trainstack deploys, so a node group of them could not run a job."
       for name in ("dl2q.24xlarge",)},
    **{name: "a fraction of one NVIDIA L4 (EC2 reports GPU Count 0, GpuPartitionSize < 1); the catalog "
             "counts whole devices and trainstack's jobs request whole nvidia.com/gpu."
       for name in ("g6f.large", "g6f.xlarge", "g6f.2xlarge", "g6f.4xlarge", "gr6f.4xlarge")},
    **{name: "NVIDIA RTX PRO 4500: not among the families the EKS-optimized NVIDIA AMIs list "
             "(EKS user guide AMI table @f600414, latest/ug/ml/ml-eks-optimized-ami.adoc), so the "
             "catalog has no AMI type to give it; "
             "add it with its AMI types once EKS lists it."
       for name in ("g7.2xlarge", "g7.4xlarge", "g7.8xlarge", "g7.12xlarge", "g7.24xlarge", "g7.48xlarge")},
}


# Accelerated types whose EC2 data lacks the accelerator info the generator selects by, with the accelerator
# from a primary source. trn2u.48xlarge (the Trn2 UltraServer's instance) is in moto 5.2.5's snapshot with its
# network but no ``NeuronInfo``; EC2's accelerated-computing specifications list "Trn2u ... ✗ No" accelerators
# for it too (https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html, read 2026-11-26). The Neuron docs
# say "A Trn2 UltraServer comprises four trn2u.48xlarge instances ... a total of 64 Trainium2 chips", so 16 per
# instance (https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/arch/neuron-hardware/trn2-arch.html,
# read 2026-11-26). Cores and memory per chip are trn2.48xlarge's own EC2 ``NeuronInfo`` (16 Trainium2, 128
# NeuronCores, 524288 MiB per chip), the same chip; the memory keeps the generated file's one convention, and the
# catalog replaces it with the Neuron docs' HBM for every Trainium2 (:mod:`.instances`).
ACCELERATOR_OVERRIDES: dict[str, dict[str, Any]] = {
    "trn2u.48xlarge": {"kind": "neuron", "name": "Trainium2", "count": 16, "memory_mib": 524288,
                       "neuron_cores": 128},
}


def _moto_resource(*parts: str) -> Any:
    path = resources.files("moto.ec2").joinpath("resources", *parts)
    with path.open("rb") as raw, gzip.open(raw, "rt") as text:
        return json.load(text)


def _offerings(location_type: str) -> dict[str, list[str]]:
    """Instance type -> the regions (``region``) or zones (``availability-zone``) that offer it, from moto's
    ``DescribeInstanceTypeOfferings`` snapshot of that location type."""
    folder = resources.files("moto.ec2").joinpath("resources", "instance_type_offerings", location_type)
    offered: dict[str, set[str]] = {}
    for entry in folder.iterdir():
        if not entry.name.endswith(".json.gz"):
            continue
        for offering in _moto_resource("instance_type_offerings", location_type, entry.name):
            offered.setdefault(offering["InstanceType"], set()).add(offering["Location"])
    return {name: sorted(locations) for name, locations in offered.items()}


def _sagemaker_enum(shape: str) -> set[str]:
    import botocore.session

    return set(botocore.session.get_session().get_service_model("sagemaker").shape_for(shape).enum)


def is_accelerated(description: dict[str, Any]) -> bool:
    """GPUs, Neuron devices (Trainium, Inferentia) or other inference accelerators."""
    return any(key in description for key in ("GpuInfo", "NeuronInfo", "InferenceAcceleratorInfo"))


def _accelerator(description: dict[str, Any]) -> dict[str, Any] | None:
    override = ACCELERATOR_OVERRIDES.get(description["InstanceType"])
    if override is not None:
        if is_accelerated(description):
            raise ValueError(f"{description['InstanceType']}: the EC2 data now has its accelerator; "
                             "drop its entry in ACCELERATOR_OVERRIDES.")
        return dict(override)
    if "GpuInfo" in description:
        (gpu,) = description["GpuInfo"]["Gpus"]
        return {"kind": "nvidia-gpu", "name": gpu["Name"], "count": gpu["Count"],
                "memory_mib": gpu["MemoryInfo"]["SizeInMiB"], "neuron_cores": None}
    if "NeuronInfo" in description:
        (device,) = description["NeuronInfo"]["NeuronDevices"]
        return {"kind": "neuron", "name": device["Name"], "count": device["Count"],
                "memory_mib": device["MemoryInfo"]["SizeInMiB"],
                "neuron_cores": device["Count"] * device["CoreInfo"]["Count"]}
    return None


def network_gbps(network_performance: str) -> float | None:
    """EC2's ``NetworkPerformance`` in Gbit/s: '3200 Gigabit' -> 3200, '4x 100 Gigabit' -> 400.

    ``None`` for burstable figures ('Up to 25 Gigabit') and words ('Moderate'): neither is
    a bandwidth an instance holds, so nothing downstream may judge a measurement by it.
    """
    match = re.fullmatch(r"(?:(\d+)x )?(\d+(?:\.\d+)?) Gigabit", network_performance)
    if match is None:
        return None
    return int(match.group(1) or 1) * float(match.group(2))


def _arch(description: dict[str, Any]) -> str:
    architectures = description["ProcessorInfo"]["SupportedArchitectures"]
    return "x86_64" if "x86_64" in architectures else architectures[0]


def _whole_gib(name: str, memory_mib: int) -> int:
    if memory_mib % 1024:
        raise ValueError(f"{name}: {memory_mib} MiB is not whole GiB; decide how the catalog rounds it.")
    return memory_mib // 1024


def _facts(description: dict[str, Any], regions: list[str], zones: list[str], hyperpod: set[str],
           training_plan: set[str], hyperpod_regions: list[str]) -> dict[str, Any]:
    network = description["NetworkInfo"]
    cards = sorted(network["NetworkCards"], key=lambda card: card["NetworkCardIndex"])
    default_card = next(c for c in cards if c["NetworkCardIndex"] == network.get("DefaultNetworkCardIndex", 0))
    # One EFA per card, on the cards whose interface types include EFA: that is how
    # p6-b300 (17 cards, EFA on cards 1-16) is told apart from p6-b200 (EFA on all 8).
    efa_cards = [c["NetworkCardIndex"] for c in cards
                 if {"efa", "efa-only"} & set(c.get("InterfaceTypes", ()))] if network.get("EfaSupported") else []
    memory_mib = description["MemoryInfo"]["SizeInMiB"]
    name = description["InstanceType"]
    return {
        "arch": _arch(description),
        "vcpus": description["VCpuInfo"]["DefaultVCpus"],
        "memory_gib": _whole_gib(name, memory_mib),
        "accelerator": _accelerator(description),
        "network_cards": network["MaximumNetworkCards"],
        "enis_on_default_card": default_card["MaximumNetworkInterfaces"],
        "ipv4_per_eni": network["Ipv4AddressesPerInterface"],
        "network_gbps": network_gbps(network["NetworkPerformance"]),
        "efa_supported": bool(network.get("EfaSupported")),
        "max_efa_interfaces": network.get("EfaInfo", {}).get("MaximumEfaInterfaces", 0),
        "efa_cards": efa_cards,
        "capacity_block": "capacity-block" in description["SupportedUsageClasses"],
        "hyperpod": HYPERPOD_PREFIX + name in hyperpod,
        "hyperpod_training_plan": HYPERPOD_PREFIX + name in training_plan,
        "hyperpod_regions": hyperpod_regions,
        "regions": regions,
        "zones": zones,
        "nvme_instance_store_gb": _nvme_instance_store_gb(description),
    }


def _nvme_instance_store_gb(description: dict[str, Any]) -> int:
    """Local NVMe SSD the instance brings (``InstanceStorageInfo.TotalSizeInGB``), 0 for none."""
    storage = description.get("InstanceStorageInfo") or {}
    ssd = all(disk.get("Type") == "ssd" for disk in storage.get("Disks", ()))
    nvme = storage.get("NvmeSupport") in ("required", "supported")
    return int(storage.get("TotalSizeInGB", 0)) if ssd and nvme else 0


def selected(descriptions: dict[str, dict[str, Any]]) -> list[str]:
    """The types the catalog carries: every accelerated type not excluded, and the system families."""
    return sorted(name for name, description in descriptions.items()
                  if (is_accelerated(description) and name not in EXCLUDED_ACCELERATED)
                  or name in ACCELERATOR_OVERRIDES or name.split(".")[0] in SYSTEM_FAMILIES)


def build(generated_on: date) -> dict[str, Any]:
    """The document :data:`DATA_FILE` holds, from the installed moto and botocore."""
    descriptions: dict[str, dict[str, Any]] = _moto_resource("instance_types.json.gz")
    regions, zones = _offerings("region"), _offerings("availability-zone")
    hyperpod_regions: dict[str, list[str]] = {}
    for region, ml_types in hyperpod_offerings().items():
        for ml_type in ml_types:
            hyperpod_regions.setdefault(ml_type.removeprefix(HYPERPOD_PREFIX), []).append(region)
    hyperpod = _sagemaker_enum("ClusterInstanceType")
    training_plan = _sagemaker_enum("ReservedCapacityInstanceType")
    return {
        "format": FORMAT_VERSION,
        "generated_by": "python -m trainstack.catalog.generate",
        "generated_on": generated_on.isoformat(),
        "sources": {
            "moto": metadata.version("moto"),
            "botocore": metadata.version("botocore"),
            "ec2": "moto ec2/resources/instance_types.json.gz (EC2 DescribeInstanceTypes) and "
                   "instance_type_offerings/region and /availability-zone (DescribeInstanceTypeOfferings)",
            "sagemaker": "botocore sagemaker ClusterInstanceType and ReservedCapacityInstanceType enums; "
                         "cfn-lint aws_sagemaker_cluster/instancetype_enum.json (HyperPod types per region)",
            "cfn-lint": metadata.version("cfn-lint"),
        },
        "instance_types": {name: _facts(descriptions[name], regions.get(name, []), zones.get(name, []), hyperpod,
                                  training_plan, sorted(hyperpod_regions.get(name, [])))
                           for name in selected(descriptions)},
    }


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=1, sort_keys=True) + "\n"


def main() -> None:
    today = date.today()
    DATA_FILE.write_text(render(build(today)))
    REGIONS_FILE.write_text(render(build_regions(today.isoformat())))
    print(f"wrote {DATA_FILE} and {REGIONS_FILE}")


if __name__ == "__main__":
    main()
