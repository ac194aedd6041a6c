"""List every external link of the docs (the pages under docs/ and README.md) and check each that this machine
can reach. MkDocs' strict build checks the internal links; this checks the rest.

    .venv/bin/python docs/check_links.py            # a line per link: ok, BROKEN, or not checked and why
    .venv/bin/python docs/check_links.py --timeout 3

A link whose host answers with an error (4xx or 5xx, after a GET where HEAD is refused) is broken: exit 1. A link
whose host cannot be reached from here (no DNS, no route, refused, timed out) is reported as not checked, with
the reason, never as passing. Loopback addresses, a scheme alone (``https://``) and templates
(``https://github.com/<org>/...``) are listed as not links.
"""

from __future__ import annotations

import argparse
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Optional

ROOT = Path(__file__).resolve().parent.parent
URL = re.compile(r"https?://[^\s)>`\"'\]]+")
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
USER_AGENT = "trainstack-docs-link-check"
Verdict = Literal["ok", "broken", "not checked", "not a link"]


@dataclass(frozen=True)
class Link:
    url: str
    where: list[str]
    """``path:line`` of each place it appears."""


@dataclass(frozen=True)
class Result:
    link: Link
    verdict: Verdict
    detail: str


def external_links(root: Path = ROOT) -> list[Link]:
    """Every http(s) address in the docs and the README, in code blocks too (a user runs `git clone URL`)."""
    places: dict[str, list[str]] = {}
    for page in sorted([root / "README.md", *(root / "docs").rglob("*.md")]):
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
            for match in URL.finditer(line):
                url = match.group(0).rstrip(".,;:")
                places.setdefault(url, []).append(f"{page.relative_to(root)}:{number}")
    return [Link(url, where) for url, where in sorted(places.items())]


def results(links: list[Link], timeout: float) -> list[Result]:
    """Each link checked, but the loopback addresses and templates the docs show (nothing to check)."""
    return [Result(link, "not a link", "a loopback address, a scheme alone or a template the reader fills in")
            if (urllib.parse.urlsplit(link.url).hostname or "") in (*LOOPBACK, "") or "<" in link.url
            else check(link, timeout) for link in links]


def check(link: Link, timeout: float) -> Result:
    """What the link's host answers: ok, broken (an HTTP error) or not checked (no answer, and why)."""
    status, why = _status(link.url, "HEAD", timeout)
    if status in (403, 405, 501):  # some hosts refuse HEAD; ask as a browser would
        status, why = _status(link.url, "GET", timeout)
    if status is None:
        return Result(link, "not checked", f"unreachable from this machine: {why}")
    if status >= 400:
        return Result(link, "broken", f"HTTP {status}")
    return Result(link, "ok", f"HTTP {status}")


def _status(url: str, method: str, timeout: float) -> tuple[Optional[int], str]:
    request = urllib.request.Request(url, method=method, headers={"User-Agent": USER_AGENT})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return int(answer.status), ""
    except urllib.error.HTTPError as error:
        return int(error.code), ""
    except urllib.error.URLError as error:
        return None, str(error.reason)
    except (TimeoutError, ConnectionError, OSError) as error:
        return None, type(error).__name__


def main(argv: Optional[list[str]] = None) -> int:
    command = argparse.ArgumentParser(prog="python docs/check_links.py", description=__doc__.split("\n\n")[0])
    command.add_argument("--timeout", type=float, default=5.0, help="seconds per request (default 5)")
    args = command.parse_args(argv)
    found = results(external_links(), args.timeout)
    for result in found:
        print(f"{result.verdict:<12} {result.link.url}  ({result.detail}; {', '.join(result.link.where)})")
    counts = {verdict: sum(1 for r in found if r.verdict == verdict)
              for verdict in ("ok", "broken", "not checked", "not a link")}
    print(", ".join(f"{count} {verdict}" for verdict, count in counts.items()), file=sys.stderr)
    return 1 if counts["broken"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
