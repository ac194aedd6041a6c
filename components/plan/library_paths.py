"""Paths into the installed trainstack, named in records by what they hold, not where they are.

Pulumi needs a path where the library ships files a provider reads itself: the Kubernetes
provider builds a kustomization from a directory (``addons/operators.py``). That path is where
trainstack happens to be installed (a checkout, a virtualenv's site-packages, relative to the
program's directory), so recorded as given, the same stack planned on a laptop and in CI would
give different records, and the PR diff of a consumer project would report changes that are
not there. The plan records such a value as a stable identifier instead::

    trainstack:addons/kustomize/mpi-operator@sha256:0f3c9a1b2d4e5f60

the path inside the package and a digest of the files under it (names and bytes), so a change
to a shipped overlay still shows in a diff. The path itself is only ever given to the
provider, when the resource is registered; readers of a record that need the files (the
versions model reads an overlay's pinned release) resolve the identifier against the
trainstack they run in.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path, PurePosixPath
from typing import Any, Optional

PACKAGE_ROOT = Path(os.path.realpath(Path(__file__).parents[1]))
"""The installed ``trainstack`` package (``components/`` in a checkout)."""
SCHEME = "trainstack:"
DIGEST = "sha256"
_DIGEST_HEX = 16


def stable(value: str, cwd: str) -> str:
    """``value``, or its identifier when it is a path (absolute, or relative to ``cwd``) into the package."""
    if "/" not in value or PACKAGE_ROOT.name not in value or "\n" in value or "://" in value:
        return value  # cheap refusals first: most strings a plan records are not paths at all
    inside = _inside_package(os.path.realpath(os.path.join(cwd, value)))
    return value if inside is None else f"{SCHEME}{inside}@{DIGEST}:{_digest(inside)}"


def stable_values(value: Any, cwd: str) -> Any:
    """Every string in a property value (dicts and lists walked) through :func:`stable`."""
    if isinstance(value, str):
        return stable(value, cwd)
    if isinstance(value, dict):
        return {key: stable_values(item, cwd) for key, item in value.items()}
    if isinstance(value, list):
        return [stable_values(item, cwd) for item in value]
    return value


def shipped_path(value: str) -> Optional[PurePosixPath]:
    """The path inside the package that a recorded value names: an identifier, or (a record from
    before identifiers) a path through a trainstack tree, read from its ``addons/`` on."""
    if value.startswith(SCHEME):
        return PurePosixPath(value[len(SCHEME):].rpartition("@")[0])
    _, found, tail = PurePosixPath(value).as_posix().partition("/addons/")
    return PurePosixPath("addons", tail) if found else None


def installed(value: str) -> Optional[Path]:
    """The file or directory of this installed trainstack that a recorded value names, if it exists."""
    inside = shipped_path(value)
    path = None if inside is None else PACKAGE_ROOT.joinpath(*inside.parts)
    return path if path is not None and path.exists() else None


def _inside_package(path: str) -> Optional[str]:
    relative = os.path.relpath(path, PACKAGE_ROOT)
    if relative == os.curdir or relative.startswith(os.pardir):
        return None
    return PurePosixPath(*Path(relative).parts).as_posix()


@functools.cache
def _digest(inside: str) -> str:
    """A digest of the file, or of every file under the directory (its posix name, then its bytes)."""
    root = PACKAGE_ROOT.joinpath(*PurePosixPath(inside).parts)
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file()
                                                 and "__pycache__" not in p.parts)
    digest = hashlib.sha256()
    for file in files:
        digest.update(PurePosixPath(*file.relative_to(root).parts).as_posix().encode() + b"\0")
        digest.update(file.read_bytes() + b"\0")
    return digest.hexdigest()[:_DIGEST_HEX]
