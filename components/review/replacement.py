"""What a changed input does to a resource: replaced, updated in place, unknown, or the provider decides.

The facts are the resource type's row in ``catalog/resource_types.py`` (its ``replacement``,
with the source of each, ``catalog/replacement_facts.py`` says how they were read). An input
no fact names is never guessed: on a resource that holds data or that running things stand
on (``ResourceType.guarded``) it is "unknown: may replace", which the gate treats as a
replacement it cannot rule out; on any other it is "the provider decides", a note.

Where sources disagree, the resource's own provider governs.
Why: docs/adr/0003-replacement-facts-follow-the-resources-provider.md
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Optional

from ..catalog import resource_types

Effect = Literal["replace", "update", "unknown", "provider decides"]
"""``unknown``: no fact classifies the change of an input of a guarded resource: it may replace it."""


@dataclass(frozen=True)
class Decision:
    effect: Effect
    reason: str


def _covers(fact_path: str, path: str) -> bool:
    return path == fact_path or path.startswith(fact_path + ".")


def decide(type_token: str, path: str, before: Any, after: Any, head_inputs: dict[str, Any],
           whole: bool = False) -> Decision:
    """What a change of input ``path`` (index-free, dot-separated) from ``before`` to ``after`` does.

    ``whole``: anything under ``path`` may change (a value computed from a replaced resource), so a
    replacing path inside it replaces too.
    """
    row = resource_types.find(type_token)
    facts = row.replacement if row else None
    if facts is None:
        return _unclassified(row, type_token, path, f"no replacement facts for {type_token}")
    if whole:
        inside = [fact_path for fact_path in facts.replaces if _covers(path, fact_path)]
        if inside:
            return Decision("replace", f"{inside[0]} cannot change in place ({facts.source_of(inside[0])})")
    for fact_path, condition in facts.conditional.items():
        if _covers(fact_path, path):
            reason = condition(before, after, head_inputs)
            if reason:
                return Decision("replace", f"{reason} ({facts.source_of(fact_path)})")
            return Decision("update", f"{fact_path} updates in place for this change ({facts.source_of(fact_path)})")
    for fact_path in facts.replaces:
        if _covers(fact_path, path):
            return Decision("replace", f"{fact_path} cannot change in place ({facts.source_of(fact_path)})")
    listed = next((fact_path for fact_path in facts.in_place if _covers(fact_path, path)), None)
    if listed is not None or facts.others_in_place:
        source = facts.source_of(listed) if listed is not None else facts.source
        return Decision("update", f"updates in place{': ' + facts.note if facts.note else ''} ({source})")
    return _unclassified(row, type_token, path, f"{path} is not in the facts for {type_token} ({facts.source})")


def _unclassified(row: Optional[resource_types.ResourceType], type_token: str, path: str, why: str) -> Decision:
    """A change no fact classifies: "unknown: may replace" where data or running things are at stake."""
    if row is not None and row.guarded:
        return Decision("unknown", f"unknown: may replace: no replacement fact names `{path}` of {type_token}, "
                                   f"which {row.guarded}; {why}")
    return Decision("provider decides", why)
