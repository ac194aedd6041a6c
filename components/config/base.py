"""The base every config model shares: camelCase keys, unknown keys refused, scalars taken as written,
validators that only check, and the hand-over of each built block to the checks its caller asks for.

Why defaults are properties and validators never assign: docs/adr/0002-config-defaults-on-the-models.md
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, ModelWrapValidatorHandler, ValidationInfo, field_validator, model_validator
from pydantic.alias_generators import to_camel

CHECKS = "trainstack.checks"
"""The key of the validation context under which a caller passes the function that checks each built block
(``config.validate`` passes ``config.checks.run_checks``)."""


class ConfigModel(BaseModel):
    """A block of stack configuration.

    Keys are camelCase in YAML (Pulumi's convention); Python callers may use the
    snake_case field names. A key the model does not know is an error, never
    silently dropped: that is how eksctl lost ``capacityReservationId``.

    Scalars are taken as written, never bent (pydantic's strict mode): ``maxSize: true`` is not 1,
    ``maxSize: "2"`` is not 2 and ``prometheus: "yes"`` is not true; each is refused naming its key.
    Stack files keep YAML's types on the way to the models: Pulumi passes a structured key as JSON,
    and ``pulumi config set --path`` stores "true"/"false" as booleans and integers as numbers
    (https://www.pulumi.com/docs/iac/cli/commands/pulumi_config_set/); only a top-level key is
    always a string, and those (``profile``, ``region``) are strings. Other languages' numbers cross
    the wire as floats and are made ints where a field takes one (``package/wire.py``). A date and time
    is the one scalar a stack file can only write as text (``_scalars_as_written``).

    A field holds what the user wrote (``None`` where a default is decided later).
    Validators only check: they never assign. A default that depends on other fields
    is a property of the model (``NodeGroupConfig.efa_enabled``,
    ``FsxConfig.per_unit_throughput``); one that depends on the profile is filled into
    the raw configuration before validation (``config.profiles``). Components read
    those and decide nothing themselves.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        extra="forbid",
        use_attribute_docstrings=True,
        strict=True,
    )

    @field_validator("*", mode="before")
    @classmethod
    def _scalars_as_written(cls, value: Any, info: ValidationInfo) -> Any:
        """Where strict mode alone would bend or refuse what a stack file rightly writes.

        A field that lists its numbers (``Literal[1, 2]``) takes exactly those ints: pydantic compares a
        literal by equality even when strict, and ``True == 1`` and ``2.0 == 2`` in Python. A date and
        time (``endsAt``) is ISO 8601 text in a stack file, which strict mode would refuse: the text is
        read here, and anything else (a number of seconds since 1970) is left to strict mode to refuse.
        """
        field = cls.model_fields.get(info.field_name or "")
        if field is None or value is None:
            return value
        listed = _listed_ints(field.annotation)
        if listed and type(value) is not int:
            raise ConfigValueError(f"{_as_written(value)} is not one of the numbers this key takes.",
                                   fix=f"write one of {', '.join(map(str, listed))}.", value=value)
        if isinstance(value, str) and _takes_datetime(field.annotation):
            try:
                return datetime.fromisoformat(value)
            except ValueError:
                raise ConfigValueError(f"'{value}' is not an ISO 8601 date and time.",
                                       fix="write it in UTC as EC2 shows it, e.g. 2026-12-01T11:30:00Z.",
                                       value=value) from None
        return value

    @model_validator(mode="wrap")
    @classmethod
    def _checked(cls, data: Any, handler: ModelWrapValidatorHandler[Self], info: ValidationInfo) -> Self:
        """Hand the built block to the checks its caller passed in the validation context (``CHECKS``).

        A model declares its keys, their types and what one key alone must be; what spans keys, blocks or the
        stack is a check of config/checks/, which names the model (never the reverse). Run here, once the block
        is built and after the blocks inside it, a failing check is reported at the block's key together with
        every other problem of the input, as a model validator's error is. Without the context (``Model(...)``,
        ``Model.model_validate(raw)``) a block is built from its schema alone; so a block built that way and
        handed in is validated again, from what was set on it, with the checks, and kept as it is.
        """
        run: Callable[[ConfigModel], None] | None = (info.context.get(CHECKS) if isinstance(info.context, Mapping)
                                                      else None)
        if run is None:
            return handler(data)
        built_elsewhere = type(data) is cls
        block = handler(data.model_dump(exclude_unset=True) if built_elsewhere else data)
        run(block)
        return data if built_elsewhere else block


def _as_written(value: Any) -> str:
    """``value`` as a stack file writes it (``true``, ``"2"``), where JSON can say it."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _options(annotation: Any) -> tuple[Any, ...]:
    """The types an annotation admits: the members of a union (``Optional[X]``), else itself."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return typing.get_args(annotation)
    return (annotation,)


def _listed_ints(annotation: Any) -> tuple[int, ...]:
    """The ints of a ``Literal`` of ints (optional or not); empty for any other annotation."""
    for option in _options(annotation):
        args = typing.get_args(option)
        if typing.get_origin(option) is typing.Literal and args and all(type(arg) is int for arg in args):
            return args
    return ()


def _takes_datetime(annotation: Any) -> bool:
    return datetime in _options(annotation)


class ConfigValueError(ValueError):
    """A cross-field check failed.

    ``path`` is relative to the model that raised it (for example
    ``("capacity", "zone")``), so the error names the exact key; ``fix`` says
    what to change.
    """

    def __init__(self, message: str, *, fix: str, path: tuple[str | int, ...] = (), value: Any = None):
        self.message = message
        self.fix = fix
        self.path = path
        self.value = value
        super().__init__(f"{message} Fix: {fix}")
