"""How long ``pulumi up`` takes: the longest chain of dependent creations.

The engine creates a resource once everything it depends on exists: its inputs'
resources, explicit ``depends_on``, its provider, and (for a component it depends on)
every resource under that component. Independent work runs side by side, so the
wall time is the longest chain, not the sum, which is shown for comparison.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import ClassVar

from ..plan import Plan, ResourceRecord
from .durations import minutes


@dataclass
class CriticalPath:
    key: ClassVar[str] = "criticalPath"
    """Its key in a plan record (a ``plan.Section``)."""

    minutes: float
    serial_minutes: float
    chain: list[ResourceRecord]

    def as_dict(self) -> dict:
        return {"minutes": round(self.minutes, 2), "serialMinutes": round(self.serial_minutes, 2),
                "chain": [{"type": r.type, "name": r.name, "minutes": minutes(r)} for r in self.chain]}

    def render(self) -> str:
        steps = " -> ".join(f"{r.name} ({minutes(r):g} min)" for r in self.chain if minutes(r) >= 0.1)
        return (f"Deploy time (typical): about {self.minutes:.0f} min along {steps}; "
                f"{self.serial_minutes:.0f} min if everything ran one after another.")


@dataclass(frozen=True)
class Slot:
    """When one resource is created in the estimated ``pulumi up``, in minutes from its start."""
    start: float
    end: float


def schedule(plan: Plan) -> dict[str, Slot]:
    """Every resource's earliest start and end (URN to :class:`Slot`): the model the critical path is read from."""
    return {urn: Slot(start, end) for urn, (start, end, _) in _timings(plan).items()}


def critical_path(plan: Plan) -> CriticalPath:
    timings = _timings(plan)
    by_urn = {r.urn: r for r in plan.resources}
    total, chain = 0.0, tuple[str, ...]()
    for record in plan.resources:  # the first of equal ends, in record order, as max() picks
        if not chain or timings[record.urn][1] > total:
            total, chain = timings[record.urn][1], timings[record.urn][2]
    serial = sum(minutes(r) for r in plan.resources)
    return CriticalPath(total, serial, [by_urn[u] for u in chain if minutes(by_urn[u]) > 0])


def _timings(plan: Plan) -> dict[str, tuple[float, float, tuple[str, ...]]]:
    """Per URN: earliest start, end, and the chain of URNs that ends with it (the latest-finishing waits)."""
    by_urn = {r.urn: r for r in plan.resources}
    descendants = {r.urn: [d.urn for d in plan.descendants(r.urn)] for r in plan.resources if not r.custom}

    def waits_for(record: ResourceRecord) -> set[str]:
        urns = set(record.dependencies)
        if record.options.provider:
            urns.add(record.options.provider.rsplit("::", 1)[0])
        expanded = set()
        for urn in urns:
            expanded.add(urn)
            expanded.update(descendants.get(urn, []))
        return {u for u in expanded if u in by_urn and u != record.urn}

    @cache
    def timing(urn: str) -> tuple[float, float, tuple[str, ...]]:
        record = by_urn[urn]
        start, chain = 0.0, tuple[str, ...]()
        for dependency in sorted(waits_for(record)):  # sorted: ties resolve the same way every run
            _, done, dependency_chain = timing(dependency)
            if done > start:
                start, chain = done, dependency_chain
        return start, start + minutes(record), (*chain, urn)

    return {r.urn: timing(r.urn) for r in plan.resources}
