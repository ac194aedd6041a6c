"""What changes between two plan records of one stack, resource by resource.

Resources are matched by URN (or by an alias the head declares). A resource only in the
head is created, only in the base deleted; one in both is updated when its inputs or
options differ, and replaced when a changed input cannot change in place (see
``replacement``). A replaced resource gets new outputs (a new id, a new ARN), so the
inputs of other resources computed from it change too: they are followed, which is how
a new file system also replaces the PersistentVolume that names it. A provider's changed configuration is
judged whole (``providers``): a replaced provider replaces every resource registered with it, as the engine
does, and one updated in place may still move them (a new AWS region, another account).

Values the record marks secret are shown as ``[secret]`` on both sides. An input listed in the
head's ``ignoreChanges`` is no change to the resource, as Pulumi leaves it, but the diff keeps it
apart (``PlanDiff.ignored``) so the review can say it is ignored, and ``effective_head`` is the
head as Pulumi would leave the stack: those inputs at the base's values (what the cost deltas read).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

from ..plan import Plan
from . import providers
from .replacement import Decision, Effect, decide

Action = Literal["create", "delete", "replace", "update"]
SECRET = "[secret]"
UNKNOWN = "[unknown]"
_OPTIONS = ("protect", "retainOnDelete", "ignoreChanges", "replaceOnChanges", "deleteBeforeReplace",
            "customTimeouts")
_INDEX = re.compile(r"\[\d+\]")


@dataclass(frozen=True)
class InputChange:
    path: str
    """The input's path, list items by index (``instanceTypes[0]``, ``options.protect`` for options)."""
    before: Any
    after: Any
    effect: Effect
    reason: str
    caused_by: Optional[str] = None
    """The URN of the replaced resource whose new outputs change this input."""


@dataclass
class ResourceChange:
    urn: str
    type: str
    name: str
    action: Action
    inputs: list[InputChange] = field(default_factory=list)
    base: Optional[dict[str, Any]] = None
    head: Optional[dict[str, Any]] = None

    @property
    def provider_decides(self) -> list[InputChange]:
        return [c for c in self.inputs if c.effect == "provider decides"]

    @property
    def unknown(self) -> list[InputChange]:
        """Inputs of a guarded resource no fact classifies: each may replace it."""
        return [c for c in self.inputs if c.effect == "unknown"]

    @property
    def replaced_by(self) -> list[InputChange]:
        return [c for c in self.inputs if c.effect == "replace"]

    def option(self, name: str, side: str = "base") -> Any:
        record = self.base if side == "base" else self.head
        return ((record or {}).get("options") or {}).get(name)


@dataclass(frozen=True)
class PolicyFailure:
    rule: str
    enforcement: str
    urn: Optional[str]
    message: str


@dataclass(frozen=True)
class IgnoredChange:
    """A changed input the head's ``ignoreChanges`` names: Pulumi leaves the running resource as it is."""
    urn: str
    type: str
    name: str
    path: str
    before: Any
    after: Any


@dataclass
class PlanDiff:
    project: str
    stack: str
    stack_file: Optional[str]
    changes: list[ResourceChange]
    base: dict[str, Any]
    head: dict[str, Any]
    """The two records as JSON documents (``Plan.to_dict``): what the resource walks read."""
    base_plan: Plan
    head_plan: Plan
    new_failures: list[PolicyFailure] = field(default_factory=list)
    fixed_failures: list[PolicyFailure] = field(default_factory=list)
    ignored: list[IgnoredChange] = field(default_factory=list)
    effective_head: Optional[dict[str, Any]] = None
    """The head with each ignored input at its base value (None when nothing is ignored)."""

    def of(self, action: Action) -> list[ResourceChange]:
        return [c for c in self.changes if c.action == action]

    @property
    def empty(self) -> bool:
        return not self.changes and not self.new_failures and not self.fixed_failures and not self.ignored

    def section(self, key: str, side: str) -> Optional[dict[str, Any]]:
        """The data of ``side``'s section under record key ``key`` (``criticalPath``), None where it has none."""
        section = (self.base_plan if side == "base" else self.head_plan).sections.get(key)
        return None if section is None else section.as_dict()


