"""What a controller model says about a stack or a job."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Literal, Optional

from ..outputs import StackOutputs
from ..policy.model import Stack

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Finding:
    """One way a controller would fail (``error``) or misbehave (``warning``) on what was rendered."""

    controller: str
    """The controller modelled, e.g. ``cluster-autoscaler``, ``eks-nodegroup-update``."""
    subject: str
    """What the finding is about: a node group, a job, an instance group, a chart."""
    message: str
    """What the controller would do, and the fix."""
    source: str
    """The controller's file and version (or documentation page) the model follows."""
    severity: Severity = "error"
    urn: Optional[str] = None
    """The URN of the resource the finding is about, where it is one (a node group, a role, a flavor): the
    CrossGuard pack reports the finding against it."""

    def __str__(self) -> str:
        return f"{self.controller}: {self.subject}: {self.message} ({self.source})"


@dataclass(frozen=True)
class Rendered:
    """What the stack-level models judge, built alike from a plan record and from what the Pulumi engine
    hands a CrossGuard stack policy (``analysis.crossguard``)."""

    stack: Stack
    """The resources as a policy sees them (``policy.stack_from_plan`` or ``policy.stack_from_crossguard``)."""
    jobs: Sequence[tuple[str, Any]] = ()
    """``(id, rendered document)`` of the jobs the autoscaler model places."""
    outputs: Optional[StackOutputs] = None
    """The stack's outputs contract (the Kueue capacity check reads its queues)."""
    printed: Sequence[str] = ()
    """The warnings the program printed (the HyperPod chart install the user runs); the plan records them,
    the engine hands a policy pack none."""


@dataclass(frozen=True)
class Report:
    """What the models found on one plan: the ``controllers`` section of a plan record."""

    key: ClassVar[str] = "controllers"
    """Its key in a plan record (a ``plan.Section``)."""

    findings: Sequence[Finding]
    models: Sequence[str]
    """The controllers modelled, in the order they ran."""

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    def as_dict(self) -> dict[str, Any]:
        return {"models": list(self.models), "errors": self.errors, "findings": [asdict(f) for f in self.findings]}

    def render(self) -> str:
        lines = [f"Controller models ({', '.join(self.models)}): "
                 + (f"{self.errors} error(s)" if self.findings else "every model passes")]
        lines += [f"  {f.severity}: {f}" for f in self.findings]
        return "\n".join(lines)
