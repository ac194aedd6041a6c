"""Pictures of the docs site as a reader sees it, with the headless Chromium the tests use
(tests/support/browser.py), in a 1,280 px window, from a fresh strict build:

- docs/guide-nemo-on-p4de.png: the NeMo guide, as the page opens;
- docs/stack-file-validation.png: Stack files, what a JSON Schema validator and `trainstack plan` say of a
  broken stack file.

    .venv/bin/python docs/site_screenshots.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.browser import chromium  # noqa: E402

WIDTH = 1280


def main() -> None:
    docs = ROOT / "docs"
    with tempfile.TemporaryDirectory() as directory:
        site = Path(directory) / "site"
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
                       cwd=ROOT, check=True)
        with chromium() as browser:
            page = browser.new_page()
            page.set_viewport_size({"width": WIDTH, "height": 1100})
            page.goto((site / "guides" / "nemo-on-p4de" / "index.html").as_uri(), wait_until="load")
            page.screenshot(path=str(docs / "guide-nemo-on-p4de.png"))
            page.goto((site / "stack-files" / "index.html").as_uri(), wait_until="load")
            # The section's top in page coordinates (a bounding box is relative to the scrolled viewport).
            top = page.evaluate("() => { const h = document.getElementById('what-a-validator-says-of-a-broken-file');"
                                " return h ? h.getBoundingClientRect().top + window.scrollY : null; }")
            assert top is not None, "the stack-files page has no validator section"
            page.screenshot(path=str(docs / "stack-file-validation.png"), full_page=True,
                            clip={"x": 0, "y": top - 16, "width": WIDTH, "height": 820})

if __name__ == "__main__":
    main()
