"""What a controller model says about a stack or a job."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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

    def __str__(self) -> str:
        return f"{self.controller}: {self.subject}: {self.message} ({self.source})"
