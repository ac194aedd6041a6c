"""Two plans of one stack compared, the change's risks named, and the pull-request gate judged.

The diff and the findings are the review's (``trainstack.review``); this is the one place
they are put together, so ``trainstack diff``, the HTML report and programs judge alike.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..plan import Plan
from ..review import Finding, PlanDiff, assess, blocking, compare, render_json, render_markdown, render_sarif
from ..review import render_text as render_diff_text
from .records import same_stack

DiffFormat = Literal["text", "markdown", "json", "sarif"]
DIFF_FORMATS: tuple[DiffFormat, ...] = ("text", "markdown", "json", "sarif")


@dataclass(frozen=True)
class Review:
    """What changes from the base to the head, what that risks, and whether the gate lets it merge."""

    diff: PlanDiff
    findings: list[Finding]

    @property
    def blocking(self) -> list[Finding]:
        """The findings that close the gate (a new mandatory failure, unapproved data loss ...)."""
        return blocking(self.findings)

    @property
    def passed(self) -> bool:
        return not self.blocking

    def render(self, output_format: DiffFormat = "text", root: Path = Path(".")) -> str:
        """The review as ``trainstack diff --format`` prints it; ``root``: the project root SARIF's
        locations are relative to."""
        if output_format == "sarif":
            return json.dumps(render_sarif(self.diff, self.findings, root), indent=2)
        renderer = {"text": render_diff_text, "markdown": render_markdown, "json": render_json}[output_format]
        return renderer(self.diff, self.findings)


def review(base: Plan, head: Plan, approvals: Iterable[str] = ()) -> Review:
    """``head`` compared with ``base`` (two plans of the same stack), each URN in ``approvals`` a data loss
    the reviewer accepts."""
    same_stack(base, head)
    diff = compare(base, head)
    return Review(diff, assess(diff, frozenset(approvals)))
