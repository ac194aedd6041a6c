"""The instance catalog: the one place instance facts live.

A leaf module: data and lookups, importing nothing else of trainstack.
"""

from __future__ import annotations

import difflib

from .efa_node import EFA_HUGEPAGES, EFA_RESOURCE, HUGEPAGES_RESOURCE
from .instances import INSTANCE_TYPES
from .model import (
    Accelerator,
    AcceleratorKind,
    Efa,
    InstanceType,
    Network,
    Price,
    Source,
    UnknownFactError,
)

_BY_NAME: dict[str, InstanceType] = {t.name: t for t in INSTANCE_TYPES}


class UnknownInstanceTypeError(KeyError):
    def __init__(self, name: str):
        self.name = name
        self.close_matches = close_matches(name)
        super().__init__(name)

    def __str__(self) -> str:
        hint = f" Close matches: {', '.join(self.close_matches)}." if self.close_matches else ""
        return f"{self.name!r} is not in the instance catalog.{hint}"


def names() -> list[str]:
    return list(_BY_NAME)


def get(name: str) -> InstanceType:
    """The catalog entry for ``name``; raises :class:`UnknownInstanceTypeError`."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UnknownInstanceTypeError(name) from None


def find(name: str) -> InstanceType | None:
    return _BY_NAME.get(name)


def close_matches(name: str, candidates: list[str] | None = None, limit: int = 4) -> list[str]:
    """Catalog names that look like ``name`` (typos, missing sizes, wrong family letter)."""
    candidates = names() if candidates is None else candidates
    matches = difflib.get_close_matches(name, candidates, n=limit, cutoff=0.6)
    family = name.split(".")[0]
    same_family = [c for c in candidates if c.split(".")[0] == family and c not in matches]
    return (matches + same_family)[:limit]


def hyperpod_names() -> list[str]:
    """``ml.`` types SageMaker HyperPod accepts, among those in the catalog."""
    return [t.hyperpod_name for t in INSTANCE_TYPES if t.hyperpod]


__all__ = [
    "Accelerator", "AcceleratorKind", "Efa", "InstanceType", "Network", "Price", "Source",
    "UnknownFactError", "UnknownInstanceTypeError", "INSTANCE_TYPES",
    "EFA_HUGEPAGES", "EFA_RESOURCE", "HUGEPAGES_RESOURCE",
    "close_matches", "find", "get", "hyperpod_names", "names",
]
