"""Time NCCL all-reduce over every GPU of the job and give one verdict for all ranks.

Run by torchrun, one process per GPU. Every rank times the same all-reduces; the
slowest rank's time is the job's time (the collective ends when its last member
does), so the ranks reduce their times with MAX before anything is judged. Rank 0
alone compares the bus bandwidth with the floor and checks the sum was right, and
broadcasts that verdict: every rank exits with the same code, so every pod of the
job succeeds or fails together, and the process group is shut down before exiting.
Exit codes: 0 fast enough and correct, 1 below the floor, 2 a wrong sum, 3 the wrong
network transport. torchrun reports any failed worker as 1, below 128, which a
PyTorchJob with restartPolicy ExitCode takes as final rather than retrying; rank 0's
line says which it was.

The transport is read from what NCCL reports, not guessed from the bandwidth: each
rank has NCCL write its INFO log (subsystems INIT and NET) to a file of its own
(``NCCL_DEBUG_FILE``; NCCL line-buffers that file, src/debug.cc at v2.28.9-1, so it
can be read while the process runs) and parses three kinds of line:

* ``Using network <name>``: the network plugin the communicator chose (NCCL
  src/init.cc, v2.28.9-1). NCCL's own are ``IB`` and ``Socket``
  (src/transport/net_ib/common.cc, net_socket.cc); aws-ofi-nccl registers as
  ``Libfabric`` for NVIDIA GPUs (src/nccl_ofi_interface_nvidia.cpp, v1.19.2; ``AWS
  Libfabric`` before, and still for Neuron).
* ``Channel 00/0 : 0[0] -> 1[1] [send] via NET/<name>/<dev>...``: a connection NCCL
  routed over that network rather than NVLink or shared memory (src/transport/net.cc).
* ``NET/OFI Selected provider is <provider>, fabric is ...``: the libfabric provider
  aws-ofi-nccl opened (src/nccl_ofi_net.cpp, v1.19.2; other releases print
  ``Selected Provider is efa (found 16 nics)``, as in NVIDIA/nccl issue 1597's log);
  ``efa`` on an EFA instance.

The rule, for a job on an EFA instance type (``--network efa``): wherever NCCL uses its
network (the job spans nodes, or a connection went ``via NET``), that network must be
aws-ofi-nccl over the ``efa`` provider. NCCL falls back to TCP sockets quietly when the
plugin is missing or finds no EFA device; the job then fails here with the reason. On a
type with GPUDirect RDMA (``--rdma``, from ``catalog.fabric_env.gpudirect_rdma``) every
connection over the network must also carry ``/GDRDMA`` in its channel line, which NCCL
prints when the NIC reads and writes GPU memory itself (src/transport/net.cc, ``useGdr``);
without it NCCL stages every message through host memory, on EFA but at a fraction of the
rate, which is the failure that matters on p4d/p5.

Bus bandwidth is nccl-tests' figure (doc/PERFORMANCE.md): for all-reduce over n
ranks, ``bytes * 2 * (n - 1) / n / seconds``, the per-direction rate each rank's
links carried, comparable with the hardware's peak. Here in Gbit/s.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Optional

PASS, TOO_SLOW, WRONG_SUM, WRONG_TRANSPORT = 0, 1, 2, 3
OFI_NETWORKS = ("Libfabric", "AWS Libfabric")
"""The names aws-ofi-nccl registers its network under (see the module docstring)."""
EFA_PROVIDER = "efa"
_USING_NETWORK = re.compile(r"NCCL INFO Using network (.+?)\s*$")
_VIA_NET = re.compile(r"NCCL INFO (?:Channel|Ring) \d+.* via NET/(.+?)/\d+(\S*)")  # "Ring" before NCCL 2.4
_GDR = "/GDRDMA"
_OFI_PROVIDER = re.compile(r"NET/OFI Selected provider is ([^,\s]+)", re.IGNORECASE)  # "Provider" in some releases


@dataclass(frozen=True)
class Transport:
    """What NCCL reported about its network on one rank."""

    network: Optional[str]
    """The network plugin the communicator chose, or None when NCCL reported none."""
    via_network: int
    """How many connections NCCL routed over that network (the rest went over NVLink, PCIe or memory)."""
    provider: Optional[str]
    """The libfabric provider aws-ofi-nccl selected, when it loaded."""
    via_gdr: int = 0
    """How many of those connections use GPUDirect RDMA (``/GDRDMA``)."""

    def describe(self) -> str:
        if self.network is None:
            return "NCCL reported no network"
        provider = f", provider {self.provider}" if self.provider else ""
        gdr = f" ({self.via_gdr} with GPUDirect RDMA)" if self.via_gdr else ""
        return f"NCCL network {self.network}{provider}, {self.via_network} connection(s) over it{gdr}"


def nccl_transport(log_lines: Iterable[str]) -> Transport:
    """The transport NCCL reports in its INFO log."""
    network, provider, via, gdr = None, None, 0, 0
    for line in log_lines:
        if match := _USING_NETWORK.search(line):
            network = match.group(1)
        elif match := _VIA_NET.search(line):
            via += 1
            gdr += _GDR in match.group(2)
            network = network or match.group(1)
        elif match := _OFI_PROVIDER.search(line):
            provider = match.group(1)
    return Transport(network=network, via_network=via, provider=provider, via_gdr=gdr)


def transport_problem(transport: Transport, expected: str, nodes: int, rdma: bool = False) -> Optional[str]:
    """Why the transport breaks the rule for the ``expected`` network (``efa`` or ``any``), and on a
    type with GPUDirect RDMA (``rdma``) for RDMA, or None."""
    if expected != "efa" or (nodes < 2 and not transport.via_network):
        return None  # no EFA expected, or NCCL used no network at all: NVLink/PCIe within one node
    if transport.network is None:
        return ("NCCL reported no network, so EFA cannot be confirmed; keep NCCL_DEBUG_FILE and NCCL_DEBUG "
                "to this program")
    if transport.network not in OFI_NETWORKS:
        return (f"NCCL used its {transport.network} network, not aws-ofi-nccl over EFA: the image lacks the "
                "aws-ofi-nccl plugin or it found no EFA device (check the pod's vpc.amazonaws.com/efa "
                "claim and NCCL_NET_PLUGIN)")
    if transport.provider != EFA_PROVIDER:
        return (f"aws-ofi-nccl selected libfabric provider {transport.provider or 'none'}, not {EFA_PROVIDER}: "
                "it found no EFA device (check the pod's vpc.amazonaws.com/efa claim)")
    if rdma and transport.via_gdr < transport.via_network:
        return (f"{transport.via_network - transport.via_gdr} of {transport.via_network} connection(s) over EFA "
                "without GPUDirect RDMA (no /GDRDMA in NCCL's channel lines): messages are staged through host "
                "memory. Check FI_EFA_USE_DEVICE_RDMA=1, the GPU driver's dma-buf or nvidia-peermem support, and "
                "the image's aws-ofi-nccl (1.7.0 or later)")
    return None


def bus_gbps(message_bytes: int, seconds: float, world: int) -> float:
    """nccl-tests' all-reduce bus bandwidth, in Gbit/s."""
    return message_bytes * 2 * (world - 1) / world / seconds * 8 / 1e9


