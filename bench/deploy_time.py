"""How long the real Pulumi engine takes to deploy the Kubernetes layer of fsdp-p5, and to find nothing to do on
a second ``up`` (the goal: under 10 s), beside the offline plan of the same stack.

The layer is fsdp-p5's stack file turned into an existing-cluster stack (tests/support/kubernetes_layer.py), deployed
through ``trainstack.deploy`` (the Automation API, the CLI and the Kubernetes provider from engines/build.sh, already
built) onto the rehearsal's control plane with kwok's nodes (tests/support/engine_deploy.py). Prints each step's
wall time as the engine reported it, and the plan's.

    .venv/bin/python bench/deploy_time.py [--runs 3]
    .venv/bin/python bench/deploy_time.py --quick     # one run: what CI runs
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.engine_deploy import live  # noqa: E402
from support.kubernetes_layer import project_of_layers  # noqa: E402
from trainstack.analysis import plan_stack  # noqa: E402
from trainstack.plan import find_project  # noqa: E402

STACK = "fsdp-p5"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one run: what CI runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        project = find_project(project_of_layers(Path(directory) / "project", [STACK]))
        layer = f"{STACK}-layer"
        planned = []
        steps: dict[str, list[float]] = {}
        for run in range(1 if args.quick else args.runs):
            began = time.perf_counter()
            plan = plan_stack(layer, project)
            planned.append(time.perf_counter() - began)
            life = live(layer, progress=lambda line: None, project=project,
                        directory=Path(directory) / f"run-{run}")
            for label, outcome in life.outcomes.items():
                steps.setdefault(label, []).append(outcome.seconds)
        print(f"{layer}: {len(plan.resources)} resources, {len(planned)} run(s), median seconds")
        print(f"  offline plan      {statistics.median(planned):6.2f} s")
        for label, seconds in steps.items():
            print(f"  {label:<17} {statistics.median(seconds):6.2f} s")


if __name__ == "__main__":
    main()
