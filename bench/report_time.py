"""How long `trainstack report` takes on a 64-group stack.

Plans the generated stack of tests/support/growth_stack.py (64 p5.48xlarge groups, EFA on) once, then
times, in this process, the page from the saved record (Graphviz's `dot` included) with and
without a base record (the head with every fourth group on p5en.48xlarge); then the whole
`trainstack report RECORD` command in a new process; then the page opened and drawn in
headless Chromium (load, layout, a full-page screenshot); and reports the page's size.

Then the shipped frontier-p5 stack (2,048 p5.48xlarge in eight node groups), held to issue 55's goal:
its report opens in Chromium in under a second. Each run opens the page in a new tab of a running
browser (the browser's own start is not counted) and stops the clock when the overview is on screen:
all its boxes laid out with a size, then two animation frames, so a frame holding them has been
painted. The page's `load` event and first contentful paint, read from the browser's own timeline
(Navigation and Paint Timing), are printed beside it.

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
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.browser import chromium  # noqa: E402
from support.growth_stack import config  # noqa: E402
from support.plan_records import record, save, stack_config  # noqa: E402
from trainstack.analysis import load_record, render_report  # noqa: E402
from trainstack.plan import Plan  # noqa: E402
from trainstack.report.groups import components  # noqa: E402

OPEN_GOAL = 1.0
"""Issue 55: frontier-p5's report opens in Chromium with its overview drawn in under this many seconds."""
OVERVIEW_DRAWN = """boxes => {
    const drawn = [...document.querySelectorAll('#overview svg g.node')].filter(node => {
        const box = node.getBoundingClientRect();
        return box.width > 0 && box.height > 0;
    });
    return drawn.length === boxes;
}"""
PAINTED = "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
BROWSER_TIMES = """() => new Promise(done => {
    const load = performance.getEntriesByType('navigation')[0].loadEventEnd;
    new PerformanceObserver(list => done([load, list.getEntriesByName('first-contentful-paint')[0].startTime]))
        .observe({type: 'paint', buffered: true});
    setTimeout(() => done([load, NaN]), 5000);
})"""
"""The page's load event and first contentful paint, in ms from the navigation's start (the paint entry is
waited for: Chromium may report it after the frame that made the overview visible)."""


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
            frontier_opened(browser, Path(directory), args.runs)


def frontier_opened(browser: Any, directory: Path, runs: int) -> None:
    """frontier-p5's report, made from its record, opened ``runs`` times: seconds to the overview on screen."""
    document = record(directory / "frontier-p5", "frontier-p5", config=stack_config("frontier-p5"))
    start = time.perf_counter()
    page = render_report(load_record(save(directory / "frontier-p5.json", document)))
    made = time.perf_counter() - start
    path = directory / "frontier-p5.html"
    path.write_text(page)
    plan = Plan.from_dict(document)
    boxes = len(components(plan))
    print(f"frontier-p5: {len(plan.cloud_resources)} resources, {boxes} overview boxes, "
          f"{len(page.encode()) / 1e6:.1f} MB, made in {made:.2f} s")
    opened, loads, paints = [], [], []
    for _ in range(runs):
        tab = browser.new_page()
        start = time.perf_counter()
        tab.goto(path.as_uri(), wait_until="commit")
        tab.wait_for_function(OVERVIEW_DRAWN, arg=boxes)
        tab.evaluate(PAINTED)
        opened.append(time.perf_counter() - start)
        load, paint = tab.evaluate(BROWSER_TIMES)
        loads.append(load / 1000)
        paints.append(paint / 1000)
        tab.close()
    median = statistics.median(opened)
    print(f"  overview drawn in headless Chromium: median {median:.2f} s, max {max(opened):.2f} s "
          f"(load event {statistics.median(loads):.2f} s, first contentful paint {statistics.median(paints):.2f} s); "
          f"goal: under {OPEN_GOAL:g} s: {'met' if median < OPEN_GOAL else 'NOT met'}")


if __name__ == "__main__":
    main()
