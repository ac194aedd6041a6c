"""How long `trainstack report` takes on a 64-group stack.

Plans the generated stack of tests/support/growth_stack.py (64 p5.48xlarge groups, EFA on) once, then
times, in this process, the page from the saved record (Graphviz's `dot` included) with and
without a base record (the head with every fourth group on p5en.48xlarge); then the whole
`trainstack report RECORD` command in a new process; then the page opened and drawn in
headless Chromium (load, layout, a full-page screenshot); and reports the page's size.

    .venv/bin/python bench/report_time.py [--groups 64] [--runs 5]
    .venv/bin/python bench/report_time.py --quick        # 2 groups, 1 run: what CI runs (tests/test_bench.py)

The records are read back as `trainstack report` reads them (``analysis.load_record``: checked, typed).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.browser import chromium  # noqa: E402
from support.growth_stack import config  # noqa: E402
from support.plan_records import record, save  # noqa: E402
from trainstack.analysis import load_record, render_report  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--groups", type=int, default=64)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="2 groups, 1 run: what CI runs")
    args = parser.parse_args()
    if args.quick:
        args.groups, args.runs = 2, 1
    with tempfile.TemporaryDirectory() as directory:
        saved = {side: save(Path(directory) / f"{side}.json",
                            record(Path(directory) / side, "growth", config=config(args.groups, side == "head")))
                 for side in ("base", "head")}
        base, head = load_record(saved["base"]), load_record(saved["head"])
        shown = sum(1 for r in head.resources if (r.custom or r.remote) and not r.type.startswith("pulumi:providers:"))
        print(f"{args.groups} groups: {len(head.resources)} resources in the record, {shown} drawn")
        for label, call in (("report", lambda: render_report(head)),
                            ("report with a base", lambda: render_report(head, base))):
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                page = call()
                times.append(time.perf_counter() - start)
            print(f"  {label:<22} median {statistics.median(times):.2f} s, max {max(times):.2f} s, "
                  f"{len(page.encode()) / 1e6:.1f} MB")
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "trainstack.cli", "report", str(saved["head"]), "-o",
                        str(Path(directory) / "head.html")], check=True)
        print(f"  whole command, new process: {time.perf_counter() - start:.2f} s")
        with chromium() as browser:
            times = []
            for _ in range(args.runs):
                page = browser.new_page()
                start = time.perf_counter()
                page.goto((Path(directory) / "head.html").as_uri(), wait_until="load")
                page.screenshot(full_page=True)
                times.append(time.perf_counter() - start)
                page.close()
            print(f"  opened and drawn in headless Chromium: median {statistics.median(times):.2f} s")


if __name__ == "__main__":
    main()
