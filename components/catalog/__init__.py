"""The instance catalog: the one place instance facts live.

A leaf module: data and lookups, importing nothing else of trainstack.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from .efa_node import EFA_HUGEPAGES, EFA_RESOURCE, HUGEPAGES_RESOURCE
from .instances import INSTANCE_TYPES
from .model import (
    HYPERPOD_PREFIX,
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


def get_hyperpod(name: str) -> InstanceType:
    """The entry behind a SageMaker HyperPod type (``ml.p5.48xlarge`` is ``p5.48xlarge``);
    raises :class:`UnknownInstanceTypeError`."""
    return get(name.removeprefix(HYPERPOD_PREFIX))


def find_hyperpod(name: str) -> InstanceType | None:
    """The entry behind a HyperPod type, or an EC2 type by its own name; None if neither is in the catalog."""
    return find(name.removeprefix(HYPERPOD_PREFIX))


def families(entries: Iterable[InstanceType]) -> list[str]:
    """The families of ``entries`` (``p5`` for ``p5.48xlarge``), each once, in catalog order."""
    return list(dict.fromkeys(entry.family for entry in entries))


def family_names(entries: Iterable[InstanceType]) -> list[str]:
    """``entries`` named as shortly as the catalog allows, in catalog order: a family when every
    type of it is among them (``p5``), else the types themselves (``trn1.32xlarge``)."""
    chosen = {entry.name for entry in entries}
    named: list[str] = []
    for entry in INSTANCE_TYPES:
        if entry.name not in chosen:
            continue
        whole = all(t.name in chosen for t in INSTANCE_TYPES if t.family == entry.family)
        name = entry.family if whole else entry.name
        if name not in named:
            named.append(name)
    return named


def hyperpod_names() -> list[str]:
    """``ml.`` types SageMaker HyperPod accepts, among those in the catalog."""
    return [t.hyperpod_name for t in INSTANCE_TYPES if t.hyperpod]


__all__ = [
    "Accelerator", "AcceleratorKind", "Efa", "InstanceType", "Network", "Price", "Source",
    "UnknownFactError", "UnknownInstanceTypeError", "INSTANCE_TYPES",
    "EFA_HUGEPAGES", "EFA_RESOURCE", "HUGEPAGES_RESOURCE",
    "HYPERPOD_PREFIX", "close_matches", "families", "family_names", "find", "find_hyperpod", "get", "get_hyperpod",
    "hyperpod_names", "names",
]
