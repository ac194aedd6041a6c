"""From the provider's inputs back to a stack file's keys.

The provider hands a component its inputs under the TypedDict keys of
``config_types`` (snake_case). The config models are validated from their camelCase
aliases, the keys of a stack file, so that a bad value from any language is refused
with the very message a stack file gets. The walk follows the model's field types, so
only field names are renamed: the keys of a map (``labels``, ``tags``) are the user's
and pass through as they are. A key no field claims passes through too, and the model
refuses it as unknown.

Numbers cross the wire as floats (a protobuf Struct has no integers; Pulumi's SDK 3.272
means to turn them back into ints for integer properties but keeps the float). A whole
float for an integer field becomes the int a stack file would hold, so the model sees
``10``, not ``10.0``, and a refusal reads the same; a fractional one stays as it is and
the model refuses it rather than it being cut.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any

from pulumi.provider.experimental.util import camel_case
from pydantic import BaseModel


def to_config(model: type[BaseModel], inputs: Any) -> Any:
    """``inputs`` (TypedDict keys) as the mapping a stack file would hold for ``model``."""
    if not isinstance(inputs, Mapping):
        return inputs  # not a block: the model says what it expected
    fields = {field.alias or name: field for name, field in model.model_fields.items()}
    config: dict[str, Any] = {}
    for key, value in inputs.items():
        alias = camel_case(key)
        field = fields.get(alias)
        config[alias if field else key] = _value(field.annotation, value) if field else value
    return config


def _value(annotation: Any, value: Any) -> Any:
    """``value`` of a field typed ``annotation``, its nested blocks renamed."""
    if isinstance(value, float) and value.is_integer() and _takes_int(annotation):
        return int(value)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return to_config(annotation, value)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is list and isinstance(value, list):
        return [_value(args[0], item) for item in value]
    if origin is dict and isinstance(value, Mapping):
        return {key: _value(args[1], item) for key, item in value.items()}
    blocks = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
    if origin is not None and blocks:  # Optional[Block]
        return to_config(blocks[0], value)
    return value


def _takes_int(annotation: Any) -> bool:
    """Whether a field typed ``annotation`` holds integers (``int``, ``Literal[1, 2]``, optional or not)."""
    if annotation is int:
        return True
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is typing.Literal:
        return all(type(arg) is int for arg in args)
    return typing.get_origin(annotation) in (typing.Union, types.UnionType) and any(_takes_int(a) for a in args)
