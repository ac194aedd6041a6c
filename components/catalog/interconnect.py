"""How fast a GPU instance's accelerators can exchange data: with each other inside
the instance, and with other instances over EFA.

These are the peaks a bandwidth test is judged against (``trainstack launch
all-reduce``). Both are per direction, in Gbit/s, the unit NCCL's bus bandwidth is
reported in once bytes are counted as bits (nccl-tests ``doc/PERFORMANCE.md``: bus
bandwidth is a unidirectional figure meant to be compared with the hardware's peak).

* Network: the EC2 API's ``NetworkInfo.NetworkPerformance`` for the instance (moto 5.2.5's
  snapshot of ``DescribeInstanceTypes``; tests check every entry against it). EFA and IP
  traffic share it. Where it disagrees with the sum of the network cards' peaks
  (p6-b200: 3200 against 8 x 200; g6e.48xlarge: 400 against 4 x 400), the headline figure
  governs: it is what AWS sells the type as, and the card peaks of those types are
  themselves unreconciled in the research (facts-instances.md, open questions 2).
  Only EFA-capable types are listed: a network test between instances without EFA runs
  over TCP and has no floor trainstack could defend.
* GPU to GPU inside the instance: NVIDIA's published link bandwidth for the GPU model,
  which AWS does not publish and the EC2 API does not carry. These are vendor peaks,
  so ESTIMATES of what an instance's GPUs offer, not measurements on AWS. NVIDIA quotes
  NVLink as a bidirectional total per GPU; the figure here is half of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

NETWORK_SOURCE = "EC2 DescribeInstanceTypes NetworkInfo.NetworkPerformance (moto 5.2.5 snapshot)"

# Gbit/s per instance, EC2 NetworkPerformance ("3200 Gigabit", "4x 100 Gigabit").
EFA_NETWORK_GBPS: dict[str, float] = {
    "p4d.24xlarge": 400,
    "p4de.24xlarge": 400,
    "p5.4xlarge": 100,
    "p5.48xlarge": 3200,
    "p5e.48xlarge": 3200,
    "p5en.48xlarge": 3200,
    "p6-b200.48xlarge": 3200,
    "p6-b300.48xlarge": 6400,
    "g5.8xlarge": 25,
    "g5.12xlarge": 40,
    "g5.16xlarge": 25,
    "g5.24xlarge": 50,
    "g5.48xlarge": 100,
    "g6.48xlarge": 100,
    "g6e.48xlarge": 400,
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

GPU_PEER_LINKS: dict[str, PeerLink] = {
    "A100": PeerLink("NVLink 3 (NVSwitch)", 600 / 2 * 8,
                     "NVIDIA A100 SXM4 datasheet: NVLink 600 GB/s bidirectional per GPU"),
    "H100": _NVLINK4,
    "H200": _NVLINK4,
    "B200": _NVLINK5,
    "B300": _NVLINK5,
    "GB200": _NVLINK5,
    "A10G": _PCIE4,
    "L4": _PCIE4,
    "L40S": _PCIE4,
}


def efa_network_gbps(instance_type: str) -> Optional[float]:
    """The instance's network bandwidth EFA can use, or ``None`` if it has no EFA or it is unknown."""
    return EFA_NETWORK_GBPS.get(instance_type)


def gpu_peer_link(gpu: str) -> Optional[PeerLink]:
    """How two GPUs of the model ``gpu`` in one instance are linked, or ``None`` if unknown."""
    return GPU_PEER_LINKS.get(gpu)
