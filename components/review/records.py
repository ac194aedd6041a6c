"""Reading plan records (``trainstack plan --json``) for comparison and for the report.

A record is checked once, here, against the shape its readers rely on, so that every
later step (the diff, the risk findings, SARIF, the HTML report) may index it without
guarding: a resource is checked against the plan's own :class:`ResourceRecord` and
:class:`ResourceOptions` field types (``trainstack.plan.record``, the one definition of
the format), and the sections the review reads (``policies``, ``cost``,
``criticalPath``) against the shapes the policy report and the estimates write. A
record that does not fit is refused with one line naming the file, the field and what
it holds (cut to a fixed length).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from pathlib import Path
from typing import Any, NotRequired, Optional, TypedDict, Union

from ..boundary import FileProblem, cut, read_json_object, shown_path
from ..plan import PLAN_FORMAT_VERSION
from ..plan.record import ResourceOptions, ResourceRecord
from ..plan.record import _camel as record_key

READABLE_VERSIONS = (1, PLAN_FORMAT_VERSION)
"""Version 1 records (before the canonical order) carry the same fields, less ``stackFile``."""
REWRITE = "write it with `trainstack plan --json`"


class RecordError(FileProblem):
    """A file is not a plan record this version of trainstack can compare (one line, bounded)."""


class _Violation(TypedDict, total=False):
    urn: Optional[str]
    message: str


class _Rule(TypedDict):
    """One rule's result, as ``policy.PolicyReport.as_dict`` writes it."""

    id: str
    enforcement: str
    passed: bool
    """No violation was found."""
    configured: NotRequired[bool]
    """False: a setting the rule needs is unset, so it judged nothing ("not configured"; records since issue 37)."""
    violations: list[_Violation]


class _Policies(TypedDict):
    rules: list[_Rule]
    mandatoryFailures: int
    config: NotRequired[dict[str, Any]]
    """The pack configuration the rules were judged under (records since issue 26)."""


class _CostLine(TypedDict, total=False):
    """One cost line, as the review reads it (records before issue 53 lack the month's figures)."""

    item: str
    kind: str
    desired: float
    max: float
    usdPerHour: Optional[float]
    hoursPerMonth: float
    monthlyUsd: Optional[dict[str, float]]
    capacity: str


class _Cost(TypedDict, total=False):
    """What the review reads of ``estimate.CostEstimate.as_dict``."""

    hourlyUsd: dict[str, float]
    monthlyUsd: dict[str, float]
    complete: bool
    unpriced: list[str]
    lines: list[_CostLine]


class _CriticalPath(TypedDict, total=False):
    minutes: float


class _ControllerFinding(TypedDict):
    """One finding, as ``controllers.Finding`` is written into the record."""

    controller: str
    subject: str
    message: str
    source: str
    severity: str
    urn: NotRequired[Optional[str]]
    """The resource the finding names, where it names one (records from before it lack the key)."""


class _Controllers(TypedDict):
    models: list[str]
    errors: int
    findings: list[_ControllerFinding]


class _Record(TypedDict, total=False):
    stackFile: Optional[str]
    outputs: dict[str, Any]
    secretConfigKeys: list[str]
    diagnostics: list[dict[str, Any]]
    invokes: list[dict[str, Any]]
    policies: _Policies
    cost: _Cost
    criticalPath: _CriticalPath
    controllers: _Controllers


def load_record(path: Path) -> dict[str, Any]:
    """The record in ``path``, checked (:func:`check_record`)."""
    try:
        document = read_json_object(path, "record", REWRITE)
    except FileProblem as problem:
        raise RecordError(str(problem)) from None
    return check_record(document, shown_path(path))


def check_record(document: Any, name: str) -> dict[str, Any]:
    """``document`` if it is a record the review can read; else :class:`RecordError` naming ``name``."""
    if not isinstance(document, dict):
        raise RecordError(f"{name}: a plan record is a JSON object; {REWRITE}")
    if "error" in document and "resources" not in document:
        raise RecordError(f"{name}: the plan that wrote it failed: {cut(document['error'])}")
    version = document.get("formatVersion")
    if type(version) is not int or version not in READABLE_VERSIONS:
        raise RecordError(f"{name}: formatVersion {cut(repr(version))} is not one this trainstack reads "
                          f"({', '.join(map(str, READABLE_VERSIONS))}); plan it again with this version")
    for key, kind in (("project", str), ("stack", str), ("resources", list)):
        if not isinstance(document.get(key), kind):
            raise RecordError(f"{name}: field '{key}' is missing or not a {kind.__name__}")
    problem = _shape_problem(document, _Record, "")
    for index, resource in enumerate(document["resources"]):
        if problem is not None:
            break
        problem = _resource_problem(resource, f"resources[{index}]")
    if problem is not None:
        raise RecordError(f"{name}: {problem}; {REWRITE}")
    return document


