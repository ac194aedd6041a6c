"""Helm values as ``--set`` writes them: ``{"a.b.enabled": False}`` nested as ``{"a": {"b": {"enabled": False}}}``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def nested(dotted: Mapping[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for key, value in dotted.items():
        *path, last = key.split(".")
        level = values
        for part in path:
            level = level.setdefault(part, {})
        level[last] = value
    return values