def compare(base_plan: Plan, head_plan: Plan) -> PlanDiff:
    """The diff of two plans of the same stack (planned now, or read back from checked records)."""
    base, head = base_plan.to_dict(), head_plan.to_dict()
    base_resources = {r["urn"]: r for r in base["resources"] if _has_state(r)}
    head_resources = {r["urn"]: r for r in head["resources"] if _has_state(r)}
    renamed = {alias: r["urn"] for r in head_resources.values()
               for alias in (r.get("options") or {}).get("aliases") or [] if alias in base_resources}
    changes: dict[str, ResourceChange] = {}
    ignored: list[IgnoredChange] = []
    for urn, record in head_resources.items():
        previous = next((base_resources[a] for a, h in renamed.items() if h == urn), base_resources.get(urn))
        if previous is None:
            changes[urn] = ResourceChange(urn, record["type"], record["name"], "create", head=record)
            continue
        inputs = _input_changes(previous, record)
        ignored += [IgnoredChange(urn, record["type"], record["name"], path, before, after)
                    for path, before, after in _ignored_changes(previous, record)]
        if inputs:
            action: Action = "replace" if any(c.effect == "replace" for c in inputs) else "update"
            changes[urn] = ResourceChange(urn, record["type"], record["name"], action, inputs, previous, record)
    for urn, record in base_resources.items():
        if urn not in head_resources and urn not in renamed:
            changes[urn] = ResourceChange(urn, record["type"], record["name"], "delete", base=record)
    _move_with_providers(changes, base_resources, head_resources)
    _follow_replacements(changes, base_resources, head_resources)
    new, fixed = _policy_delta(base_plan, head_plan)
    return PlanDiff(project=head["project"], stack=head["stack"], stack_file=head.get("stackFile"),
                    changes=[changes[urn] for urn in sorted(changes)], base=base, head=head,
                    base_plan=base_plan, head_plan=head_plan, new_failures=new, fixed_failures=fixed, ignored=ignored,
                    effective_head=_effective_head(head, base_resources, ignored) if ignored else None)


def _has_state(record: dict[str, Any]) -> bool:
    """Custom resources and remote components hold cloud state; local components only group them."""
    return bool(record.get("custom") or record.get("remote"))


