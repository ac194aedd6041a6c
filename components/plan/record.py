"""The plan record: every registration of a program run, as plain data.

A :class:`Plan` is what later stages read (the tree printer, policy rules, the
cost and critical-path estimates, tests). It holds no Pulumi objects, so it can
be serialized as one versioned JSON document.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, Optional

PLAN_FORMAT_VERSION = 1


@dataclass
class ResourceOptions:
    protect: bool = False
    retain_on_delete: bool = False
    ignore_changes: list[str] = field(default_factory=list)
    replace_on_changes: list[str] = field(default_factory=list)
    delete_before_replace: bool = False
    custom_timeouts: dict[str, str] = field(default_factory=dict)
    depends_on: list[str] = field(default_factory=list)
    """Explicit ``depends_on`` URNs (dependencies not explained by any input)."""
    provider: Optional[str] = None
    """The provider reference, ``<provider urn>::<id>``."""
    additional_secret_outputs: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    import_id: Optional[str] = None


@dataclass
class ResourceRecord:
    urn: str
    type: str
    name: str
    parent: Optional[str]
    custom: bool
    remote: bool
    """A multi-language component (pulumi-eks, helm v4 Chart): its children are invisible offline."""
    inputs: dict[str, Any]
    """Inputs as the engine sees them: camelCase keys, secrets and unknowns marked."""
    outputs: dict[str, Any] = field(default_factory=dict)
    """What the mocks returned (custom resources) or ``register_outputs`` (components)."""
    dependencies: list[str] = field(default_factory=list)
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    options: ResourceOptions = field(default_factory=ResourceOptions)
    id: Optional[str] = None


@dataclass
class Plan:
    project: str
    stack: str
    resources: list[ResourceRecord] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)
    secret_config_keys: list[str] = field(default_factory=list)
    """``secure:`` config values the plan replaced by placeholders."""
    diagnostics: list[dict[str, str]] = field(default_factory=list)
    """Warnings and errors the program logged (``severity``, ``message``)."""
    invokes: list[dict[str, Any]] = field(default_factory=list)
    """Provider functions the program called (token and arguments)."""
    sections: dict[str, Any] = field(default_factory=dict)
    """Results later stages add (policies, cost, critical path), by name."""
    version: int = PLAN_FORMAT_VERSION

    # -- lookups -----------------------------------------------------------
    def by_type(self, type_token: str) -> list[ResourceRecord]:
        return [r for r in self.resources if r.type == type_token]

    def get(self, type_token: str, name: str) -> ResourceRecord:
        for resource in self.resources:
            if resource.type == type_token and resource.name == name:
                return resource
        raise KeyError(f"no {type_token} named {name!r} in the plan of {self.stack}")

    def by_urn(self, urn: str) -> ResourceRecord:
        for resource in self.resources:
            if resource.urn == urn:
                return resource
        raise KeyError(urn)

    def children(self, urn: Optional[str]) -> list[ResourceRecord]:
        return [r for r in self.resources if r.parent == urn]

    def descendants(self, urn: str) -> Iterator[ResourceRecord]:
        for child in self.children(urn):
            yield child
            yield from self.descendants(child.urn)

    def counts(self) -> dict[str, int]:
        tally: dict[str, int] = {}
        for resource in self.resources:
            tally[resource.type] = tally.get(resource.type, 0) + 1
        return dict(sorted(tally.items()))

    # -- serialization -----------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The versioned JSON document (camelCase keys, like the engine's own)."""
        return {
            "formatVersion": self.version,
            "project": self.project,
            "stack": self.stack,
            "resources": [_camel_keys(asdict(r), keep=("inputs", "outputs", "propertyDependencies"))
                          for r in self.resources],
            "outputs": self.outputs,
            "secretConfigKeys": self.secret_config_keys,
            "diagnostics": self.diagnostics,
            "invokes": self.invokes,
            **self.sections,
        }


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _camel_keys(value: dict[str, Any], keep: tuple[str, ...]) -> dict[str, Any]:
    """Rename our own snake_case fields; leave engine property maps (``keep``) untouched."""
    renamed = {}
    for key, item in value.items():
        key = _camel(key)
        renamed[key] = _camel_keys(item, keep) if isinstance(item, dict) and key not in keep else item
    return renamed
