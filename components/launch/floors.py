"""What "fast enough" means for the all-reduce job: a default bus-bandwidth floor for
an instance type and a node count, and the peak it is a share of.

* One node: the GPUs all-reduce over their own links (NVLink, or PCIe without it), so
  the peak is the GPU model's per-direction link bandwidth (NVIDIA's figure: an
  estimate for an AWS instance, see ``trainstack.catalog.interconnect``).
* Several nodes: in a ring all-reduce each node sends what one rank sends, so the bus
  bandwidth cannot pass the node's network bandwidth (nor its GPU links): the peak is
  the smaller of EC2's network figure for the type, which EFA uses (or the lower EFA cap AWS's
  EFA page states: p6e-gb200, ``catalog.interconnect.EFA_CAPS``), and the GPU link.

The Blackwell types, and where their peaks come from: p6-b200 and p6-b300 one node, NVLink 5
(NVIDIA's figure, an estimate), several nodes EC2's 3200 and 6400 Gigabit; p6e-gb200 one node
NVLink 5 (estimate), several nodes AWS's EFA cap of 1,600 Gbps. A GB200 job inside one
UltraServer runs its collectives over multi-node NVLink, faster than EFA, so the EFA floor
only catches a fabric that is broken outright there; no AWS or NVIDIA figure for multi-node
NVLink bus bandwidth on AWS was read, so no floor is set from one.

The floor is a share of that peak, chosen to catch a broken fabric, not to tune one. Measured one node, with
this project's own program run as the job runs it (1 GiB, 20 iterations, NVLink multicast off), on 4 x H100 SXM
(every pair 18 NVLinks), twice, 2026-11-28 (docs/validation/all-reduce-floor-h100x4.txt, made by
docs/validation/all-reduce-floor.sh), against the H100's 3,600 Gbit/s:

    GPUs  healthy (NVLink P2P)        no peer-to-peer (host memory)   TCP sockets
    2     2,619 / 2,611 (73 %) PASS   220 / 215 (6 %) FAIL            28.0 / 28.5 (0.8 %) FAIL
    4     2,840 / 2,826 (79 %) PASS   200 / 200 (6 %) FAIL            24.8 / 20.9 (0.7 %) FAIL

Two H200s gave about 2,600 of 3,600 (72 %) before (docs/validation-jobs.md). So half the peak: a healthy node
clears it by more than 20 points of the peak, and each broken transport falls more than 40 points below it. Not
measured: 8 GPUs on NVSwitch (p4de, p5, p5e: no 8-GPU machine was lent), a GPU with some NVLinks down (not
injectable on a shared host), and multi-node shares on EFA. It is a judgment, stated as one; pass ``floor_gbps`` to
hold a cluster to a figure of one's own.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import find
from ..catalog.interconnect import efa_network_gbps, efa_network_source, gpu_peer_link
from .placement import LaunchError

SHARE_OF_PEAK = 0.5


@dataclass(frozen=True)
class Floor:
    gbps: float
    """Fail below this bus bandwidth (Gbit/s)."""
    expected_gbps: float
    """The peak the floor is a share of (Gbit/s)."""
    basis: str
    """Where the peak comes from, printed beside the measured figure."""


def default_floor(instance_type: str, nodes: int, gpus_per_node: int) -> Floor:
    """Half the peak bus bandwidth of ``nodes`` instances of ``instance_type``, or a
    :class:`LaunchError` saying why there is none and asking for ``--floor-gbps``."""
    ask = "pass --floor-gbps to set one."
    entry = find(instance_type)
    if entry is None or entry.accelerator is None:
        raise LaunchError(f"{instance_type} is not a GPU type in the catalog, so there is no default floor; {ask}")
    link = gpu_peer_link(entry.accelerator.name)
    if nodes == 1:
        if link is None:
            raise LaunchError(f"the catalog has no GPU link bandwidth for {entry.accelerator.name} "
                              f"({instance_type}), so there is no default floor for one node; {ask}")
        return _share(link.gbps, f"{link.link} peak per direction, estimate: {link.source}")
    network = efa_network_gbps(instance_type)
    if network is None:
        raise LaunchError(f"the catalog has no EFA bandwidth for {instance_type}, so there is no default floor "
                          f"across {nodes} nodes; {ask}")
    basis = f"{instance_type} network {network:g} Gbit/s, {efa_network_source(instance_type)}"
    if link is not None and gpus_per_node > 1 and link.gbps < network:
        return _share(link.gbps, f"{link.link} peak per direction, below the network's {network:g} Gbit/s; "
                                 f"estimate: {link.source}")
    return _share(network, basis)


def _share(peak: float, basis: str) -> Floor:
    return Floor(gbps=round(peak * SHARE_OF_PEAK), expected_gbps=peak, basis=basis)