def _ignored_changes(base: dict[str, Any], head: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    ignored = (head.get("options") or {}).get("ignoreChanges") or []
    if not ignored:
        return []
    return [(path, before, after) for path, before, after
            in changed_values(base.get("inputs") or {}, head.get("inputs") or {}) if _under(path, ignored)]


def _effective_head(head: dict[str, Any], base: dict[str, dict[str, Any]],
                    ignored: list[IgnoredChange]) -> dict[str, Any]:
    """The head record as Pulumi would leave the stack: each ignored input at the base's value."""
    urns = {item.urn for item in ignored}
    resources = []
    for record in head["resources"]:
        if record.get("urn") in urns:
            record = {**record, "inputs": _with_ignored_from(record, base[record["urn"]])}
        resources.append(record)
    return {**head, "resources": resources}


def _with_ignored_from(head: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    inputs = copy.deepcopy(head.get("inputs") or {})
    for path in (head.get("options") or {}).get("ignoreChanges") or []:
        if "[" in path or "*" in path:
            continue  # list items and wildcards: the record's inputs stay as the head has them
        keys = path.split(".")
        source: Any = base.get("inputs") or {}
        for key in keys:
            source = source.get(key) if isinstance(source, dict) else None
        target = inputs
        for key in keys[:-1]:
            target = target.setdefault(key, {}) if isinstance(target, dict) else None
        if isinstance(target, dict):
            if source is None:
                target.pop(keys[-1], None)
            else:
                target[keys[-1]] = copy.deepcopy(source)
    return inputs


def _input_changes(base: dict[str, Any], head: dict[str, Any]) -> list[InputChange]:
    head_options = head.get("options") or {}
    ignored = [p for p in head_options.get("ignoreChanges") or []]
    forced = [p for p in head_options.get("replaceOnChanges") or []]
    changes = []
    # A provider's inputs are its configuration, judged whole: its DiffConfig reads them together.
    judgement = providers.judge(head["type"], base.get("inputs") or {}, head.get("inputs") or {}) \
        if providers.is_provider(head["type"]) else None
    for path, before, after in changed_values(base.get("inputs") or {}, head.get("inputs") or {}):
        if _under(path, ignored):
            continue
        if SECRET in (before, after):
            before = after = SECRET
        plain = _INDEX.sub("", path)
        decision = providers.own_decision(judgement, plain) if judgement is not None else \
            decide(head["type"], plain, before, after, head.get("inputs") or {})
        if _under(path, forced) or _under(plain, forced):
            decision = Decision("replace", "the resource's replaceOnChanges option names this input")
        if UNKNOWN in (before, after) and decision.effect == "replace":
            decision = Decision("replace", f"may replace: the value is known only at deploy; {decision.reason}")
        changes.append(InputChange(path, before, after, decision.effect, decision.reason))
    base_options = base.get("options") or {}
    for option in _OPTIONS:
        before, after = base_options.get(option), head_options.get(option)
        if before != after and (before or after):
            changes.append(InputChange(f"options.{option}", before, after,
                                       "update", "a resource option: changes Pulumi's state, not the cloud"))
    return changes


def _move_with_providers(changes: dict[str, ResourceChange], base: dict[str, dict[str, Any]],
                         head: dict[str, dict[str, Any]]) -> None:
    """Resources whose provider, updated in place, moves them (a new AWS region, another account): each replaced,
    as ``providers`` says. A replaced provider's resources are replaced as it is followed."""
    for provider_urn, change in list(changes.items()):
        if change.action != "update" or not providers.is_provider(change.type):
            continue
        judgement = providers.judge(change.type, base[provider_urn].get("inputs") or {},
                                    head[provider_urn].get("inputs") or {})
        if judgement is None or not judgement.moves:
            continue
        for urn, record in head.items():
            decision = providers.resource_decision(judgement, change.name, record["type"]) \
                if urn in base and provider_urn in providers.registered_with(record) else None
            if decision is not None:
                _replace_with_provider(changes, base, record, provider_urn, decision,
                                       providers.label(judgement, change.name))


def _replace_with_provider(changes: dict[str, ResourceChange], base: dict[str, dict[str, Any]],
                           record: dict[str, Any], provider_urn: str, decision: Decision, shown: str) -> bool:
    """``record`` replaced because of its provider (``decision`` says why); True when that newly replaces it."""
    urn = record["urn"]
    change = changes.get(urn)
    if change is not None and (change.action in ("create", "delete")
                               or any(c.caused_by == provider_urn and c.path == "provider" for c in change.inputs)):
        return False
    name = provider_urn.rsplit("::", 1)[-1]
    if change is None:
        change = changes[urn] = ResourceChange(urn, record["type"], record["name"], "update", [], base[urn], record)
    change.inputs.append(InputChange("provider", name, shown, decision.effect, decision.reason,
                                     caused_by=provider_urn))
    newly = change.action != "replace"
    change.action = "replace"
    return newly


def _replace_registered(changes: dict[str, ResourceChange], base: dict[str, dict[str, Any]],
                        head: dict[str, dict[str, Any]], provider_urn: str) -> list[str]:
    """A replaced provider's resources, each replaced (the engine's rule); the URNs newly replaced."""
    keys = [c.path.split(".")[0] for c in changes[provider_urn].replaced_by] or ["provider"]
    decision = providers.replaced_provider(provider_urn.rsplit("::", 1)[-1], list(dict.fromkeys(keys)))
    return [urn for urn, record in head.items()
            if urn in base and provider_urn in providers.registered_with(record)
            and _replace_with_provider(changes, base, record, provider_urn, decision,
                                       f"[{provider_urn.rsplit('::', 1)[-1]} replaced]")]


def _follow_replacements(changes: dict[str, ResourceChange], base: dict[str, dict[str, Any]],
                         head: dict[str, dict[str, Any]]) -> None:
    """Inputs computed from a replaced resource change too (new id, new ARN); follow them to a fixpoint. The
    resources registered with a replaced provider are replaced with it."""
    pending = [urn for urn, change in changes.items() if change.action == "replace"]
    while pending:
        replaced = pending.pop(0)
        if providers.is_provider(changes[replaced].type) and replaced in base:
            pending += _replace_registered(changes, base, head, replaced)
        for urn, record in head.items():
            if urn not in base or urn == replaced:
                continue
            change = changes.get(urn)
            if change is not None and change.action in ("create", "delete"):
                continue
            for prop, sources in sorted((record.get("propertyDependencies") or {}).items()):
                if replaced not in sources:
                    continue
                if change is not None and any(c.caused_by == replaced and c.path == prop for c in change.inputs):
                    continue
                decision = _followed(record, base[urn], prop)
                name = replaced.rsplit("::", 1)[-1]
                reason = f"computed from {name}, which is replaced; {decision.reason}"
                follow = InputChange(prop, _display((base[urn].get("inputs") or {}).get(prop)),
                                     f"[new value after {name} is replaced]", decision.effect, reason,
                                     caused_by=replaced)
                if change is None:
                    change = changes[urn] = ResourceChange(urn, record["type"], record["name"], "update", [],
                                                           base[urn], record)
                change.inputs.append(follow)
                if decision.effect == "replace" and change.action != "replace":
                    change.action = "replace"
                    pending.append(urn)


def _followed(record: dict[str, Any], base: dict[str, Any], prop: str) -> Decision:
    """What input ``prop`` of ``record``, computed from a replaced resource, does once its new value is unknown."""
    before = (base.get("inputs") or {}).get(prop)
    if providers.is_provider(record["type"]):
        judgement = providers.judge(record["type"], base.get("inputs") or {},
                                    {**(record.get("inputs") or {}), prop: UNKNOWN})
        if judgement is not None:
            return providers.own_decision(judgement, prop)
    return decide(record["type"], prop, before, UNKNOWN, record.get("inputs") or {}, whole=True)


def changed_values(before: Any, after: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """(path, before, after) of each changed value: maps and lists are walked together, an item or key
    present on one side only is one change (``None`` on the other side)."""
    if before == after:
        return []
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in sorted(set(before) | set(after)):
            found += changed_values(before.get(key), after.get(key), f"{path}.{key}" if path else str(key))
        return found
    if isinstance(before, list) and isinstance(after, list) and before and after:
        found = []
        for index in range(max(len(before), len(after))):
            found += changed_values(before[index] if index < len(before) else None,
                                    after[index] if index < len(after) else None, f"{path}[{index}]")
        return found
    return [(path, before, after)]


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Leaves of nested inputs by path: ``{"a": {"b": [1]}}`` -> ``{"a.b[0]": 1}``; empty containers are leaves."""
    if isinstance(value, dict) and value:
        leaves: dict[str, Any] = {}
        for key, item in value.items():
            leaves.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return leaves
    if isinstance(value, list) and value:
        leaves = {}
        for index, item in enumerate(value):
            leaves.update(flatten(item, f"{prefix}[{index}]"))
        return leaves
    return {prefix: value} if prefix else {}


def _under(path: str, prefixes: list[str]) -> bool:
    return any(path == p or path.startswith(p + ".") or path.startswith(p + "[") for p in prefixes)


def _display(value: Any) -> Any:
    return SECRET if value == SECRET else value


def _failures(plan: Plan) -> dict[tuple[str, Optional[str]], PolicyFailure]:
    failures: dict[tuple[str, Optional[str]], PolicyFailure] = {}
    policies, controllers = plan.sections.policies, plan.sections.controllers
    for rule in ((policies.as_dict() if policies else {}).get("rules") or []):
        if rule.get("enforcement") == "disabled":
            continue
        for violation in rule.get("violations") or []:
            key = (rule["id"], violation.get("urn"))
            failures.setdefault(key, PolicyFailure(rule["id"], rule.get("enforcement", "mandatory"),
                                                   violation.get("urn"), violation.get("message", "")))
    # A controller model's error fails `trainstack plan` like a mandatory policy, so the gate treats a
    # new one the same way: the stack would plan and then stall in the cluster.
    for finding in ((controllers.as_dict() if controllers else {}).get("findings") or []):
        if finding["severity"] == "error":
            rule = f"controller:{finding['controller']}"
            failures.setdefault((rule, finding["subject"]), PolicyFailure(
                rule, "mandatory", None, f"{finding['subject']}: {finding['message']} ({finding['source']})"))
    return failures


def _policy_delta(base: Plan, head: Plan) -> tuple[list[PolicyFailure], list[PolicyFailure]]:
    """Failures by (rule, resource): new ones in the head, fixed ones from the base."""
    before, after = _failures(base), _failures(head)
    order = lambda item: (item[0][0], item[0][1] or "")  # noqa: E731 - a sort key
    new = [failure for key, failure in sorted(after.items(), key=order) if key not in before]
    fixed = [failure for key, failure in sorted(before.items(), key=order) if key not in after]
    return new, fixed
