"""How fast a GPU instance's accelerators can exchange data: with each other inside
the instance, and with other instances over EFA.

These are the peaks a bandwidth test is judged against (``trainstack launch
all-reduce``). Both are per direction, in Gbit/s, the unit NCCL's bus bandwidth is
reported in once bytes are counted as bits (nccl-tests ``doc/PERFORMANCE.md``: bus
bandwidth is a unidirectional figure meant to be compared with the hardware's peak).

* Network: the EC2 API's ``NetworkInfo.NetworkPerformance`` for the instance, as the
  generated catalog carries it (:attr:`Network.bandwidth_gbps`, from moto's snapshot of
  ``DescribeInstanceTypes``). EFA and IP traffic share it. Where it disagrees with the
  sum of the network cards' peaks (p6-b200: 3200 against 8 x 200; g6e.48xlarge: 400
  against 4 x 400), the headline figure governs: it is what AWS sells the type as, and
  the card peaks of those types are themselves unreconciled (moto 5.2.5's snapshot lists
  p6-b200's cards as 8 x 200 Gbps beside its "3200 Gigabit"). Where AWS's EFA page caps EFA below the
  headline, that cap governs (``EFA_CAPS``: p6e-gb200's 3200 Gigabit holds 1,600 Gbps of EFA at most; the
  p6-b200 and p6-b300 sections give 3,200 and 6,400 Gbps of EFA, their headlines, so no cap). Only EFA-capable
  types get a figure: a network
  test between instances without EFA runs over TCP and has no floor trainstack could
  defend.
* GPU to GPU inside the instance: NVIDIA's published link bandwidth for the GPU model,
  which AWS does not publish and the EC2 API does not carry. These are vendor peaks,
  so ESTIMATES of what an instance's GPUs offer, not measurements on AWS. NVIDIA quotes
  NVLink as a bidirectional total per GPU; the figure here is half of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from . import find

NETWORK_SOURCE = "EC2 DescribeInstanceTypes NetworkInfo.NetworkPerformance (trainstack's generated catalog)"


@dataclass(frozen=True)
class EfaCap:
    """EFA bandwidth AWS states for a type below its network figure."""

    gbps: float
    source: str


EFA_CAPS: dict[str, EfaCap] = {
    # "Each GPU supports up to 400 Gbps of EFA bandwidth" and AWS's layouts reach "a total of 1,600 Gbps EFA
    # bandwidth" on the 4-GPU instance, whose network figure is 3200 Gigabit (ENA and EFA together).
    "p6e-gb200.36xlarge": EfaCap(1600.0, "EC2 User Guide, EFA configuration for P6e-GB200 instances "
                                         "(efa-acc-inst-types.html#efa-for-p6e, read 2026-11-26)"),
}


@dataclass(frozen=True)
class PeerLink:
    """The link between two GPUs of one instance."""

    link: str
    gbps: float
    """Per direction, per GPU, in Gbit/s (vendor peak: an estimate for AWS instances)."""
    source: str


_NVLINK4 = PeerLink("NVLink 4 (NVSwitch)", 900 / 2 * 8,
                    "NVIDIA H100/H200 SXM datasheets: NVLink 900 GB/s bidirectional per GPU")
_NVLINK5 = PeerLink("NVLink 5 (NVSwitch)", 1800 / 2 * 8,
                    "NVIDIA HGX B200/B300 and GB200 NVL72 datasheets: NVLink 1.8 TB/s bidirectional per GPU")
# GPUs without NVLink exchange data over PCIe 4.0 x16: 64 GB/s bidirectional by the
# PCIe 4.0 specification, and NVIDIA's A10G, L4 and L40S datasheets give PCIe Gen4 x16.
_PCIE4 = PeerLink("PCIe 4.0 x16", 64 / 2 * 8, "PCIe 4.0 x16: 64 GB/s bidirectional (NVIDIA A10G/L4/L40S datasheets)")
# T4 (g4dn, and T4g on Graviton g5g) is a PCIe Gen3 x16 card by its datasheet; the RTX
# PRO 6000 Blackwell Server Edition (g7e) is PCIe Gen5 x16. Each generation doubles the
# lane rate, so 32 and 128 GB/s bidirectional.
_PCIE3 = PeerLink("PCIe 3.0 x16", 32 / 2 * 8, "PCIe 3.0 x16: 32 GB/s bidirectional (NVIDIA T4 datasheet)")
_PCIE5 = PeerLink("PCIe 5.0 x16", 128 / 2 * 8,
                  "PCIe 5.0 x16: 128 GB/s bidirectional (NVIDIA RTX PRO 6000 Blackwell Server Edition datasheet)")

GPU_PEER_LINKS: dict[str, PeerLink] = {
    "A100": PeerLink("NVLink 3 (NVSwitch)", 600 / 2 * 8,
                     "NVIDIA A100 SXM4 datasheet: NVLink 600 GB/s bidirectional per GPU"),
    "H100": _NVLINK4,
    "H200": _NVLINK4,
    "B200": _NVLINK5,
    "B300": _NVLINK5,
    "GB200": _NVLINK5,
    # p3dn.24xlarge: eight V100 SXM2 joined by NVLink 2 in a hybrid cube mesh, not a switch.
    "V100": PeerLink("NVLink 2", 300 / 2 * 8, "NVIDIA V100 SXM2 datasheet: NVLink 300 GB/s bidirectional per GPU"),
    "T4": _PCIE3,
    "T4g": _PCIE3,
    "RTX PRO Server 6000": _PCIE5,
    "A10G": _PCIE4,
    "L4": _PCIE4,
    "L40S": _PCIE4,
}


def efa_network_gbps(instance_type: str) -> Optional[float]:
    """The instance's network bandwidth EFA can use, or ``None`` if it has no EFA or it is unknown."""
    entry = find(instance_type)
    if entry is None or not entry.efa.supported:
        return None
    cap = EFA_CAPS.get(entry.name)
    return cap.gbps if cap is not None else entry.network.bandwidth_gbps


def efa_network_source(instance_type: str) -> str:
    """Where :func:`efa_network_gbps`'s figure for the type comes from."""
    cap = EFA_CAPS.get(instance_type)
    return cap.source if cap is not None else NETWORK_SOURCE


def gpu_peer_link(gpu: str) -> Optional[PeerLink]:
    """How two GPUs of the model ``gpu`` in one instance are linked, or ``None`` if unknown."""
    return GPU_PEER_LINKS.get(gpu)


FABRIC_REGISTRATION_GPUS = frozenset({"H100", "H200", "B200", "B300", "GB200"})
"""NVSwitch GPUs that report their NVLink fabric registration: NVML's ``nvmlDeviceGetGpuFabricInfo`` is for "Hopper
or newer" (NVML API Reference, Fabric definitions, https://docs.nvidia.com/deploy/nvml-api/group__nvmlFabricDefs.html,
read 2026-11-26), and ``nvidia-smi --query-gpu=fabric.state,fabric.status`` printed "Completed, Success" for each GPU
of a 4 x H200 host (driver 580.159.04, 2026-11-26; docs/validation/nvidia-smi-fabric-h200.txt). The A100 (p4d,
p4de) has NVSwitch but predates the API."""


def reports_fabric_registration(instance_type: str) -> bool:
    """Whether the type's GPUs sit on NVSwitch and report their fabric registration (the device check reads it)."""
    entry = find(instance_type)
    accelerator = entry.accelerator if entry else None
    return accelerator is not None and accelerator.name in FABRIC_REGISTRATION_GPUS
