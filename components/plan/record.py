"""The plan record: every registration of a program run, as plain data.

A :class:`Plan` is what later stages read (the tree printer, policy rules, the
cost and critical-path estimates, the diff, tests). It holds no Pulumi objects, so it
can be serialized as one versioned JSON document.

The document is canonical: the same program and config give the same bytes whatever
``PYTHONHASHSEED`` is or in which order the engine's asynchronous registrations
arrived. Resources come in dependency order (parents, inputs, providers and
``depends_on`` first), the URN breaking ties; every list that is a set (dependencies,
option lists, invokes, diagnostics) is sorted; property maps have sorted keys.

Format versions: 1, the first record (registration order, unsorted lists); 2, the
canonical order above and ``stackFile`` (the stack's config file, relative to the
project root). Readers of version 1 records get the same fields, less ``stackFile``.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, Optional

from ..names import PROVIDER_PREFIX
from .sections import Sections

PLAN_FORMAT_VERSION = 2


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
    providers: dict[str, str] = field(default_factory=dict)
    """A remote component's provider reference per package (``{"aws": "<provider urn>::<id>"}``): the providers its
    children, which the offline plan does not see, are registered with. Empty for any other resource."""
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

    @property
    def holds_cloud_state(self) -> bool:
        """Custom resources and remote components: what ``pulumi up`` creates in the cloud. Providers are
        configuration and local components only group their children; neither is counted as a resource."""
        return (self.custom or self.remote) and not self.type.startswith(PROVIDER_PREFIX)


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
    sections: Sections = field(default_factory=Sections)
    """What the analysis found (cost, critical path, policies ...): see ``plan.sections``."""
    stack_file: Optional[str] = None
    """The stack's config file relative to the project root (``stacks/Pulumi.dev.yaml``), when known."""
    default_region: Optional[str] = None
    """The ``aws:region`` config the program ran with: the region of its default AWS provider, which the
    offline plan does not record as a resource (a program built from the components, no explicit
    provider, prices in it). Written only when set, so records of programs without it are unchanged."""
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

    @property
    def cloud_resources(self) -> list[ResourceRecord]:
        """The plan's resources as trainstack counts them, everywhere it counts them (the plan's text, the
        report): those that hold cloud state (``ResourceRecord.holds_cloud_state``)."""
        return [r for r in self.resources if r.holds_cloud_state]

    def counts(self) -> dict[str, int]:
        tally: dict[str, int] = {}
        for resource in self.resources:
            tally[resource.type] = tally.get(resource.type, 0) + 1
        return dict(sorted(tally.items()))

    # -- canonical order -------------------------------------------------------
    def canonicalize(self) -> None:
        """Put the record in its canonical order (see the module docstring), in place."""
        for resource in self.resources:
            resource.dependencies = sorted(set(resource.dependencies))
            resource.property_dependencies = {key: sorted(set(urns)) for key, urns
                                              in sorted(resource.property_dependencies.items())}
            options = resource.options
            for name in ("ignore_changes", "replace_on_changes", "depends_on", "additional_secret_outputs",
                         "aliases"):
                setattr(options, name, sorted(set(getattr(options, name))))
            options.providers = dict(sorted(options.providers.items()))
        self.resources = dependency_order(self.resources)
        self.secret_config_keys = sorted(set(self.secret_config_keys))
        self.invokes = sorted(self.invokes, key=_canonical_json)
        self.diagnostics = sorted(self.diagnostics, key=_canonical_json)

    # -- serialization -----------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The versioned JSON document (camelCase keys, like the engine's own)."""
        return {
            "formatVersion": self.version,
            "project": self.project,
            "stack": self.stack,
            "stackFile": self.stack_file,
            "resources": [_sorted_maps(_camel_keys(asdict(r), keep=("inputs", "outputs", "propertyDependencies")),
                                       ("inputs", "outputs", "propertyDependencies"))
                          for r in self.resources],
            "outputs": _sorted_keys(self.outputs),
            "secretConfigKeys": self.secret_config_keys,
            "diagnostics": self.diagnostics,
            "invokes": [_sorted_keys(invoke) for invoke in self.invokes],
            **({"defaultRegion": self.default_region} if self.default_region else {}),
            **self.sections.as_dict(),
        }

    @classmethod
    def from_dict(cls, document: dict[str, Any]) -> Plan:
        """A plan back from its JSON document (``to_dict``; a saved ``trainstack plan --json``)."""
        known = frozenset({"formatVersion", "project", "stack", "stackFile", "resources", "outputs", "secretConfigKeys",
                 "diagnostics", "invokes", "defaultRegion"})
        resources = []
        for item in document.get("resources") or []:
            options = ResourceOptions(**{_snake(k): v for k, v in (item.get("options") or {}).items()})
            # A checked record's resource holds urn, type, name, custom and inputs; the rest may be left out.
            fields = {"parent": None, "remote": False, **{_snake(k): v for k, v in item.items() if k != "options"}}
            resources.append(ResourceRecord(**fields, options=options))
        return cls(project=document["project"], stack=document["stack"], resources=resources,
                   outputs=document.get("outputs") or {}, secret_config_keys=document.get("secretConfigKeys") or [],
                   diagnostics=document.get("diagnostics") or [], invokes=document.get("invokes") or [],
                   sections=Sections.from_record(document, known),
                   stack_file=document.get("stackFile"), default_region=document.get("defaultRegion"),
                   version=document.get("formatVersion", 1))


def dependency_order(resources: list[ResourceRecord]) -> list[ResourceRecord]:
    """Resources after everything they wait for (parent, inputs, provider, ``depends_on``), URN breaking ties."""
    by_urn = {r.urn: r for r in resources}
    waits_for: dict[str, set[str]] = {}
    for resource in resources:
        urns = set(resource.dependencies) | set(resource.options.depends_on)
        if resource.parent:
            urns.add(resource.parent)
        if resource.options.provider:
            urns.add(resource.options.provider.rsplit("::", 1)[0])
        waits_for[resource.urn] = {u for u in urns if u in by_urn and u != resource.urn}
    waited_on: dict[str, list[str]] = {urn: [] for urn in by_urn}
    for urn, dependencies in waits_for.items():
        for dependency in dependencies:
            waited_on[dependency].append(urn)
    ready = [urn for urn, dependencies in waits_for.items() if not dependencies]
    heapq.heapify(ready)
    ordered: list[ResourceRecord] = []
    while ready:
        urn = heapq.heappop(ready)
        ordered.append(by_urn[urn])
        for follower in waited_on[urn]:
            waits_for[follower].discard(urn)
            if not waits_for[follower]:
                heapq.heappush(ready, follower)
    # The engine refuses cycles, so nothing is left; if a hand-made record has one, keep it, sorted.
    placed = {r.urn for r in ordered}
    return ordered + sorted((r for r in resources if r.urn not in placed), key=lambda r: r.urn)


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _sorted_keys(value: Any) -> Any:
    """Property maps are unordered in the engine's protocol: sort their keys (list order is kept)."""
    if isinstance(value, dict):
        return {key: _sorted_keys(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted_keys(item) for item in value]
    return value


def _sorted_maps(record: dict[str, Any], maps: tuple[str, ...]) -> dict[str, Any]:
    return {key: _sorted_keys(item) if key in maps else item for key, item in record.items()}


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


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
