"""How long `trainstack plan` takes as a new process, against the import floor measured in the same run.

The floor is a new process of the same Python importing pulumi, pulumi_aws and pulumi_kubernetes and
doing nothing else: what any Pulumi program in Python pays before its first resource. Against it, as
new processes: `trainstack plan --stack dev` (the checkout's stacks/Pulumi.dev.yaml), `trainstack plan
--stack frontier-p5` (2,048 p5.48xlarge as eight node groups, three teams) and `trainstack plan --stack
growth` of a generated stack of 64 p5.48xlarge groups (bench/plan_growth.py's). The four are run in
turn, round after round, so a machine's changing load falls on all of them alike; each line is the
median of the rounds and its ratio to the floor's median. The last line holds frontier-p5 to issue 55's
goal: its plan within 1.5 times dev's, medians of the same rounds.

    .venv/bin/python bench/cli_time.py [--runs 7] [--groups 64]
    python3 bench/cli_time.py --trainstack /elsewhere/venv/bin/trainstack    # an installed wheel
    .venv/bin/python bench/cli_time.py --quick          # 1 round, 2 groups: what CI runs (tests/test_bench.py)

``--trainstack`` is the command measured (default: the one beside this Python, as `pip install`
puts it); ``--python`` the interpreter of the floor (default: the ``python`` beside that command,
the virtualenv's own). This script imports nothing of trainstack's, so any Python 3 can run it.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from plan_growth import ROOT, write_project

FLOOR = "import pulumi, pulumi_aws, pulumi_kubernetes"
FRONTIER_GOAL = 1.5
"""Issue 55: frontier-p5's plan takes at most this many times dev's (both new processes, same rounds)."""


def timed(command: list[str]) -> float:
    """Seconds ``command`` takes as a new process; a failure stops the benchmark with its error output."""
    started = time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} exited {result.returncode}:\n{result.stderr}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trainstack", type=Path, default=Path(sys.executable).parent / "trainstack",
                        help="the trainstack command to measure (default: %(default)s)")
    parser.add_argument("--python", type=Path, help="the interpreter of the import floor "
                        "(default: the python beside --trainstack)")
    parser.add_argument("--runs", type=int, default=7, help="rounds (default: %(default)s)")
    parser.add_argument("--groups", type=int, default=64, help="node groups of the generated stack")
    parser.add_argument("--quick", action="store_true", help="1 round, 2 groups: what CI runs")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.groups = 1, 2
    python = args.python or args.trainstack.parent / "python"
    for path, option in ((args.trainstack, "--trainstack"), (python, "--python")):
        if not path.is_file():
            parser.error(f"{option}: {path} is not a file: give the path of the one to measure")
    with tempfile.TemporaryDirectory() as directory:
        growth = write_project(Path(directory), args.groups)
        commands = {
            "import floor": [str(python), "-c", FLOOR],
            "plan --stack dev": [str(args.trainstack), "plan", "--stack", "dev", "--cwd", str(ROOT)],
            "plan --stack frontier-p5": [str(args.trainstack), "plan", "--stack", "frontier-p5", "--cwd", str(ROOT)],
            f"plan, {args.groups} groups": [str(args.trainstack), "plan", "--stack", "growth", "--cwd", str(growth)],
        }
        times: dict[str, list[float]] = {label: [] for label in commands}
        for _ in range(args.runs):
            for label, command in commands.items():
                times[label].append(timed(command))
    print(f"{args.trainstack}: new processes, median of {args.runs} rounds (min-max)")
    floor = statistics.median(times["import floor"])
    for label, seconds in times.items():
        median = statistics.median(seconds)
        print(f"  {label:<24} {median:7.2f} s  ({min(seconds):.2f}-{max(seconds):.2f})  {median / floor:5.1f} x floor")
    print(f"  floor: {python} -c {FLOOR!r}")
    frontier, dev = statistics.median(times["plan --stack frontier-p5"]), statistics.median(times["plan --stack dev"])
    ratio = frontier / dev
    print(f"  frontier-p5 / dev: {ratio:.2f} x ({(frontier - floor) / (dev - floor):.2f} x above the floor; "
          f"goal: at most {FRONTIER_GOAL} x): {'met' if ratio <= FRONTIER_GOAL else 'NOT met'}")


if __name__ == "__main__":
    main()
