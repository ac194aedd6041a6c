"""A stack file written with each key's meaning beside it, from the config models' own descriptions.

``trainstack init`` writes a workload's stack file this way: the values are a shipped stack's, and the comment
above each ``trainstack:`` key (and each key inside it) is the first sentence of that key's description in the
stack file's JSON Schema (:mod:`trainstack.config.schema`), which is the models' docstring. So the file a user
starts from explains itself with the same words as the reference pages and the editor's hover, and cannot
drift from them.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any, Optional

from ..boundary import dump_yaml
from .schema import stack_file_schema

INDENT = "  "
COMMENT_WIDTH = 110
"""Columns a comment line fills before it wraps (the shipped stacks' lines stop near here)."""


def commented_stack_file(document: dict[str, Any], header: list[str]) -> str:
    """``document`` (a stack file: ``config:`` and Pulumi's other top-level keys) as YAML, after ``header``
    (comment lines, ``#`` included), with each trainstack key's description as a comment above it."""
    schema = stack_file_schema()
    writer = _Writer(schema["$defs"])
    lines = list(header)
    for key, value in document.items():
        node = schema["properties"].get(key)
        writer.field(key, value, node, 0, lines)
    return "\n".join(lines) + "\n"


class _Writer:
    """Block YAML, one key per line, lists of scalars inline; comments from the schema node of each key."""

    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs

    def field(self, key: str, value: Any, node: Optional[dict[str, Any]], depth: int, lines: list[str],
              first: str = "") -> None:
        """``key: value`` at ``depth``; ``first`` is the ``- `` that opens a list item on this key's line."""
        pad = INDENT * depth
        described = self.describe(node)
        lines.extend(_comment(described, pad) if described else [])
        opener = pad[:-len(first)] + first if first else pad
        if isinstance(value, dict) and value:
            lines.append(f"{opener}{_scalar(key)}:")
            self.mapping(value, self.properties(node), depth + 1, lines)
        elif isinstance(value, list) and any(isinstance(item, dict) for item in value):
            lines.append(f"{opener}{_scalar(key)}:")
            items = self.items(node)
            for item in value:
                self.item(item, items, depth + 1, lines)
        else:
            lines.append(f"{opener}{_scalar(key)}: {_scalar(value)}")

    def mapping(self, value: dict[str, Any], properties: dict[str, Any], depth: int, lines: list[str],
                first: str = "") -> None:
        for index, (key, inner) in enumerate(value.items()):
            self.field(key, inner, properties.get(key), depth, lines, first if index == 0 else "")

    def item(self, item: Any, node: Optional[dict[str, Any]], depth: int, lines: list[str]) -> None:
        if isinstance(item, dict) and item:
            # "- " takes the place of the item's indent on its first key's line; the rest line up under it.
            self.mapping(item, self.properties(node), depth + 1, lines, first="- ")
        else:
            lines.append(f"{INDENT * depth}- {_scalar(item)}")

    def describe(self, node: Optional[dict[str, Any]]) -> str:
        """The key's own description, else the description of the model it is (a ``$ref`` alone has none)."""
        if node is None:
            return ""
        if node.get("description"):
            return str(node["description"])
        target = self.resolve(node)
        return str(target.get("description", "")) if target is not node else ""

    def properties(self, node: Optional[dict[str, Any]]) -> dict[str, Any]:
        """The keys of the object ``node`` is, through references and optional (``anyOf`` with null) forms."""
        for candidate in self.forms(node):
            if "properties" in candidate:
                return dict(candidate["properties"])
        return {}

    def items(self, node: Optional[dict[str, Any]]) -> Optional[dict[str, Any]]:
        for candidate in self.forms(node):
            if isinstance(candidate.get("items"), dict):
                return dict(candidate["items"])
        return None

    def forms(self, node: Optional[dict[str, Any]]) -> list[dict[str, Any]]:
        if node is None:
            return []
        target = self.resolve(node)
        branches = [self.resolve(branch) for key in ("anyOf", "oneOf", "allOf") for branch in target.get(key, [])]
        return [target, *branches]

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        reference = node.get("$ref")
        if not isinstance(reference, str):
            return node
        return dict(self.defs.get(reference.rsplit("/", 1)[-1], node))


def _comment(description: str, pad: str) -> list[str]:
    first = _first_sentence(description)
    return [f"{pad}# {line}" for line in textwrap.wrap(first, max(40, COMMENT_WIDTH - len(pad) - 2))]


def _first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    # A sentence ends at ". " followed by a capital or a backtick; "e.g. x" and "v1.34 and" do not end one.
    match = re.search(r"(?<!e\.g)(?<!i\.e)\.\s+(?=[A-Z`(])", flat)
    return flat[:match.start() + 1] if match else flat


def _scalar(value: Any) -> str:
    """One value as YAML that reads back equal: plain where YAML allows, lists of scalars inline."""
    text = dump_yaml(value, default_flow_style=True, width=float("inf"), allow_unicode=True, sort_keys=False)
    return text.removesuffix("\n").removesuffix("\n...")
