"""Each step of an upgrade planned offline and judged by the gate against the step before it, as the pull request
that carries it would be (``trainstack diff``): its verdict, its findings (node rolls with the jobs they stop and
how long, version changes, policies) and what it does to the monthly cost."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Optional

import yaml

from ..analysis import plan_stack, review
from ..analysis.gate import Review
from ..plan import Plan, Project
from ..review.render import deltas
from .steps import Step


@dataclass(frozen=True)
class JudgedStep:
    step: Step
    review: Review
    plan: Plan

    @property
    def passed(self) -> bool:
        return self.review.passed

    def findings(self, severity: str) -> list[str]:
        return [f"{finding.title}: {finding.detail}" for finding in self.review.findings
                if finding.severity == severity]

    @property
    def monthly_cost_change(self) -> Optional[float]:
        """What the step adds to the monthly cost at desired size (None where a side is unpriced)."""
        change: Optional[float] = deltas(self.review.diff)["costUsdPerMonth"]["desired"]["change"]
        return change


def write_stack_file(directory: Path, stack: str, document: dict[str, Any]) -> Path:
    """``document`` as ``Pulumi.<stack>.yaml`` in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"Pulumi.{stack}.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def judged_steps(project: Project, stack: str, base: Plan, steps: list[Step]) -> Iterator[JudgedStep]:
    """Each step planned with the project's program and judged against the plan before it, in order."""
    before = base
    with tempfile.TemporaryDirectory(prefix="trainstack-upgrade-") as scratch:
        for index, step in enumerate(steps):
            directory = Path(scratch) / str(index)
            write_stack_file(directory, stack, step.document)
            head = plan_stack(stack, replace(project, stack_config_dir=directory))
            yield JudgedStep(step, review(before, head), head)
            before = head
