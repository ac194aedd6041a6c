"""A component's Args checked against its TypedDict before any resource is registered: the keys it requires,
and (config/arg_types.py) no key it does not have and no value of another type.

A program that builds a component directly (``GpuEksCluster("eks", {...})``) gets, for a key it left
out, the error a stack file gets for one: a ``ConfigError`` naming ``GpuEksCluster(eks):vpc_id``, what
the key is and how to fix it, where a plain ``args["vpc_id"]`` would stop the program with a
``KeyError`` half way through registering resources.

Which keys are required is read from the TypedDict itself, so the type (what mypy checks), this check
and the generated API reference (docs/reference/python.md) say the same thing. The Args modules postpone
their annotations (``from __future__ import annotations``), and then typing's ``__required_keys__`` is
decided by the class's ``total`` alone, blind to ``NotRequired[...]`` and ``Required[...]``: the Python
docs say so under ``TypedDict.__optional_keys__`` (the note python/cpython#109547 added; python/cpython#97727
says why: evaluating the annotations when the class is made would break forward references). So where the
written annotation carries either qualifier, it decides.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import textwrap
from collections.abc import Mapping
from typing import Any, ForwardRef

from .arg_types import kind_of, type_issues
from .errors import _MISSING, ConfigError, ConfigIssue

_WRAPPERS = {"Required": True, "NotRequired": False}
"""The qualifiers PEP 655 lets a TypedDict key carry, and whether each makes the key required."""


def required_keys(args_type: type) -> frozenset[str]:
    """The keys a value of the TypedDict ``args_type`` must have."""
    return frozenset(key for key in args_type.__annotations__ if _required(args_type, key))


def check_args(component: str, args_type: type, args: Any, *, under: str = "") -> None:
    """Raise a ``ConfigError`` naming each key of ``args_type`` that ``args`` must have and has not, each key
    ``args_type`` does not have, and each value not of its key's type.

    ``component`` is the component as its errors name it (``GpuEksCluster(eks)``); ``under`` the key that
    holds ``args`` where they are nested (``eks.`` for HyperPodCluster's ``eks``). The TypedDicts nested in
    ``args_type`` are checked for their keys and types here; for the keys they require, by their own call
    (a nested key may be required only with some settings: HyperPod's ``eks`` under EKS orchestration)."""
    check_mapping(component, args, args_type.__name__, f"pass a dict with {args_type.__name__}'s keys: "
                  f"{', '.join(sorted(required_keys(args_type)))}.", under=under)
    issues = type_issues(component, args_type, args, tuple(under.rstrip(".").split(".")) if under else ())
    issues += [ConfigIssue(f"{component}:{under}{key}", _MISSING, "this key is required.", _fix(args_type, key))
               for key in args_type.__annotations__ if _required(args_type, key) and key not in args]
    if issues:
        raise ConfigError(issues, f"{component} arguments")


def check_mapping(component: str, args: Any, args_name: str, fix: str, *, under: str = "") -> None:
    """Raise a ``ConfigError`` where ``args`` are not a mapping of keys (a list, a string, None ...)."""
    if not isinstance(args, Mapping):
        raise ConfigError([ConfigIssue(
            f"{component}:{under.rstrip('.')}" if under else component, args,
            f"the arguments are {kind_of(args)}, not a mapping of {args_name}'s keys.", fix)],
            f"{component} arguments")


def _required(args_type: type, key: str) -> bool:
    written = _written(args_type.__annotations__[key])
    qualifier = written.split("[", 1)[0].removeprefix("typing.") if written is not None else None
    if qualifier in _WRAPPERS:
        return _WRAPPERS[qualifier]
    return key in args_type.__required_keys__  # type: ignore[attr-defined]  # every TypedDict has it


def _written(annotation: Any) -> str | None:
    """The annotation as written, where Python kept it unevaluated (a string, or the ForwardRef a TypedDict
    makes of one); None where it was evaluated, and typing's own key sets are then right."""
    if isinstance(annotation, ForwardRef):
        return annotation.__forward_arg__
    return annotation if isinstance(annotation, str) else None


def _fix(args_type: type, key: str) -> str:
    written = _written(args_type.__annotations__[key])
    shown = f"{key}: {written}" if written is not None else key
    what = _key_doc(args_type, key)
    return f"pass {shown}" + (f" ({what})" if what else "") + "."


def _key_doc(args_type: type, key: str) -> str:
    """The first sentence of the docstring under ``key`` in the TypedDict's source (read only when a key is
    missing); empty where there is none."""
    for klass in args_type.__mro__:
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for field, after in itertools.pairwise(body):
            if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name) and field.target.id == key \
                    and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant) \
                    and isinstance(after.value.value, str):
                text = " ".join(inspect.cleandoc(after.value.value).split("\n\n", 1)[0].split())
                return text.replace("``", "`").rstrip(".")
    return ""