def verdict(measured_gbps: float, floor_gbps: float, sum_correct: bool, transport_ok: bool = True) -> int:
    """The exit code every rank takes: a wrong sum first, then the wrong transport (which explains a
    missed floor), then the floor."""
    if not sum_correct:
        return WRONG_SUM
    if not transport_ok:
        return WRONG_TRANSPORT
    return PASS if measured_gbps >= floor_gbps else TOO_SLOW


def report(measured_gbps: float, floor_gbps: float, expected_gbps: Optional[float], basis: str, world: int,
           nodes: int, code: int, transport: str = "", problem: Optional[str] = None) -> str:
    """The one line rank 0 prints: measured, expected and floor side by side, and the transport."""
    expected = f"expected about {expected_gbps:.0f} Gbit/s ({basis})" if expected_gbps else "no expected figure"
    outcome = {PASS: "PASS", TOO_SLOW: "FAIL: below the floor", WRONG_SUM: "FAIL: all-reduce returned a wrong sum",
               WRONG_TRANSPORT: f"FAIL: wrong transport: {problem}"}
    return (f"all-reduce bus bandwidth {measured_gbps:.1f} Gbit/s over {world} GPUs on {nodes} node(s); "
            f"{expected}; floor {floor_gbps:.0f} Gbit/s; {transport or 'transport not read'}: {outcome[code]}")


