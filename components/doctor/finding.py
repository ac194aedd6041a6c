"""What ``trainstack doctor`` says: one finding a line, each with what the plan expected, what the cluster (or
the account) shows, and the fix. The sections produce findings; ``doctor.run`` gathers and prints them.

A leaf module: the sections and the gatherer both import it, and it imports neither."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Section = Literal["cluster", "pending", "fabric", "aws"]
SECTIONS: tuple[Section, ...] = ("cluster", "pending", "fabric", "aws")
"""The four questions, in the order doctor answers them: is the cluster what the plan says; why is a job pending;
is the fabric (EFA) in use; and, with ``--aws``, the account's side."""


@dataclass(frozen=True)
class Finding:
    """One thing that is not as the plan says, with the fix. ``fix`` is a command where one exists."""

    section: Section
    subject: str
    """What it is about, as a user names it: ``node group p5``, ``node ip-10-0-1-2``, ``workload team-a/job-x``."""
    expected: str
    """What the plan record (or the catalog, for an instance type) says should be there."""
    actual: str
    """What doctor read."""
    fix: str

    def line(self) -> str:
        return f"{self.section}: {self.subject}: expected {self.expected}; found {self.actual}. Fix: {self.fix}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class Unreachable(RuntimeError):
    """Doctor cannot read what it must (the API server, a kubeconfig's credentials, the account): exit 2, with
    what was out of reach and why."""
