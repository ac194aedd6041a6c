"""A component's Args held to their TypedDict: a key it does not have is refused, and a value of another type.

A stack file's blocks are pydantic models with unknown keys refused and scalars taken as written (config/base.py).
A program that builds a component directly passes a TypedDict, which Python never checks: without this, a
misspelled key (``node_group``) was dropped and the cluster made without its GPU groups, a version written as the
number 1.30 reached AWS as 1.3, and a list where a mapping belongs stopped the program with an ``AttributeError``
half way through registering resources. Each is now a ``ConfigIssue`` worded as a stack file's
(``GpuEksCluster(train):node_group``: unknown key, did you mean 'node_groups'?).

The types are the TypedDict's own annotations (what mypy checks, and what the API reference lists), read through
the TypedDicts and dataclasses nested in them (``LustreFileSystemArgs.eks``, ``ClusterAttachment``). A config
block (``settings``) or a list of them (``node_groups``) is checked here for its shape only, a model or a mapping,
a list: the blocks' keys are their model's to judge, in the stack file's words, as the component validates each
block (config.validate).
"""

from __future__ import annotations

import ast
import collections.abc
import dataclasses
import importlib
import inspect
import sys
import types
import typing
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

import pulumi
from pydantic import BaseModel
from pydantic.alias_generators import to_camel

from .errors import ConfigIssue, format_path, scalar_fix, unknown_key

KeyPath = tuple[str | int, ...]
"""Where a key sits in a component's Args: ``("eks", "job_namespaces")``."""

_SCALARS: dict[type, str] = {bool: "bool_type", int: "int_type", float: "float_type", str: "string_type"}
"""The scalars an Args key may take, as pydantic names the error of each (errors.scalar_fix words the fix)."""


def type_issues(component: str, args_type: type, args: Mapping[Any, Any], at: KeyPath = ()) -> list[ConfigIssue]:
    """Each key of ``args`` that the TypedDict ``args_type`` does not have, and each value that is not of its key's
    type, named ``component:key`` (``at``: where ``args`` sit in the component's Args)."""
    hints = hints_of(args_type)
    issues: list[ConfigIssue] = []
    for key, value in args.items():
        if key in hints:
            issues += _issues(component, (*at, _spelled(key, hints[key])), hints[key], value)
        else:
            issues.append(unknown_key(format_path((*at, str(key)), component), value, str(key), sorted(hints)))
    return issues


@cache
def hints_of(holder: type) -> dict[str, Any]:
    """The evaluated annotation of each key of a TypedDict (each field of a dataclass)."""
    try:
        return evaluated(holder)
    except NameError:
        # An annotation names what its module does not import: its keys are still checked, their types not.
        # tests/config/test_arg_types.py evaluates every Args' types, so no released Args comes here.
        return dict.fromkeys(holder.__annotations__, Any)


def evaluated(holder: type) -> dict[str, Any]:
    """``holder``'s annotations evaluated, or a ``NameError``.

    The Args modules postpone their annotations; some name a class imported only for the type checker (an import
    cycle at runtime: ClusterAddonsArgs' cluster), which is imported here, when the component is built; and
    ``pulumi.Input[X]`` is ``Union[X, Awaitable[X], "Output[T]"]``, whose quoted member typing evaluates as
    written, unsubstituted: ``Output`` and ``T`` are given for it (an Output's contents are never checked)."""
    module = sys.modules[holder.__module__]
    names = {"Output": pulumi.Output, "T": Any, **_type_checking_imports(module)}
    return typing.get_type_hints(holder, localns=names)


def understood(annotation: Any) -> bool:
    """Whether the check judges values of this type (else it lets them through: ``_fits``)."""
    origin = typing.get_origin(annotation)
    if annotation is Any or annotation is type(None) or origin is typing.Literal:
        return True
    if origin in (typing.Union, types.UnionType) or isinstance(origin, type):
        return all(understood(inner) for inner in typing.get_args(annotation) if inner is not Ellipsis)
    return origin is None and isinstance(annotation, type)


def _issues(component: str, path: KeyPath, annotation: Any, value: Any) -> list[ConfigIssue]:
    options = _options(annotation)
    fitting = next((option for option in options if _fits(option, value)), None)
    if fitting is None:
        return [_wrong(component, path, annotation, value)]
    origin, items = typing.get_origin(fitting), typing.get_args(fitting)
    if _holds_blocks(fitting) or fitting is Any:
        return []
    if origin in (dict, Mapping, collections.abc.Mapping) and len(items) == 2:
        return [issue for key, inner in value.items()
                for issue in _issues(component, (*path, str(key)), items[1], inner)]
    if origin is tuple and items and items[-1] is not Ellipsis:
        return [issue for index, (inner, kind) in enumerate(zip(value, items, strict=False))
                for issue in _issues(component, (*path, index), kind, inner)]
    if origin in (list, tuple, Sequence, collections.abc.Sequence) and items:
        return [issue for index, inner in enumerate(value)
                for issue in _issues(component, (*path, index), items[0], inner)]
    if typing.is_typeddict(fitting):
        return type_issues(component, fitting, value, path)
    if isinstance(fitting, type) and dataclasses.is_dataclass(fitting):
        hints = hints_of(fitting)
        return [issue for field in dataclasses.fields(fitting)
                for issue in _issues(component, (*path, field.name), hints[field.name], getattr(value, field.name))]
    return []


