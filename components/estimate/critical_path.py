"""How long ``pulumi up`` takes: the longest chain of dependent creations.

The engine creates a resource once everything it depends on exists: its inputs'
resources, explicit ``depends_on``, its provider, and (for a component it depends on)
every resource under that component. Independent work runs side by side, so the
wall time is the longest chain, not the sum, which is shown for comparison.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from ..plan import Plan, ResourceRecord
from .durations import minutes


@dataclass
class CriticalPath:
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


def critical_path(plan: Plan) -> CriticalPath:
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
    def finish(urn: str) -> tuple[float, tuple[str, ...]]:
        record = by_urn[urn]
        start, chain = 0.0, tuple[str, ...]()
        for dependency in sorted(waits_for(record)):  # sorted: ties resolve the same way every run
            done, dependency_chain = finish(dependency)
            if done > start:
                start, chain = done, dependency_chain
        return start + minutes(record), (*chain, urn)

    total, chain = max((finish(r.urn) for r in plan.resources), key=lambda result: result[0])
    serial = sum(minutes(r) for r in plan.resources)
    return CriticalPath(total, serial, [by_urn[u] for u in chain if minutes(by_urn[u]) > 0])
