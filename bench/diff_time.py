"""How long `trainstack diff` takes on two 64-group records.

Plans a generated stack with 64 p5.48xlarge groups (EFA on) twice, the head with every
fourth group on p5en.48xlarge (replaced: new launch template versions, node rolls) and
every other group one node larger, then times the comparison, the risk assessment and
each report format on the two saved records, in this process; then the whole
`trainstack diff` command in a new process, and a new process that only imports it (the
difference is the diff; the imports are Pulumi's SDK and the config models).

    .venv/bin/python bench/diff_time.py [--groups 64] [--runs 5]
    .venv/bin/python bench/diff_time.py --quick          # 2 groups, 1 run: what CI runs (tests/test_bench.py)
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.growth_stack import config  # noqa: E402
from support.plan_records import record  # noqa: E402
from trainstack.analysis import load_record  # noqa: E402
from trainstack.review import assess, compare, render_json, render_markdown, render_sarif, render_text  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--groups", type=int, default=64)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="2 groups, 1 run: what CI runs")
    args = parser.parse_args()
    if args.quick:
        args.groups, args.runs = 2, 1
    with tempfile.TemporaryDirectory() as directory:
        paths = {}
        for side in ("base", "head"):
            document = record(Path(directory) / side, "growth", config=config(args.groups, side == "head"))
            paths[side] = Path(directory) / f"{side}.json"
            paths[side].write_text(json.dumps(document, indent=2))
        steps = {
            "load both records": lambda: (load_record(paths["base"]), load_record(paths["head"])),
        }
        base, head = load_record(paths["base"]), load_record(paths["head"])
        diff = compare(base, head)
        findings = assess(diff)
        steps.update({
            "compare": lambda: compare(base, head),
            "assess risk": lambda: assess(diff),
            "text report": lambda: render_text(diff, findings),
            "markdown report": lambda: render_markdown(diff, findings),
            "json report": lambda: render_json(diff, findings),
            "sarif report": lambda: render_sarif(diff, findings, Path(directory) / "head"),
        })
        sizes = {side: paths[side].stat().st_size / 2**20 for side in paths}
        print(f"{args.groups} groups: {len(base.resources)} -> {len(head.resources)} resources, records "
              f"{sizes['base']:.1f} / {sizes['head']:.1f} MiB; {len(diff.changes)} changes "
              f"({', '.join(f'{len(diff.of(a))} {a}' for a in ('create', 'update', 'replace', 'delete'))}), "
              f"{len(findings)} findings; median of {args.runs} runs")
        total = 0.0
        for name, step in steps.items():
            times = []
            for _ in range(args.runs):
                started = time.perf_counter()
                step()
                times.append(time.perf_counter() - started)
            total += statistics.median(times)
            print(f"  {name:<18} {statistics.median(times) * 1000:8.1f} ms")
        print(f"  {'all of it':<18} {total * 1000:8.1f} ms")
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "trainstack.cli", "diff", str(paths["base"]), str(paths["head"]),
                            "--format", "markdown", "--cwd", str(Path(directory) / "head")],
                           capture_output=True, check=False)
            times.append(time.perf_counter() - started)
        print(f"  {'a new process':<18} {statistics.median(times) * 1000:8.1f} ms  "
              "(trainstack diff --format markdown, imports included)")
        imports = []
        for _ in range(args.runs):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", "import trainstack.cli, trainstack.review"], check=False)
            imports.append(time.perf_counter() - started)
        print(f"  {'imports alone':<18} {statistics.median(imports) * 1000:8.1f} ms  "
              "(a new process importing the CLI and the review, doing nothing)")
        print(f"  the diff itself    {total * 1000:8.1f} ms  (in one process: {'under' if total < 1 else 'OVER'} 1 s)")


if __name__ == "__main__":
    main()
