"""Config errors that name the key, the value and the fix.

Pydantic's errors are turned into :class:`ConfigIssue` records whose path is
written the way the user wrote the key (``trainstack:nodeGroups[1].instanceType``).
"""

from __future__ import annotations

import difflib
import re
import types
import typing
from dataclasses import dataclass
from typing import Any

import pulumi
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from ..boundary import SHOWN_MAX, cut
from .base import ConfigValueError

NAMESPACE = "trainstack"

_MISSING = object()
TEXT_SHOWN_MAX = 600
"""Characters of an issue's path, message or fix shown (a value inside a message is not cut there)."""


@dataclass(frozen=True)
class ConfigIssue:
    path: str
    value: Any
    message: str
    fix: str

    def render(self) -> str:
        # Validators write the value into some messages too: those are bounded as well, far
        # above the length of any message a validator writes about a sane value.
        shown = "" if self.value is _MISSING else f" = {cut(repr(self.value))}"
        return (f"  {cut(self.path, TEXT_SHOWN_MAX)}{shown}\n    {cut(self.message, TEXT_SHOWN_MAX)}\n"
                f"    Fix: {cut(self.fix, TEXT_SHOWN_MAX)}")

    def as_dict(self) -> dict:
        return {
            "path": self.path,
            "value": None if self.value is _MISSING else _bounded(self.value),
            "message": self.message,
            "fix": self.fix,
        }


def _bounded(value: Any) -> Any:
    """The value as given when it is short, else its repr cut (an error never echoes a whole file)."""
    shown = repr(value)
    return value if len(shown) <= SHOWN_MAX else cut(shown)


class ConfigError(pulumi.RunError):
    """The stack configuration is invalid. Raised before any resource is registered.

    A ``pulumi.RunError``, so ``pulumi up`` prints the message without a traceback.
    """

    def __init__(self, issues: list[ConfigIssue], source: str = "the stack configuration"):
        self.issues = issues
        self.source = source
        count = f"{len(issues)} problem{'s' if len(issues) != 1 else ''}"
        body = "\n".join(issue.render() for issue in issues)
        super().__init__(f"{source} is invalid ({count}):\n{body}")


def format_path(loc: tuple[str | int, ...], prefix: str = NAMESPACE) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return f"{prefix}:{text}" if prefix else text


def issues_from_validation_error(
    error: ValidationError, root: type[BaseModel], prefix: str = NAMESPACE, at: tuple[str | int, ...] = ()
) -> list[ConfigIssue]:
    """``at``: where the validated block sits under ``prefix`` (``("nodeGroups", 0)`` for a component's first
    group), so that its keys are named ``GpuEksCluster(train):nodeGroups[0].instanceType``."""
    return [_issue(detail, root, prefix, at) for detail in error.errors(include_url=False)]


def _issue(detail: ErrorDetails, root: type[BaseModel], prefix: str, at: tuple[str | int, ...] = ()) -> ConfigIssue:
    loc = tuple(detail["loc"])
    kind = detail["type"]
    value = detail.get("input", _MISSING)
    ctx = detail.get("ctx") or {}
    cause = ctx.get("error")

    if isinstance(cause, ConfigValueError):
        path = loc + cause.path
        shown = cause.value if cause.value is not None else _lookup(value, cause.path)
        return ConfigIssue(format_path(at + path, prefix), shown, cause.message, cause.fix)

    if kind == "extra_forbidden":
        parent = _model_at(root, loc[:-1])
        known = sorted(_aliases(parent)) if parent else []
        return unknown_key(format_path(at + loc, prefix), value, str(loc[-1]), known)

    if kind == "missing":
        parent = _model_at(root, loc[:-1])
        doc = _field_doc(parent, str(loc[-1])) if parent else None
        fix = f"add '{loc[-1]}'" + (f" ({doc})" if doc else "") + "."
        return ConfigIssue(format_path(at + loc, prefix), _MISSING, "this key is required.", fix)

    if kind == "literal_error":
        expected = ctx.get("expected", "")
        return ConfigIssue(format_path(at + loc, prefix), value, "not an allowed value.", f"use one of {expected}.")

    message = detail["msg"].removeprefix("Value error, ")
    key = next((str(part) for part in reversed(at + loc) if isinstance(part, str)), "")
    fix = scalar_fix(kind, value, key) or _generic_fix(kind, ctx)
    return ConfigIssue(format_path(at + loc, prefix), value, message + ".", fix)


def unknown_key(path: str, value: Any, unknown: str, known: list[str]) -> ConfigIssue:
    """A key its mapping does not have (a stack file's block, or a component's Args): the closest known key, and
    every key allowed there."""
    close = difflib.get_close_matches(unknown, known, n=1, cutoff=0.5)
    fix = f"did you mean '{close[0]}'? " if close else ""
    fix += f"Keys allowed here: {', '.join(known)}." if known else "Remove it."
    return ConfigIssue(path, value, f"unknown key '{cut(unknown)}'.", fix)


