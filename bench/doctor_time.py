"""How long `trainstack doctor` takes to read a cluster against its plan, at the size users run it.

Starts the rehearsal's cluster of a stack (the real control plane and controllers, every node of every group
registered by kwok: rehearsal.cluster.cluster_for) and times doctor's cluster sections on it (nodes, add-ons,
pending jobs, the fabric), as `trainstack doctor --stack S` runs them. Doctor reads each collection once, so its
time grows with the nodes it lists; the goal is under 30 s at 2,048 nodes (issue 66).

    .venv/bin/python bench/doctor_time.py --frontier 2048   # frontier-p5's pool at 2,048 nodes, as shipped
    .venv/bin/python bench/doctor_time.py --quick           # the dev stack, 3 nodes: what CI runs

Each run times doctor three times on the same cluster and prints every run and the slowest, against the goal.
The cluster's start is not timed: it is the rehearsal's, which bench/rehearse_time.py measures.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rehearse_time import frontier_with  # the scaled frontier project: one definition of it

ROOT = Path(__file__).resolve().parents[1]
GOAL_SECONDS = 30.0
RUNS = 3


def plan_of(stack: str, frontier_nodes: int | None):
    from trainstack.analysis import plan_stack
    from trainstack.plan import find_project

    if frontier_nodes is None:
        return plan_stack(stack, find_project(ROOT))
    directory = Path(tempfile.mkdtemp(prefix="trainstack-doctor-bench-"))
    return plan_stack("frontier-p5", find_project(frontier_with(directory, frontier_nodes)))


def measure(stack: str, frontier_nodes: int | None) -> None:
    from trainstack.doctor.run import doctor
    from trainstack.rehearsal.cluster import cluster_for

    plan = plan_of(stack, frontier_nodes)
    started = time.perf_counter()
    with cluster_for(plan, ["default-scheduler"]) as running:
        print(f"{plan.stack}: {sum(running.nodes.count.values())} nodes registered and Ready in "
              f"{time.perf_counter() - started:.1f} s (not timed below)")
        times = []
        for _ in range(RUNS):
            began = time.perf_counter()
            diagnosis = doctor(plan, running.cluster)
            times.append(time.perf_counter() - began)
        print(f"  doctor runs: {', '.join(f'{seconds:.2f} s' for seconds in times)}; {diagnosis.summary()}")
        slowest = max(times)
        verdict = "met" if slowest < GOAL_SECONDS else "NOT met"
        print(f"  slowest {slowest:.2f} s against the goal of under {GOAL_SECONDS:.0f} s at 2,048 nodes: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="the dev stack, a few nodes: what CI runs")
    parser.add_argument("--frontier", type=int, metavar="NODES",
                        help="frontier-p5's pool at NODES nodes (2048 as shipped)")
    args = parser.parse_args()
    if args.frontier:
        measure("frontier-p5", args.frontier)
    else:
        measure("dev", None)


if __name__ == "__main__":
    main()
