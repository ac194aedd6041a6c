"""The base every config model shares: camelCase keys, unknown keys refused, validators that only check.

Why defaults are properties and validators never assign: docs/adr/0002-config-defaults-on-the-models.md
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class ConfigModel(BaseModel):
    """A block of stack configuration.

    Keys are camelCase in YAML (Pulumi's convention); Python callers may use the
    snake_case field names. A key the model does not know is an error, never
    silently dropped: that is how eksctl lost ``capacityReservationId``.

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
    )


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
