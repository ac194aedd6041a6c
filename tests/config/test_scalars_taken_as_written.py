"""A value is taken as written, never bent to its key's type: for every shipped stack and every number or
switch of a block it holds, present or not, Hypothesis puts a value of another JSON type there (a boolean
where a number goes, a quoted number, a quoted or numeric switch, a number of seconds where a date and time
goes) and the stack is refused with an issue
naming exactly that key. The oracle is the key's declared type on its model, read here from the field's
annotation, not from the validator."""

import copy
import types
import typing
from datetime import datetime
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel
from trainstack.config import ConfigError, StackConfig, validate_stack_config
from trainstack.config.errors import format_path

REPO = Path(__file__).resolve().parents[2]
SHIPPED = {path.name: {key.split(":", 1)[1]: value for key, value in yaml.safe_load(path.read_text())["config"].items()}
           for path in sorted((REPO / "stacks").glob("Pulumi.*.yaml"))}

WRONG = {
    "int": [True, False, "2", "16"],
    "float": [True, False, "2.5", "10"],
    "bool": ["true", "false", "yes", 1, 0],
    "listed ints": [True, 2.0, "1"],
    "date and time": [1796124600, True, 1.5],
}
"""Values of another type than the key's, as YAML and JSON carry them, for each kind of scalar key."""


def kind_of(annotation):
    """The kind of scalar a field holds (None for anything else), from its annotation alone."""
    options = [a for a in typing.get_args(annotation) if a is not type(None)] \
        if typing.get_origin(annotation) in (typing.Union, types.UnionType) else [annotation]
    if len(options) != 1:
        return None
    (option,) = options
    if option is bool:
        return "bool"
    if option is int:
        return "int"
    if option is float:
        return "float"
    if option is datetime:
        return "date and time"
    if typing.get_origin(option) is typing.Literal and all(type(a) is int for a in typing.get_args(option)):
        return "listed ints"
    return None


def model_of(annotation):
    options = typing.get_args(annotation) or (annotation,)
    return next((a for a in options if isinstance(a, type) and issubclass(a, BaseModel)), None)


def scalar_keys(document, model, path=()):
    """(path, kind) of every scalar key of every block ``document`` holds, whether the block sets it or not,
    and of each entry of a mapping of numbers (``guaranteedNodes``)."""
    for name, field in model.model_fields.items():
        key = field.alias or name
        kind = kind_of(field.annotation)
        if kind:
            yield (*path, key), kind
        value = document.get(key) if isinstance(document, dict) else None
        if value is None:
            continue
        inner = model_of(field.annotation)
        origin, args = typing.get_origin(field.annotation), typing.get_args(field.annotation)
        if inner is not None and isinstance(value, dict):
            yield from scalar_keys(value, inner, (*path, key))
        elif origin is list and args and model_of(args[0]) and isinstance(value, list):
            for index, item in enumerate(value):
                yield from scalar_keys(item, model_of(args[0]), (*path, key, index))
        elif origin is dict and args and kind_of(args[1]) and isinstance(value, dict):
            yield from (((*path, key, entry), kind_of(args[1])) for entry in value)


def put(document, path, value):
    node = document
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


def test_every_shipped_stack_validates_as_written():
    for name, config in SHIPPED.items():
        assert validate_stack_config(config), name


def test_the_generator_reaches_every_kind_of_scalar_key():
    kinds = {kind for config in SHIPPED.values() for _, kind in scalar_keys(config, StackConfig)}
    assert kinds == set(WRONG)


@given(data=st.data())
def test_a_value_of_another_type_is_refused_naming_its_key(data):
    name = data.draw(st.sampled_from(sorted(SHIPPED)), label="stack")
    config = copy.deepcopy(SHIPPED[name])
    path, kind = data.draw(st.sampled_from(sorted(scalar_keys(config, StackConfig), key=str)), label="key")
    wrong = data.draw(st.sampled_from(WRONG[kind]), label="value")
    put(config, path, wrong)
    with pytest.raises(ConfigError) as refused:
        validate_stack_config(config)
    named = [issue for issue in refused.value.issues if issue.path == format_path(path)]
    assert named, f"{format_path(path)} = {wrong!r} was not named: {refused.value}"
    assert named[0].value == wrong