def _numeral(text: str) -> bool:
    return re.fullmatch(r"\s*[+-]?\d+(\.\d*)?([eE][+-]?\d+)?\s*", text) is not None


def scalar_fix(kind: str, value: Any, key: str = "") -> str | None:
    """What to write where a scalar of another type was given (config.base: scalars are taken as written);
    ``kind`` is pydantic's error type for the scalar the key takes (``int_type``), ``key`` the key's name."""
    if kind == "string_type" and isinstance(value, int | float) and not isinstance(value, bool):
        return _text_fix(key, value)
    if kind in ("int_type", "float_type") and isinstance(value, bool):
        return (f"{str(value).lower()} is a boolean, not a number: write the number itself"
                f"{' (a whole number)' if kind == 'int_type' else ''}.")
    if kind in ("int_type", "float_type") and isinstance(value, str) and _numeral(value):
        return f"write the number without quotes (quoted, {cut(repr(value))} is text)."
    if kind == "int_type" and isinstance(value, float):
        return (f"write {int(value)}, without the decimal point." if value.is_integer()
                else f"write a whole number ({value!r} has a fraction).")
    if kind == "bool_type" and not isinstance(value, bool):
        return "write true or false, without quotes." if isinstance(value, str) else "write true or false."
    return None


def _text_fix(key: str, value: int | float) -> str:
    """A number where text belongs. YAML and Python read an unquoted ``1.30`` as the number 1.3, so the text
    cannot be taken back from the number (the trailing zero is gone): the fix asks for the quotes."""
    written = repr(value)
    if "version" not in key.lower():
        return f'write "{written}" in quotes: this key takes text.'
    if isinstance(value, float) and re.fullmatch(r"\d+\.\d", written):
        # Kubernetes minors since 1.10 have two digits, and 1.30 and 1.3 are the same number: both are named.
        return (f'write "{written}0" in quotes (or "{written}", if that is the version): a version is text, '
                f"and unquoted, {written}0 is the number {written}.")
    return f'write "{written}" in quotes: a version is text, and unquoted it is a number.'


_KINDS = {"int": "a whole number", "float": "a number", "bool": "true or false", "string": "a string",
          "list": "a list", "dict": "a mapping of keys to values", "model": "a mapping of keys to values",
          "literal": "one of the listed values"}


def _generic_fix(kind: str, ctx: dict) -> str:
    if kind.endswith("_type") or kind.endswith("_parsing"):
        wanted = kind.removesuffix("_type").removesuffix("_parsing")
        return f"give {_KINDS.get(wanted, 'a ' + wanted.replace('_', ' '))} here."
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        bound = next(iter(ctx.values()), "")
        words = {"greater_than_equal": "at least", "greater_than": "more than",
                 "less_than_equal": "at most", "less_than": "less than"}
        return f"use a value {words[kind]} {bound}."
    if kind == "string_pattern_mismatch":
        return f"match the pattern {ctx.get('pattern')}."
    if kind in ("too_short", "too_long"):
        return "change the number of entries as the message says."
    return "correct the value as the message says."


def _lookup(value: Any, path: tuple) -> Any:
    for part in path:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            try:
                value = getattr(value, str(part))
            except AttributeError:
                return _MISSING
    return value


def _model_at(root: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    """The model class that validates the mapping at ``loc`` (to list its keys)."""
    current: Any = root
    for part in loc:
        current = _unwrap(current)
        if isinstance(part, int):
            args = typing.get_args(current)
            current = args[0] if args else None
        elif isinstance(current, type) and issubclass(current, BaseModel):
            field = next((f for name, f in current.model_fields.items()
                          if name == part or f.alias == part), None)
            current = field.annotation if field else None
        elif typing.get_origin(current) is dict:
            current = typing.get_args(current)[1]
        else:
            return None
    current = _unwrap(current)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _unwrap(annotation: Any) -> Any:
    """Strip Optional[...] and Annotated[...] to reach the container or model type."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            options = [a for a in typing.get_args(annotation) if a is not type(None)]
            annotation = options[0] if len(options) == 1 else annotation
            if len(options) != 1:
                return annotation
        else:
            return annotation


def _aliases(model: type[BaseModel]) -> list[str]:
    return [f.alias or name for name, f in model.model_fields.items()]


_SENTENCE_END = re.compile(r"(?<=\.)\s+(?=[A-Z`])")
"""Where a docstring's first sentence ends: a full stop before a capital or a ``literal``, so that
"e.g. us-east-1" and "i.e. the zone" stay inside their sentence."""


def _field_doc(model: type[BaseModel], key: str) -> str | None:
    """The field's docstring, first sentence, for a missing key's fix."""
    for name, field in model.model_fields.items():
        if key in (name, field.alias):
            sentence = _SENTENCE_END.split(" ".join((field.description or "").split()), maxsplit=1)[0]
            return sentence.replace("``", "").rstrip(".") or None
    return None


def issue(path: tuple[str | int, ...], value: Any, message: str, fix: str) -> ConfigIssue:
    return ConfigIssue(format_path(path), value, message, fix)
