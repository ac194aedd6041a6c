"""What a provider's changed configuration does to the provider and to every resource registered with it.

The facts are the provider's row in the resource-type table (``catalog/provider_config.py`` says where each
was read): the keys for which its ``DiffConfig`` replaces it, and the keys that move its resources while it
stays. The diff (``diff.py``) asks :func:`judge` about each provider whose inputs changed, marks what the
provider does with :func:`own_decision`, and each resource registered with it with :func:`resource_decision`.
A resource is registered with a provider through its ``provider`` option, or, for a remote component whose
children the offline plan does not see, through the providers it hands them (``options.providers``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ..boundary import parse_yaml
from ..catalog import resource_types
from ..catalog.provider_config import STEP_GENERATOR, Move, ProviderConfigFacts
from ..names import PROVIDER_PREFIX
from .replacement import Decision


@dataclass(frozen=True)
class Judgement:
    """What a provider's changed configuration does: the provider is replaced, or its resources move, or neither."""

    facts: ProviderConfigFacts
    replaced_by: list[str]
    """The keys for which the provider's ``DiffConfig`` replaces it."""
    moves: list[tuple[str, Move]]
    """The changed keys that move its resources though the provider itself is updated in place."""
    before: dict[str, Any]
    after: dict[str, Any]


def is_provider(type_token: str) -> bool:
    return type_token.startswith(PROVIDER_PREFIX)


def registered_with(record: dict[str, Any]) -> set[str]:
    """The URNs of the providers a resource is registered with (a reference is ``<urn>::<id>``): its ``provider``;
    for a remote component that names none (pulumi-eks's cluster), the providers it hands its children."""
    options = record.get("options") or {}
    references = [options.get("provider")]
    if record.get("remote") and not options.get("provider"):
        references = list((options.get("providers") or {}).values())
    return {reference.rsplit("::", 1)[0] for reference in references if isinstance(reference, str) and reference}


def label(judgement: Judgement, provider_name: str) -> str:
    """The provider as the diff shows it after the change: what moved it, or that it is replaced."""
    if judgement.replaced_by:
        return f"[{provider_name} replaced]"
    return "[" + provider_name + ": " + ", ".join(
        f"{key} {judgement.after.get(key)}" if move.shows_values else f"{key} changed"
        for key, move in judgement.moves) + "]"


def judge(type_token: str, before: dict[str, Any], after: dict[str, Any]) -> Optional[Judgement]:
    """What changing a provider's inputs from ``before`` to ``after`` does; None for a type no row describes."""
    row = resource_types.find(type_token)
    facts = row.provider_config if row else None
    if facts is None:
        return None
    before, after = _read(before), _read(after)
    changed = sorted(key for key in set(before) | set(after) if before.get(key) != after.get(key))
    replaced_by = facts.replaces(before, after)
    moves = [(key, facts.moves[key]) for key in changed if key in facts.moves and key not in replaced_by]
    return Judgement(facts, replaced_by, moves, before, after)


def _read(inputs: dict[str, Any]) -> dict[str, Any]:
    """The inputs with a kubeconfig's text read into the object it holds (it stays text where it cannot be read)."""
    text = inputs.get("kubeconfig")
    if not isinstance(text, str):
        return dict(inputs)
    read = parse_yaml(text)
    return {**inputs, "kubeconfig": read} if isinstance(read, dict) else dict(inputs)


def own_decision(judgement: Judgement, path: str) -> Decision:
    """What a change of input ``path`` does to the provider itself."""
    key = path.split(".")[0].split("[")[0]
    source = judgement.facts.source
    if key in judgement.replaced_by:
        return Decision("replace", f"its DiffConfig replaces the provider for a change of `{key}` ({source}); "
                                   "the engine then replaces every resource registered with it")
    move = next((move for moved, move in judgement.moves if moved == key), None)
    if move is not None:
        return Decision("update", f"the provider is updated in place ({source}) and {move.what} "
                                  f"({move.source})")
    return Decision("update", f"its DiffConfig replaces nothing for `{key}` ({source})")


def resource_decision(judgement: Judgement, provider_name: str, type_token: str) -> Optional[Decision]:
    """What the provider's change does to a resource of ``type_token`` registered with it (None: nothing)."""
    if judgement.replaced_by:
        return replaced_provider(provider_name, judgement.replaced_by)
    for key, move in judgement.moves:
        if move.scope == "regional" and not judgement.facts.regional(type_token):
            continue
        change = (f"`{key}` {judgement.before.get(key)} -> {judgement.after.get(key)}" if move.shows_values
                  else f"`{key}`")
        return Decision("replace", f"its provider {provider_name} changes {change} and {move.what} ({move.source})")
    return None


def replaced_provider(provider_name: str, keys: list[str]) -> Decision:
    """What a replaced provider does to each resource registered with it: the engine replaces it too."""
    return Decision("replace", f"its provider {provider_name} is replaced ({', '.join(f'`{k}`' for k in keys)}): "
                               f"the engine replaces every resource registered with a replaced provider "
                               f"({STEP_GENERATOR})")