def log_nccl_to_file(rank: str) -> str:
    """Have NCCL write its INFO log of initialisation and networking to a file of this rank's, and return
    the path. Must run before NCCL's first log line: NCCL reads these variables once."""
    path = os.path.join(tempfile.gettempdir(), f"trainstack-all-reduce-nccl.{rank}.{os.getpid()}.log")
    os.environ.update({"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "INIT,NET", "NCCL_DEBUG_FILE": path})
    return path


def read_transport(path: str) -> Transport:
    try:
        with open(path, encoding="utf-8", errors="replace") as log:
            return nccl_transport(log)
    except FileNotFoundError:
        return Transport(network=None, via_network=0, provider=None)


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Time NCCL all-reduce against a bus-bandwidth floor.")
    parser.add_argument("--floor-gbps", type=float, required=True, help="fail below this bus bandwidth")
    parser.add_argument("--expected-gbps", type=float, help="the peak the floor is a share of, printed beside it")
    parser.add_argument("--basis", default="", help="where the expected figure comes from")
    parser.add_argument("--network", choices=("efa", "any"), default="any",
                        help="efa: across nodes NCCL must use aws-ofi-nccl over EFA, never sockets")
    parser.add_argument("--rdma", action="store_true",
                        help="the type has GPUDirect RDMA: every connection over EFA must use it")
    parser.add_argument("--megabytes", type=int, default=1024, help="message size (MiB)")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=20)
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    nccl_log = log_nccl_to_file(os.environ.get("RANK", "0"))
    import torch
    import torch.distributed as dist

    local_rank = int(os.environ["LOCAL_RANK"])
    device = torch.device("cuda", local_rank)
    torch.cuda.set_device(device)
    # Naming the device binds the communicator to it now, so barriers and the shutdown
    # know which GPU this rank owns.
    dist.init_process_group("nccl", device_id=device)
    try:
        rank, world = dist.get_rank(), dist.get_world_size()
        nodes = world // int(os.environ.get("LOCAL_WORLD_SIZE", world))
        elements = args.megabytes * 1024 * 1024 // 4
        tensor = torch.ones(elements, dtype=torch.float32, device=device)
        for _ in range(args.warmup):
            dist.all_reduce(tensor)
        torch.cuda.synchronize()
        dist.barrier()
        start = time.perf_counter()
        for _ in range(args.iterations):
            dist.all_reduce(tensor)
        torch.cuda.synchronize()
        seconds = torch.tensor([(time.perf_counter() - start) / args.iterations], dtype=torch.float64, device=device)
        dist.all_reduce(seconds, op=dist.ReduceOp.MAX)
        measured = bus_gbps(elements * 4, seconds.item(), world)

        # Correctness: rank r contributes r + 1, so every element must be n(n + 1) / 2.
        tensor.fill_(rank + 1)
        dist.all_reduce(tensor)
        wrong = torch.count_nonzero(tensor != world * (world + 1) / 2).reshape(1)
        dist.all_reduce(wrong)

        # Every rank judges its own connections; one rank on sockets fails the job.
        transport = read_transport(nccl_log)
        problem = transport_problem(transport, args.network, nodes, rdma=args.rdma)
        bad_transport = torch.tensor([int(problem is not None)], dtype=torch.int32, device=device)
        dist.all_reduce(bad_transport, op=dist.ReduceOp.MAX)

        decision = torch.zeros(1, dtype=torch.int32, device=device)
        if rank == 0:
            if bad_transport.item() and problem is None:
                problem = "another rank's NCCL did not use aws-ofi-nccl over EFA (see its NCCL log)"
            code = verdict(measured, args.floor_gbps, sum_correct=wrong.item() == 0,
                           transport_ok=not bad_transport.item())
            decision.fill_(code)
            print(report(measured, args.floor_gbps, args.expected_gbps, args.basis, world, nodes, code,
                         transport.describe(), problem), flush=True)
        dist.broadcast(decision, src=0)
        return int(decision.item())
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    sys.exit(main())