def _options(annotation: Any) -> tuple[Any, ...]:
    """The types an annotation admits: the members of a union (``pulumi.Input[str]``, ``X | dict``), else itself."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return typing.get_args(annotation)
    return (annotation,)


def _fits(annotation: Any, value: Any) -> bool:
    """Whether ``value`` has the outer shape of ``annotation`` (its contents are checked after)."""
    origin = typing.get_origin(annotation) or annotation
    if annotation is Any:
        return True
    if annotation is type(None):
        return value is None
    if annotation in _SCALARS:
        # Scalars are taken as written, as in a stack file: True is no number, and 2.0 no whole number.
        return type(value) is annotation or (annotation is float and type(value) is int)
    if origin in (list, tuple, Sequence, collections.abc.Sequence):
        return isinstance(value, Sequence) and not isinstance(value, str | bytes)
    if origin in (dict, Mapping, collections.abc.Mapping) or typing.is_typeddict(annotation):
        return isinstance(value, Mapping)
    if origin is collections.abc.Awaitable:
        return inspect.isawaitable(value)
    if origin is typing.Literal:
        return any(type(value) is type(listed) and value == listed for listed in typing.get_args(annotation))
    # A form that is no class (a TypeVar, an unresolved name: not ``understood``) is let through rather than
    # refusing a value the check cannot judge; tests/config/test_arg_types.py keeps every Args' types understood.
    return not isinstance(origin, type) or isinstance(value, origin)


def _holds_blocks(annotation: Any) -> bool:
    """A config block, or a list of them: a model's contents are the model's to judge (config.validate)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_holds_blocks(inner) for inner in typing.get_args(annotation))


def _spelled(key: str, annotation: Any) -> str:
    """The key as its errors name it: a list of config blocks as a stack file spells it (``node_groups`` ->
    ``nodeGroups``), as the component names each block it validates (``GpuEksCluster(train):nodeGroups[0].zone``),
    so that one list has one name in every error about it."""
    lists = [option for option in _options(annotation)
             if typing.get_origin(option) in (list, Sequence, collections.abc.Sequence) and _holds_blocks(option)]
    return to_camel(key) if lists else key


def _wrong(component: str, path: KeyPath, annotation: Any, value: Any) -> ConfigIssue:
    wanted = described(annotation)
    scalar = next((kind for option in _options(annotation) if (kind := _SCALARS.get(option))), None)
    key = next((str(part) for part in reversed(path) if isinstance(part, str)), "")
    fix = (scalar_fix(scalar, value, key) if scalar else None) or f"give {wanted} here."
    return ConfigIssue(format_path(path, component), value, f"this key takes {wanted}, not {kind_of(value)}.", fix)


_WORDS: dict[Any, str] = {str: "a string", int: "a whole number", float: "a number", bool: "true or false",
                          type(None): "None"}


def described(annotation: Any) -> str:
    """What a key of this type takes, in the words of a stack file's errors (errors._KINDS)."""
    options = [option for option in _options(annotation)
               if typing.get_origin(option) is not collections.abc.Awaitable]
    if len(options) > 1:
        # pulumi.Input[T] is T, an awaitable of T or a pulumi.Output of T.
        outputs = [option for option in options if typing.get_origin(option) is pulumi.Output]
        others = " or ".join(described(option) for option in options if option not in outputs)
        return others + (" (or a pulumi.Output of it)" if outputs else "")
    (option,) = options
    origin = typing.get_origin(option) or option
    if option in _WORDS:
        return _WORDS[option]
    if typing.is_typeddict(option):
        return f"a mapping of {option.__name__}'s keys"
    if origin in (list, tuple, Sequence, collections.abc.Sequence):
        return "a list"
    if origin in (dict, Mapping, collections.abc.Mapping):
        return "a mapping of keys to values"
    if origin is pulumi.Output:
        return "a pulumi.Output"
    if isinstance(origin, type):
        where = origin.__module__.split(".")[0]
        name = origin.__qualname__ if where == "trainstack" else f"{where}.{origin.__qualname__}"
        return f"{'an' if name[0] in 'AEIOU' else 'a'} {name}"
    return str(option)


def kind_of(value: Any) -> str:
    """What was given, in the same words (``a list``, ``None``)."""
    for kind in (bool, int, float, str, type(None)):
        if type(value) is kind:
            return _WORDS[kind].replace("true or false", "a boolean")
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, Sequence):
        return "a list"
    name = type(value).__qualname__
    return f"{'an' if name[0] in 'AEIOU' else 'a'} {name}"


def _type_checking_imports(module: types.ModuleType) -> dict[str, Any]:
    """The names a module imports under ``if TYPE_CHECKING:``, imported now (empty where its source is not kept)."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return {}
    names: dict[str, Any] = {}
    for node in tree.body:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            continue
        for statement in node.body:
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    imported = importlib.import_module(alias.name)
                    names[alias.asname or alias.name.split(".")[0]] = (
                        imported if alias.asname else importlib.import_module(alias.name.split(".")[0]))
            elif isinstance(statement, ast.ImportFrom):
                source = "." * statement.level + (statement.module or "")
                imported = importlib.import_module(source, module.__package__)
                for alias in statement.names:
                    names[alias.asname or alias.name] = (
                        getattr(imported, alias.name, None)
                        or importlib.import_module(f"{imported.__name__}.{alias.name}"))
    return names
