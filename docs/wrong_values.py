"""The error a wrong value of a stack-file key gets, for the reference pages: made, not written.

For each key, a value its schema refuses (below a minimum, outside an enum, off a pattern, of another type) is
put into the first shipped stack that has the key's parent, and the stack is validated as ``trainstack plan``
validates it; the page shows the problem reported for that key, as the command prints it. A key no shipped
stack reaches, or one with no value to get wrong (free text, any value), shows none.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any, Optional

import yaml
from trainstack.cli.init import workloads
from trainstack.config import ConfigError, validate_stack_config
from trainstack.config.errors import NAMESPACE

_NO_VALUE = object()


@cache
def _shipped() -> list[dict[str, Any]]:
    """Each shipped stack's trainstack keys, without the namespace, in name order."""
    found = []
    for path in workloads().values():
        config = yaml.safe_load(path.read_text(encoding="utf-8"))["config"]
        found.append({key.split(":", 1)[1]: value for key, value in config.items() if key.startswith(f"{NAMESPACE}:")})
    return found


def wrong_value_error(path: str, field: dict[str, Any]) -> Optional[tuple[Any, str]]:
    """``(wrong value, the error printed for it)`` for the key at reference ``path`` (``nodeGroups[].maxSize``),
    or None."""
    if ".<name>" in path:
        return None
    wrong = wrong_value(field)
    if wrong is _NO_VALUE:
        return None
    steps = path.replace("[]", ".[]").split(".")
    for base in _shipped():
        config = copy.deepcopy(base)
        issue_path = _put(config, steps, wrong)
        if issue_path is None:
            continue
        try:
            validate_stack_config(config)
        except ConfigError as error:
            for issue in error.issues:
                if issue.path == f"{NAMESPACE}:{issue_path}":
                    return wrong, issue.render().removeprefix("  ")
        return None  # accepted (a lax type) or refused elsewhere: nothing to show
    return None


def _put(config: dict[str, Any], steps: list[str], wrong: Any) -> Optional[str]:
    """Set the leaf of ``steps`` to ``wrong`` where every parent exists; the issue path it would be reported at."""
    node: Any = config
    shown = ""
    for step in steps[:-1]:
        if step == "[]":
            if not isinstance(node, list) or not node or not isinstance(node[0], dict):
                return None
            node, shown = node[0], f"{shown}[0]"
        else:
            if not isinstance(node, dict) or not isinstance(node.get(step), (dict, list)):
                return None
            node, shown = node[step], f"{shown}.{step}" if shown else step
    if not isinstance(node, dict):
        return None
    node[steps[-1]] = wrong
    return f"{shown}.{steps[-1]}" if shown else steps[-1]


def wrong_value(field: dict[str, Any]) -> Any:
    """A value the field's schema refuses, or ``_NO_VALUE`` where any value would do."""
    options = [field, *[o for o in field.get("anyOf", []) if o.get("type") != "null"]]
    for option in options:
        if "enum" in option:
            return "not-one-of-these"
        if option.get("type") in ("integer", "number"):
            if "minimum" in option:
                return option["minimum"] - 1
            if "exclusiveMinimum" in option:
                return option["exclusiveMinimum"]
            if "maximum" in option:
                return option["maximum"] + 1
            return "many"
        if option.get("type") == "boolean":
            return "maybe"
        if option.get("type") == "string" and ("pattern" in option or "minLength" in option):
            return "!" if "pattern" in option else ""
    if any(o.get("type") in ("array", "object") or "$ref" in o for o in options):
        return 7
    return _NO_VALUE
