"""How long `trainstack rehearse` takes, and how much memory the engines it starts hold at their peak.

Rehearses the checkout's fsdp-p5 stack (its p5 group grows from 2 to 16 nodes on the autoscaler
model) and the same stack with the group's maximum raised to 64, each as a new process
(`trainstack rehearse --json`), with the engines already built (engines/build.sh caches them;
the first run builds them and is not what this measures). Prints each phase's seconds from the
rehearsal's record, the whole command's wall time, and the engines' peak resident memory.

    .venv/bin/python bench/rehearse_time.py [--nodes 16 64]
    .venv/bin/python bench/rehearse_time.py --quick     # fsdp-p5 at 16 nodes, its validation job only
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRAINSTACK = Path(sys.executable).parent / "trainstack"


def project_with(directory: Path, nodes: int) -> Path:
    """The checkout's program as stack ``fsdp-p5`` with the p5 group's maximum at ``nodes`` (JSON is YAML)."""
    import yaml  # the virtualenv's: this script runs with trainstack installed

    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.fsdp-p5.yaml").read_text())
    config["config"]["trainstack:nodeGroups"][0]["maxSize"] = nodes
    (directory / "Pulumi.yaml").write_text(json.dumps({"name": "trainstack", "runtime": "python",
                                                       "main": str(ROOT / "stacks")}))
    (directory / "Pulumi.fsdp-p5.yaml").write_text(json.dumps(config))
    return directory


def measure(nodes: int, quick: bool) -> dict:
    with tempfile.TemporaryDirectory() as directory:
        project = project_with(Path(directory), nodes)
        command = [str(TRAINSTACK), "rehearse", "--stack", "fsdp-p5", "--cwd", str(project), "--json", "--quiet"]
        if quick:
            command += ["--only", "device-check"]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        if done.returncode != 0:
            sys.exit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr[-3000:]}")
        record = json.loads(done.stdout)
        return {"wall": wall, **record}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--quick", action="store_true", help="16 nodes, the validation job only: what CI runs")
    args = parser.parse_args()
    for nodes in [16] if args.quick else args.nodes:
        result = measure(nodes, args.quick)
        phases = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in result["seconds"].items())
        print(f"fsdp-p5 at {nodes} nodes: {len(result['jobs'])} jobs, ok={result['ok']}")
        print(f"  phases: {phases}")
        print(f"  whole command {result['wall']:.1f} s; engines' peak memory {result['peakMemoryMiB']} MiB")


if __name__ == "__main__":
    main()
