"""What a policy rule sees and says.

Rules read resources as the Pulumi engine hands them over: a type token, the
properties (camelCase), ``protect``, the provider's properties, and the URNs
each property depends on. The same view is built from the offline plan's record
and from CrossGuard's ``StackValidationArgs``, so one rule function serves both.
Values a preview does not know yet are skipped, never failed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Optional, cast

from ..names import EKS_CLUSTER, EKS_COMPONENT_CLUSTER, PROFILE_CONFIG

Enforcement = Literal["mandatory", "advisory", "disabled"]



@dataclass(frozen=True)
class Resource:
    type: str
    name: str
    urn: str
    props: dict[str, Any]
    protect: bool = False
    provider: Optional[dict[str, Any]] = None
    """The properties of the resource's provider (region, defaultTags)."""
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    """Property name -> URNs of the resources its value came from."""
    id: Optional[str] = None
    parent: Optional[str] = None
    """The URN of the resource's parent (a component, or the stack)."""
    outputs: dict[str, Any] = field(default_factory=dict)
    """What the resource computed: the record's outputs offline; under the engine, ``props`` themselves
    (``AnalyzeStack`` hands every resource's outputs, which for a component is what it registered)."""

    @property
    def inputs(self) -> dict[str, Any]:
        """The properties under the plan record's name for them (what the estimates read)."""
        return self.props


class Stack:
    """All resources of one stack, with lookups across references."""

    def __init__(self, resources: Iterable[Resource]):
        self.resources = list(resources)
        self._by_urn = {r.urn: r for r in self.resources}

    def of_type(self, *types: str) -> list[Resource]:
        return [r for r in self.resources if r.type in types]

    def referenced(self, resource: Resource, prop: str, *types: str) -> list[Resource]:
        """The resources ``resource.prop`` was computed from, optionally of some types."""
        found = [self._by_urn[u] for u in resource.property_dependencies.get(prop, []) if u in self._by_urn]
        return [r for r in found if not types or r.type in types]

    def referencing(self, target: Resource, prop: str, *types: str) -> list[Resource]:
        """Resources whose ``prop`` was computed from ``target``."""
        return [r for r in self.resources if (not types or r.type in types)
                and target.urn in r.property_dependencies.get(prop, [])]

    def children(self, parent: Resource, *types: str) -> list[Resource]:
        """Resources whose parent is ``parent``, optionally of some types."""
        return [r for r in self.resources if r.parent == parent.urn and (not types or r.type in types)]

    def providers(self) -> Iterator[dict[str, Any]]:
        """Properties of the AWS providers in use (those with a region), each once.

        Told apart by their properties: the engine sends a copy of the provider's
        properties with every resource, so identity says nothing."""
        seen = set()
        for resource in self.resources:
            if resource.provider is None or "region" not in resource.provider:
                continue
            key = json.dumps(resource.provider, sort_keys=True, default=str)
            if key not in seen:
                seen.add(key)
                yield resource.provider

    def profile(self, config: dict) -> Optional[str]:
        """The trainstack profile: from the policy config, else the provider's default tags."""
        if config.get("profile"):
            return str(config["profile"])
        for provider in self.providers():
            tags = default_tags(provider)
            if PROFILE_CONFIG in tags:
                return tags[PROFILE_CONFIG]
        return None


def default_tags(provider: dict[str, Any]) -> dict[str, str]:
    value = provider.get("defaultTags") or {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return dict((value or {}).get("tags") or {})


@dataclass(frozen=True)
class Violation:
    urn: Optional[str]
    message: str


@dataclass(frozen=True)
class Rule:
    id: str
    description: str
    enforcement: Enforcement
    check: Callable[[Stack, dict], Iterable[Violation]]
    config: dict[str, dict] = field(default_factory=dict)
    """JSON schema properties of the rule's settings, with defaults."""
    area: str = "security"
    source: str = ""
    """What AWS behaviour the rule judges by, and where AWS says so (or, for a stance, whose)."""
    needs: tuple[str, ...] = ()
    """Settings the rule judges nothing without (a ceiling, a list of required tags): while one is unset or
    empty the rule's result is "not configured", not "pass"."""

    def settings(self, pack_config: dict) -> dict:
        """Defaults, then stack-wide values (profile, ...), then this rule's own block."""
        own = pack_config[self.id] if isinstance(pack_config.get(self.id), dict) else {}
        merged = {key: schema.get("default") for key, schema in self.config.items()}
        merged.update({k: v for k, v in pack_config.items() if not isinstance(v, dict) and k != "all"})
        merged.update({k: v for k, v in own.items() if k != "enforcementLevel"})
        return merged

    def configured(self, settings: dict) -> bool:
        """Whether ``settings`` (:meth:`settings`) give the rule something to judge."""
        return all(settings.get(name) not in (None, [], "") for name in self.needs)

    def level(self, pack_config: dict) -> Enforcement:
        own = pack_config.get(self.id)
        if isinstance(own, str):
            return cast(Enforcement, own)
        if isinstance(own, dict) and "enforcementLevel" in own:
            return cast(Enforcement, own["enforcementLevel"])
        return cast(Enforcement, pack_config.get("all", self.enforcement))


def eks_components_seen_by_inputs(stack: Stack) -> list[Resource]:
    """pulumi-eks clusters judged by the program's inputs: those whose child cluster is not in view.

    The offline plan sees a remote component as its inputs only. The engine sees its
    children, and the component itself carries its outputs, not its inputs (a Node.js
    component registers none), so there the child ``aws:eks/cluster:Cluster`` is judged."""
    return [c for c in stack.of_type(EKS_COMPONENT_CLUSTER) if not stack.children(c, EKS_CLUSTER)]


UNKNOWN = "[unknown]"
"""How a value a preview does not know yet reads (the offline plan's mark)."""


def is_unknown(value: Any) -> bool:
    return value is None or value == UNKNOWN


def truthy(value: Any) -> bool:
    """Providers pass some booleans as strings ("true")."""
    return value is True or (isinstance(value, str) and value.lower() == "true")
