"""Reading plan records (``trainstack plan --json``) for comparison."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..plan import PLAN_FORMAT_VERSION

READABLE_VERSIONS = (1, PLAN_FORMAT_VERSION)
"""Version 1 records (before the canonical order) carry the same fields, less ``stackFile``."""


class RecordError(ValueError):
    """A file is not a plan record this version of trainstack can compare."""


def load_record(path: Path) -> dict[str, Any]:
    try:
        document = json.loads(path.read_text())
    except OSError as error:
        raise RecordError(f"{path}: cannot read it ({error.strerror or error})") from None
    except ValueError as error:
        raise RecordError(f"{path}: not JSON ({error}); write it with `trainstack plan --json`") from None
    return check_record(document, str(path))


def check_record(document: Any, name: str) -> dict[str, Any]:
    if not isinstance(document, dict):
        raise RecordError(f"{name}: a plan record is a JSON object; write it with `trainstack plan --json`")
    if "error" in document and "resources" not in document:
        raise RecordError(f"{name}: the plan that wrote it failed: {json.dumps(document['error'])}")
    version = document.get("formatVersion")
    if version not in READABLE_VERSIONS:
        raise RecordError(f"{name}: formatVersion {version!r} is not one this trainstack reads "
                          f"({', '.join(map(str, READABLE_VERSIONS))}); plan it again with this version")
    for key, kind in (("project", str), ("stack", str), ("resources", list)):
        if not isinstance(document.get(key), kind):
            raise RecordError(f"{name}: field '{key}' is missing or not a {kind.__name__}")
    for index, resource in enumerate(document["resources"]):
        missing = [k for k in ("urn", "type", "name", "custom", "inputs") if k not in resource]
        if missing:
            raise RecordError(f"{name}: resources[{index}] lacks {', '.join(missing)}")
    return document
