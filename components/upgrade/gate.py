"""Each step of an upgrade planned offline and judged by the gate against the step before it, as the pull request
that carries it would be (``trainstack diff``): its verdict, its findings (node rolls with the jobs they stop and
how long, version changes, policies), what it does to the monthly cost, and the Kubernetes objects its plan renders
checked against the API of the minor its control plane runs (api_check.py): an object that minor removed or does not
serve closes the step's gate, one it deprecates is said.

Each step's stack file is the one before it changed in place (step_files, stack_file_edit.py): its comments, its
``$schema`` line and every key the step does not set stay as their author wrote them, so the pull request shows the
step's keys alone. The gate plans those very files, so what it judges is what the reviewer reads."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Optional

from ..analysis import plan_stack, review
from ..analysis.gate import Review
from ..plan import Plan, Project
from ..rehearsal.stack_objects import stack_objects
from ..review.render import deltas
from ..stack_file_edit import edited
from .api_check import ApiFinding, static_findings
from .steps import Step, stack_file_minor

CLOSES_THE_GATE = ("removed", "not served")


@dataclass(frozen=True)
class JudgedStep:
    step: Step
    review: Review
    plan: Plan
    rendered: list[dict[str, Any]]
    """The Kubernetes objects the step's plan renders (rehearsal/stack_objects.py), each checked against the control
    plane's API."""
    api_findings: list[ApiFinding]

    @property
    def objects(self) -> int:
        return len(self.rendered)

    @property
    def passed(self) -> bool:
        return self.review.passed and not self.api_blocking

    @property
    def api_minor(self) -> str:
        """The minor whose API the step's objects were checked against: its control plane's."""
        return stack_file_minor(self.step.document)

    @property
    def api_blocking(self) -> list[ApiFinding]:
        return [finding for finding in self.api_findings if finding.verdict in CLOSES_THE_GATE]

    def findings(self, severity: str) -> list[str]:
        return [f"{finding.title}: {finding.detail}" for finding in self.review.findings
                if finding.severity == severity]

    @property
    def monthly_cost_change(self) -> Optional[float]:
        """What the step adds to the monthly cost at desired size (None where a side is unpriced)."""
        change: Optional[float] = deltas(self.review.diff)["costUsdPerMonth"]["desired"]["change"]
        return change


def step_files(text: str, document: dict[str, Any], steps: list[Step], name: str) -> list[str]:
    """Each step's stack file: the file before it changed in place to hold the step's document (the first step's
    ``text``, which holds ``document``). ``name`` names the stack file in errors."""
    files: list[str] = []
    before = document
    for step in steps:
        text = edited(text, before, step.document, name)
        files.append(text)
        before = step.document
    return files


def write_stack_file(directory: Path, stack: str, text: str) -> Path:
    """``text`` as ``Pulumi.<stack>.yaml`` in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"Pulumi.{stack}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def judged_steps(project: Project, stack: str, base: Plan, steps: list[Step],
                 files: list[str]) -> Iterator[JudgedStep]:
    """Each step planned from its stack file (``files``, from step_files) with the project's program and judged
    against the plan before it, in order."""
    before = base
    with tempfile.TemporaryDirectory(prefix="trainstack-upgrade-") as scratch:
        for index, (step, text) in enumerate(zip(steps, files, strict=True)):
            directory = Path(scratch) / str(index)
            write_stack_file(directory, stack, text)
            head = plan_stack(stack, replace(project, stack_config_dir=directory))
            objects = stack_objects(head).apply
            yield JudgedStep(step, review(before, head), head, objects,
                             static_findings(objects, stack_file_minor(step.document)))
            before = head
