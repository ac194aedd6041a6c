"""How the offline plan grows with the number of accelerated groups.

For 1, 8, 32 and 64 p5.48xlarge groups (EFA on: 33 interfaces per launch template)
it plans a generated stack in a fresh process and prints the wall time of the plan,
the process's peak memory and the resource count.

    .venv/bin/python bench/plan_growth.py [--sizes 1 8 32 64]
    .venv/bin/python bench/plan_growth.py --quick        # 1 and 2 groups: what CI runs (tests/test_bench.py)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MEASURE = """
import json, resource, sys, time
from pathlib import Path
from trainstack.plan import find_project, run_plan
project = find_project(Path(sys.argv[1]))
started = time.perf_counter()
plan = run_plan(project, "growth")
seconds = time.perf_counter() - started
peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "peakMiB": peak_mib, "resources": len(plan.resources)}))
"""


def stack_with(groups: int) -> dict:
    """The stack file of ``groups`` p5.48xlarge groups (bench/cli_time.py plans it too)."""
    return {"config": {
        "trainstack:profile": "dev",
        "trainstack:region": "us-east-1",
        "trainstack:network": {"zones": ["us-east-1a", "us-east-1b"]},
        "trainstack:eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
        "trainstack:nodeGroups": [{"name": f"p5-{i}", "instanceType": "p5.48xlarge", "maxSize": 2,
                                   "zone": "us-east-1a"} for i in range(groups)],
    }}


def write_project(project: Path, groups: int) -> Path:
    """A project in ``project`` running the checkout's program (stacks/) as stack ``growth`` of ``groups`` groups.
    Its files are JSON, which is YAML, so the benchmarks need no YAML library of their own."""
    (project / "Pulumi.yaml").write_text(json.dumps(
        {"name": "trainstack", "runtime": "python", "main": str(ROOT / "stacks")}))
    (project / "Pulumi.growth.yaml").write_text(json.dumps(stack_with(groups), indent=2))
    return project


def measure(groups: int) -> dict:
    with tempfile.TemporaryDirectory() as directory:
        project = write_project(Path(directory), groups)
        result = subprocess.run([sys.executable, "-c", MEASURE, str(project)], check=True, capture_output=True,
                                text=True)
        return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 8, 32, 64])
    parser.add_argument("--quick", action="store_true", help="1 and 2 groups: what CI runs")
    args = parser.parse_args()
    if args.quick:
        args.sizes = [1, 2]
    print(f"{'groups':>6} {'resources':>9} {'plan s':>8} {'s/group':>8} {'peak MiB':>9}")
    for groups in args.sizes:
        row = measure(groups)
        print(f"{groups:>6} {row['resources']:>9} {row['seconds']:>8.2f} {row['seconds'] / groups:>8.3f} "
              f"{row['peakMiB']:>9.0f}")


if __name__ == "__main__":
    main()