def _resource_problem(resource: Any, path: str) -> Optional[str]:
    if not isinstance(resource, dict):
        return f"{path} is {cut(resource)}, not an object"
    missing = [k for k in ("urn", "type", "name", "custom", "inputs") if k not in resource]
    if missing:
        return f"{path} lacks {', '.join(missing)}"
    return _shape_problem(resource, ResourceRecord, path)


def _shape_problem(value: Any, hint: Any, path: str) -> Optional[str]:
    """What in ``value`` breaks ``hint`` (a type, a plan dataclass or a TypedDict), or None."""
    if hint is Any:
        return None
    origin, args = _parts(hint)
    if origin in (Union, types.UnionType):
        if type(value) in args or any(_shape_problem(value, arg, path) is None for arg in args):
            return None
        return _wrong(value, hint, path)
    if origin is list:
        if not isinstance(value, list):
            return _wrong(value, hint, path)
        if args[0] in (str, bool) and all(type(item) is args[0] for item in value):
            return None  # the common case, URN lists, at the speed of a loop
        return next((p for i, item in enumerate(value) if (p := _shape_problem(item, args[0], f"{path}[{i}]"))), None)
    if origin is dict:
        if not isinstance(value, dict):
            return _wrong(value, hint, path)
        if args[1] is Any:  # JSON keys are strings: nothing more to check in a resource's inputs or outputs
            return None
        return next((p for key, item in value.items()
                     if (p := _shape_problem(item, args[1], f"{path}.{cut(key, 40)}"))), None)
    if dataclasses.is_dataclass(hint) or typing.is_typeddict(hint):
        return _fields_problem(value, hint, path)
    if hint is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, hint)
    return None if ok else _wrong(value, hint, path)


def _fields_problem(value: Any, hint: Any, path: str) -> Optional[str]:
    """An object against a plan dataclass (camelCase keys, no others) or a TypedDict (others allowed)."""
    if not isinstance(value, dict):
        return _wrong(value, hint, path)
    fields, required = _fields(hint)
    if dataclasses.is_dataclass(hint):
        unknown = sorted(set(value) - set(fields))
        if unknown:
            return f"{path or 'the record'} has fields no record holds: {cut(', '.join(map(str, unknown)))}"
    missing = sorted(required - set(value))
    if missing:
        return f"{path or 'the record'} lacks {', '.join(missing)}"
    for key, kind in fields.items():
        if key in value:
            problem = _shape_problem(value[key], kind, f"{path}.{key}" if path else key)
            if problem is not None:
                return problem
    return None


@functools.cache
def _parts(hint: Any) -> tuple[Any, tuple[Any, ...]]:
    return typing.get_origin(hint), typing.get_args(hint)


@functools.cache
def _fields(hint: Any) -> tuple[dict[str, Any], frozenset[str]]:
    """A plan dataclass's fields by their record (camelCase) key, or a TypedDict's; and the keys required
    (the dataclasses' own required fields are checked by the caller, as older records lack some)."""
    hints = typing.get_type_hints(hint, include_extras=True)
    if dataclasses.is_dataclass(hint):
        return {record_key(name): (kind if name != "options" else ResourceOptions) for name, kind in hints.items()}, \
            frozenset()
    # Read NotRequired here: with postponed annotations the class's own __required_keys__ misses it.
    optional = {key for key, kind in hints.items() if typing.get_origin(kind) is NotRequired}
    fields = {key: typing.get_args(kind)[0] if key in optional else kind for key, kind in hints.items()}
    return fields, frozenset(set(fields) - optional) if hint.__total__ else frozenset()


def _wrong(value: Any, hint: Any, path: str) -> str:
    return f"{path} is {cut(repr(value))}; a record holds {_describe(hint)} there"


def _describe(hint: Any) -> str:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        return " or ".join(_describe(arg) for arg in args)
    if origin is list:
        return f"a list of {_describe(args[0])}"
    if origin is dict or dataclasses.is_dataclass(hint) or typing.is_typeddict(hint):
        return "an object"
    return {str: "a string", bool: "true or false", int: "a whole number", float: "a number",
            type(None): "null"}.get(hint, str(hint))

