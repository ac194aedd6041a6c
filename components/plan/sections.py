"""The sections of a plan record: what the analysis adds to a plan, under one interface.

After the program ran, ``trainstack.analysis`` judges and estimates the plan: the cost,
the deploy critical path, the IP budget, the EFA pods' huge pages, checkpoint storage sizing, the policies, the
controller models, the Kueue queues, each team's access. Each result is a :class:`Section`: it knows its key in
the record, its data (``as_dict``) and its words (``render``). :class:`Sections` holds them
as typed fields and is the one place they are written into a record (``{**as_dict(), "text":
render()}`` under the key) and read back from one (as :class:`SavedSection`: the data and
the words as the record holds them, so a saved record reads like a planned one).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Optional, Protocol, runtime_checkable


@runtime_checkable
class Section(Protocol):
    """One result of the analysis, as a plan record holds it."""

    @property
    def key(self) -> str:
        """The section's key in the record (``criticalPath``)."""
        ...

    def as_dict(self) -> dict[str, Any]:
        """The section's data, JSON-ready (the record adds ``text``: :meth:`render`)."""
        ...

    def render(self) -> str:
        """The section in words, as ``trainstack plan`` prints it."""
        ...


@dataclass(frozen=True)
class SavedSection:
    """A section read back from a record: its data and its words as they were written."""

    key: str
    body: Mapping[str, Any]
    """The record's object under ``key``, ``text`` included."""

    def as_dict(self) -> dict[str, Any]:
        return {name: value for name, value in self.body.items() if name != "text"}

    def render(self) -> str:
        text = self.body.get("text")
        return text if isinstance(text, str) else ""


RECORD_KEYS = {"cost": "cost", "critical_path": "criticalPath", "ip_budget": "ipBudget",
               "efa_huge_pages": "efaHugePages", "storage": "storage", "policies": "policies",
               "controllers": "controllers", "queues": "queues", "access": "access",
               "device_wait": "deviceWait", "quotas": "quotas", "control_plane": "controlPlane"}
"""Each field of :class:`Sections` and its record key, in the order a record lists them."""


@dataclass
class Sections:
    """The analysis' results on one plan; ``None`` where the plan has none (no EKS: no IP budget)."""

    cost: Optional[Section] = None
    critical_path: Optional[Section] = None
    ip_budget: Optional[Section] = None
    efa_huge_pages: Optional[Section] = None
    storage: Optional[Section] = None
    policies: Optional[Section] = None
    controllers: Optional[Section] = None
    queues: Optional[Section] = None
    access: Optional[Section] = None
    """Each team's access as the plan deploys it (analysis/access_table.py); only on stacks with teams."""
    device_wait: Optional[Section] = None
    """What ``trainstack up`` waits for once deployed (config/device_wait.py); only on stacks that set it."""
    quotas: Optional[Section] = None
    """The AWS quotas the stack's size passes the published default of (config/quotas.py); only on such stacks."""
    control_plane: Optional[Section] = None
    """The control plane's recommended tier (estimate/control_plane.py); only where a tier is set or recommended."""
    unknown: tuple[SavedSection, ...] = field(default_factory=tuple)
    """Sections of a saved record this version does not know, kept so the record reads back whole."""

    def __iter__(self) -> Iterator[Section]:
        """The sections present, in record order."""
        for name in RECORD_KEYS:
            section = getattr(self, name)
            if section is not None:
                yield section
        yield from self.unknown

    def get(self, key: str) -> Optional[Section]:
        """The section under record key ``key``, if the plan has it."""
        return next((section for section in self if section.key == key), None)

    def as_dict(self) -> dict[str, Any]:
        """The sections as the record writes them: each under its key, its words as ``text``."""
        return {section.key: {**section.as_dict(), "text": section.render()} for section in self}

    @classmethod
    def from_record(cls, document: Mapping[str, Any], known: frozenset[str]) -> Sections:
        """The sections of a saved record: every object under a key that is not one of ``known`` (the plan's own)."""
        by_key = {name: SavedSection(name, value) for name, value in document.items()
                  if name not in known and isinstance(value, Mapping)}
        named = {name: by_key.pop(key) for name, key in RECORD_KEYS.items() if key in by_key}
        return cls(**named, unknown=tuple(by_key.values()))

