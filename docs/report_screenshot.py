"""Remake docs/report-dev.png, the README's picture of `trainstack report --stack dev`, with the
headless Chromium the tests use (tests/support/browser.py).

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


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        page_file = Path(directory) / "dev.html"
        subprocess.run([sys.executable, "-m", "trainstack.cli", "report", "--stack", "dev", "--cwd", str(ROOT),
                        "-o", str(page_file)], check=True)
        with chromium() as browser:
            page = browser.new_page()
            page.set_viewport_size({"width": 1280, "height": 900})
            page.goto(page_file.as_uri(), wait_until="load")
            timeline = page.locator("#timeline").bounding_box()
            assert timeline is not None
            # The summary, the top of the graph, and the whole timeline.
            page.screenshot(path=str(ROOT / "docs" / "report-dev.png"), full_page=True,
                            clip={"x": 0, "y": 0, "width": 1280, "height": 640})
            page.screenshot(path=str(ROOT / "docs" / "report-dev-timeline.png"), full_page=True,
                            clip={"x": 0, "y": timeline["y"], "width": 1280, "height": timeline["height"]})


if __name__ == "__main__":
    main()
