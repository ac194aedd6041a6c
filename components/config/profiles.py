"""What a stack's profile sets where the stack file leaves a key unset.

The profile is a stack-level key, but its defaults land in the blocks below it (the
network's NAT gateways, the cluster's endpoint). They are filled into a copy of the
raw configuration before the blocks are validated, so every block is validated, and
built, with the value it will have; nothing changes a model after validation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

PROFILE_DEFAULTS: dict[str, dict[tuple[str, str], str]] = {
    # One NAT gateway keeps a dev VPC cheap; one per zone keeps production egress through a zone outage.
    # Dev reaches its API server from outside (with an allowlist); production keeps it private.
    "dev": {("network", "natGateways"): "single", ("eks", "endpointAccess"): "publicAndPrivate"},
    "production": {("network", "natGateways"): "perZone", ("eks", "endpointAccess"): "private"},
}


def with_profile_defaults(raw: Any) -> Any:
    """``raw`` with the profile's defaults filled into the blocks that leave them unset: a new
    mapping (the input is not changed). Anything that cannot be read is returned as it is, for
    validation to refuse with the key's path."""
    profile = raw.get("profile") if isinstance(raw, Mapping) else None
    if not isinstance(profile, str) or profile not in PROFILE_DEFAULTS:
        return raw
    resolved = dict(raw)
    for (block, key), value in PROFILE_DEFAULTS[profile].items():
        if block == "network" and _get(raw.get(block), "existingVpc") is not None:
            continue  # an existing VPC brings its own egress
        if raw.get(block) is not None:
            resolved[block] = _with_default(raw[block], key, value)
    return resolved


def _with_default(block: Any, key: str, value: str) -> Any:
    """``block`` (a mapping or a validated model) with ``key`` set to ``value`` where it is unset."""
    name = _snake(key)
    if isinstance(block, BaseModel):
        return block.model_copy(update={name: value}) if getattr(block, name, None) is None else block
    if not isinstance(block, Mapping) or _get(block, key) is not None:
        return block
    # Keys may be written camelCase or snake_case: fill the spelling the block uses.
    return {**block, (name if name in block else key): value}


def _get(block: Any, key: str) -> Any:
    if isinstance(block, BaseModel):
        return getattr(block, _snake(key), None)
    if isinstance(block, Mapping):
        found = block.get(key)
        return found if found is not None else block.get(_snake(key))
    return None


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)
