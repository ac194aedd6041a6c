"""What a changed input does to a resource: replaced, updated in place, or the provider decides.

The facts are the resource type's row in ``catalog/resource_types.py`` (its ``replacement``,
with the source of each, ``catalog/replacement_facts.py`` says how they were read). An input
no row names is reported as "the provider decides", never guessed.

Where sources disagree, the resource's own provider governs.
Why: docs/adr/0003-replacement-facts-follow-the-resources-provider.md
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..catalog import resource_types

Effect = Literal["replace", "update", "provider decides"]


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
        return Decision("provider decides", f"no replacement facts for {type_token}")
    if whole:
        inside = [fact_path for fact_path in facts.replaces if _covers(path, fact_path)]
        if inside:
            return Decision("replace", f"{inside[0]} cannot change in place ({facts.source})")
    for fact_path, condition in facts.conditional.items():
        if _covers(fact_path, path):
            reason = condition(before, after, head_inputs)
            if reason:
                return Decision("replace", f"{reason} ({facts.source})")
            return Decision("update", f"{fact_path} updates in place for this change ({facts.source})")
    for fact_path in facts.replaces:
        if _covers(fact_path, path):
            return Decision("replace", f"{fact_path} cannot change in place ({facts.source})")
    if facts.others_in_place or any(_covers(fact_path, path) for fact_path in facts.in_place):
        return Decision("update", f"updates in place{': ' + facts.note if facts.note else ''} ({facts.source})")
    return Decision("provider decides", f"{path} is not in the facts for {type_token} ({facts.source})")
