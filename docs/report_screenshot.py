"""Remake the README's pictures of `trainstack report --stack fsdp-p5`, with the headless Chromium
the tests use (tests/support/browser.py), in a 1,280 px window:

- docs/report-fsdp-p5.png: the summary and the overview, as the page opens;
- docs/report-fsdp-p5-component.png: the control plane's graph, opened;
- docs/report-fsdp-p5-timeline.png: the timeline by component, the network's steps opened.

    .venv/bin/python docs/report_screenshot.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.browser import chromium  # noqa: E402

STACK = "fsdp-p5"
WIDTH = 1280


def main() -> None:
    docs = ROOT / "docs"
    with tempfile.TemporaryDirectory() as directory:
        page_file = Path(directory) / f"{STACK}.html"
        subprocess.run([sys.executable, "-m", "trainstack.cli", "report", "--stack", STACK, "--cwd", str(ROOT),
                        "-o", str(page_file)], check=True)
        with chromium() as browser:
            page = browser.new_page()
            page.set_viewport_size({"width": WIDTH, "height": 900})
            page.goto(page_file.as_uri(), wait_until="load")
            overview = page.locator("#overview").bounding_box()
            assert overview is not None
            page.screenshot(path=str(docs / f"report-{STACK}.png"), full_page=True,
                            clip={"x": 0, "y": 0, "width": WIDTH, "height": overview["y"] + overview["height"]})
            # Opened as a reader would: select the summary (the overview's box links to it too).
            page.locator("#components details summary", has_text="control plane").click()
            page.locator("#components details[open]").screenshot(path=str(docs / f"report-{STACK}-component.png"))
            page.locator("#timeline details summary", has_text="network").click()
            page.locator("#timeline").screenshot(path=str(docs / f"report-{STACK}-timeline.png"))


if __name__ == "__main__":
    main()
