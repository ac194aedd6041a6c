"""Time NCCL all-reduce over every GPU of the job and give one verdict for all ranks.

Run by torchrun, one process per GPU. Every rank times the same all-reduces; the
slowest rank's time is the job's time (the collective ends when its last member
does), so the ranks reduce their times with MAX before anything is judged. Rank 0
alone compares the bus bandwidth with the floor and checks the sum was right, and
broadcasts that verdict: every rank exits with the same code, so every pod of the
job succeeds or fails together, and the process group is shut down before exiting.
Exit codes: 0 fast enough and correct, 1 below the floor, 2 a wrong sum. torchrun
reports any failed worker as 1, below 128, which a PyTorchJob with restartPolicy
ExitCode takes as final rather than retrying; rank 0's line says which it was.

Bus bandwidth is nccl-tests' figure (doc/PERFORMANCE.md): for all-reduce over n
ranks, ``bytes * 2 * (n - 1) / n / seconds``, the per-direction rate each rank's
links carried, comparable with the hardware's peak. Here in Gbit/s.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from typing import Optional

PASS, TOO_SLOW, WRONG_SUM = 0, 1, 2


def bus_gbps(message_bytes: int, seconds: float, world: int) -> float:
    """nccl-tests' all-reduce bus bandwidth, in Gbit/s."""
    return message_bytes * 2 * (world - 1) / world / seconds * 8 / 1e9


def verdict(measured_gbps: float, floor_gbps: float, sum_correct: bool) -> int:
    """The exit code every rank takes."""
    if not sum_correct:
        return WRONG_SUM
    return PASS if measured_gbps >= floor_gbps else TOO_SLOW


def report(measured_gbps: float, floor_gbps: float, expected_gbps: Optional[float], basis: str, world: int,
           nodes: int, code: int) -> str:
    """The one line rank 0 prints: measured, expected and floor side by side."""
    expected = f"expected about {expected_gbps:.0f} Gbit/s ({basis})" if expected_gbps else "no expected figure"
    outcome = {PASS: "PASS", TOO_SLOW: "FAIL: below the floor", WRONG_SUM: "FAIL: all-reduce returned a wrong sum"}
    return (f"all-reduce bus bandwidth {measured_gbps:.1f} Gbit/s over {world} GPUs on {nodes} node(s); "
            f"{expected}; floor {floor_gbps:.0f} Gbit/s: {outcome[code]}")


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Time NCCL all-reduce against a bus-bandwidth floor.")
    parser.add_argument("--floor-gbps", type=float, required=True, help="fail below this bus bandwidth")
    parser.add_argument("--expected-gbps", type=float, help="the peak the floor is a share of, printed beside it")
    parser.add_argument("--basis", default="", help="where the expected figure comes from")
    parser.add_argument("--megabytes", type=int, default=1024, help="message size (MiB)")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=20)
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
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

        decision = torch.zeros(1, dtype=torch.int32, device=device)
        if rank == 0:
            code = verdict(measured, args.floor_gbps, sum_correct=wrong.item() == 0)
            decision.fill_(code)
            print(report(measured, args.floor_gbps, args.expected_gbps, args.basis, world, nodes, code), flush=True)
        dist.broadcast(decision, src=0)
        return int(decision.item())
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    sys.exit(main())
