"""Chromium from the system packages, driven by Playwright (only as a driver: its own browser
downloads are never used; tests/setup-system.sh installs Debian's chromium, or Homebrew's on
macOS). The flags keep a closed network quiet: no first-run, sync, component updates or
background requests.

``python3 tests/support/browser.py`` prints the browser it finds, or exits 1: the setup script
asks it, so the places a browser is looked for are written once."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Optional

# Debian's package is `chromium`, Ubuntu's `chromium-browser`; Homebrew's cask links `chromium`
# onto the PATH, and a Chromium or Chrome app installed by hand sits in /Applications.
COMMANDS = ("chromium", "chromium-browser")
MACOS_APPS = ("/Applications/Chromium.app/Contents/MacOS/Chromium",
              "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome")


def find_chromium() -> Optional[str]:
    """The browser's executable, or None where none is installed."""
    found = next((path for path in map(shutil.which, COMMANDS) if path), None)
    return found or next((app for app in MACOS_APPS if Path(app).is_file()), None)


CHROMIUM = find_chromium() or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@contextmanager
def chromium() -> Iterator[Any]:
    """A browser context with a new empty profile directory."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as profile, sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=FLAGS, viewport={"width": 1280, "height": 900})
        try:
            yield context
        finally:
            context.close()


if __name__ == "__main__":
    browser = find_chromium()
    print(browser or "no Chromium found")
    sys.exit(0 if browser else 1)
