"""Wall time of the offline plan of a stack, cold and warm.

cold: a new process runs `trainstack plan` (interpreter start, imports, one plan).
warm: the same process plans the stack again (what tests and a long-lived tool pay).

    .venv/bin/python bench/plan_time.py [--stack dev] [--runs 5]
    .venv/bin/python bench/plan_time.py --quick          # 1 run each: what CI runs (tests/test_bench.py)

bench/cli_time.py times the installed `trainstack` command against the import floor.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cold(stack: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "trainstack.cli", "plan", "--stack", stack, "--cwd", str(ROOT)],
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def warm(stack: str, runs: int) -> tuple[list[float], int]:
    from trainstack.plan import find_project, run_plan

    project = find_project(ROOT)
    run_plan(project, stack)  # first plan in this process: imports and caches
    times, resources = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        resources = len(run_plan(project, stack).resources)
        times.append(time.perf_counter() - started)
    return times, resources


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stack", default="dev")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="1 run each: what CI runs")
    args = parser.parse_args()
    if args.quick:
        args.runs = 1

    cold_times = [cold(args.stack) for _ in range(args.runs)]
    warm_times, resources = warm(args.stack, args.runs)
    print(f"offline plan of stack '{args.stack}' ({resources} resources), {args.runs} runs each")
    print(f"{'':6} {'median':>9} {'min':>9} {'max':>9}")
    for label, times in (("cold", cold_times), ("warm", warm_times)):
        print(f"{label:6} {statistics.median(times):8.3f}s {min(times):8.3f}s {max(times):8.3f}s")


if __name__ == "__main__":
    main()
