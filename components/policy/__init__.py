"""Policy rules for training clusters, run by ``trainstack plan`` and by the CrossGuard pack.

    from trainstack.policy import RULES, evaluate, stack_from_plan
    report = evaluate(stack_from_plan(plan), {"profile": "production"})

Pack configuration has CrossGuard's shape: ``{"all": "advisory", "<rule id>":
"disabled" | {"enforcementLevel": ..., <settings>}, <stack-wide settings>}``.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from ..names import COST_CONFIG, PROVIDER_PREFIX
from . import data_cost_tags, encryption, iam_conformance, karpenter_capacity, scheduling, security, training
from .model import UNKNOWN, Enforcement, Resource, Rule, Stack, Violation

if TYPE_CHECKING:
    from pulumi_policy import StackValidationArgs

    from ..plan import Plan

RULES: list[Rule] = [*security.RULES, *encryption.RULES, *iam_conformance.RULES, *training.RULES,
                     *karpenter_capacity.RULES, *scheduling.RULES, *data_cost_tags.RULES]

STACK_WIDE_SETTINGS = ("all", "profile", "maxHourlyUsd")
LEVELS = typing.get_args(Enforcement)
"""The enforcement levels a configuration may name (``policy.model.Enforcement``)."""
# Rules that judged faults AWS no longer lets happen; a config naming them is told where they went.
REMOVED_RULES = {
    "s3-encrypted": "S3 encrypts every new object with SSE-S3 since 2023-01-05, so a bucket cannot be unencrypted; "
                    "to require a customer managed key use kms-customer-keys with requireCustomerKeyFor: [s3]",
    "fsx-encrypted": "FSx for Lustre always encrypts at rest; to require a customer managed key use "
                     "kms-customer-keys with requireCustomerKeyFor: [fsx]",
}


def config_problems(config: dict[str, Any]) -> list[str]:
    """What a pack configuration names that no rule reads (a typo would otherwise be ignored)."""
    rules = {rule.id: rule for rule in RULES}
    problems = []
    for key, value in config.items():
        if key in REMOVED_RULES:
            problems.append(f"{key}: this rule was removed: {REMOVED_RULES[key]}.")
        elif key in rules:
            level = value.get("enforcementLevel", LEVELS[0]) if isinstance(value, dict) else value
            if level not in LEVELS:
                problems.append(f"{key}: {level!r:.40} is not an enforcement level; use one of {list(LEVELS)}, or "
                                "an object of settings.")
            known = {*rules[key].config, "enforcementLevel", *STACK_WIDE_SETTINGS[1:]}
            unknown = sorted(set(value) - known) if isinstance(value, dict) else []
            if unknown:
                problems.append(f"{key}: unknown settings {unknown}; it takes {sorted(rules[key].config)}.")
            settings = value.items() if isinstance(value, dict) else []
            problems += [f"{key}.{name}: {problem}." for name, setting in settings
                         if (problem := _setting_problem(name, setting)) is not None]
        elif key == "all" and value not in LEVELS:
            problems.append(f"all: {value!r:.40} is not an enforcement level; use one of {list(LEVELS)}.")
        elif key in STACK_WIDE_SETTINGS and (problem := _setting_problem(key, value)) is not None:
            problems.append(f"{key}: {problem}.")
        elif key not in STACK_WIDE_SETTINGS:
            problems.append(f"{key}: no rule has this id, and it is not a stack-wide setting "
                            f"{list(STACK_WIDE_SETTINGS)}.")
    return problems


_JSON_TYPES: dict[str, tuple[type, ...]] = {"number": (int, float), "integer": (int,), "string": (str,),
                                             "array": (list,), "boolean": (bool,)}


def _setting_problem(name: str, value: Any) -> Optional[str]:
    """What ``value`` breaks of the JSON schema a rule declares for setting ``name`` (the subset the
    rules use: type, items, enum), or None; a name no rule declares is left to the unknown-key check."""
    schema = next((rule.config[name] for rule in RULES if name in rule.config), None)
    return None if schema is None else _schema_problem(value, schema)


def _schema_problem(value: Any, schema: dict[str, Any]) -> Optional[str]:
    kind = schema.get("type", "")
    allowed = _JSON_TYPES.get(kind)
    if allowed is not None and (not isinstance(value, allowed) or (isinstance(value, bool) and kind != "boolean")):
        return f"{value!r:.40} is not {'an' if kind[0] in 'aeiou' else 'a'} {kind}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{value!r:.40} is not one of {schema['enum']}"
    if kind == "array":
        return next((p for item in value if (p := _schema_problem(item, schema.get("items", {}))) is not None), None)
    return None


NOT_CONFIGURED = "not configured"
WHERE_SET = {"maxHourlyUsd": f"in the stack file ({COST_CONFIG}.maxHourlyUsd) or the policy config"}
"""Where a setting a rule needs is given, beyond the policy config (``--policy-config``, CrossGuard's)."""


@dataclass
class RuleResult:
    rule: Rule
    enforcement: str
    violations: list[Violation] = field(default_factory=list)
    configured: bool = True
    """False when a setting the rule needs (``Rule.needs``) is unset: it judged nothing."""

    @property
    def passed(self) -> bool:
        """No violation was found (also when the rule judged nothing: see ``configured`` and ``status``)."""
        return not self.violations

    @property
    def status(self) -> str:
        """What the result column says: FAIL, pass, skip (disabled) or not configured."""
        if self.enforcement == "disabled":
            return "skip"
        if not self.configured:
            return NOT_CONFIGURED
        return "pass" if self.passed else "FAIL"


@dataclass
class PolicyReport:
    results: list[RuleResult]

    @property
    def mandatory_failures(self) -> list[RuleResult]:
        return [r for r in self.results if r.enforcement == "mandatory" and not r.passed]

    def failed(self, rule_id: str) -> bool:
        return any(r.rule.id == rule_id and not r.passed for r in self.results)

    def as_dict(self) -> dict:
        """The record's ``policies`` section: per rule its id, area, enforcement, ``passed`` (no violation
        found), ``configured`` (false: a setting the rule needs is unset, so it judged nothing) and
        violations; and the count of mandatory failures."""
        return {"rules": [{"id": r.rule.id, "area": r.rule.area, "enforcement": r.enforcement,
                           "passed": r.passed, "configured": r.configured,
                           "violations": [{"urn": v.urn, "message": v.message} for v in r.violations]}
                          for r in self.results],
                "mandatoryFailures": len(self.mandatory_failures)}

    def render(self) -> str:
        width = len(NOT_CONFIGURED)
        detail = " " * (width + 3) + "- "
        lines = ["Policies:", f"  {'result':<{width}} {'enforcement':<11} {'area':<12} rule"]
        for result in self.results:
            lines.append(f"  {result.status:<{width}} {result.enforcement:<11} {result.rule.area:<12} {result.rule.id}")
            lines += [f"{detail}{v.message}" for v in result.violations]
            if result.status == NOT_CONFIGURED:
                lines += [f"{detail}nothing to judge until {name} is set {WHERE_SET.get(name, 'in the policy config')}"
                          for name in result.rule.needs]
        failures = len(self.mandatory_failures)
        lines.append(f"  {failures} mandatory polic{'y' if failures == 1 else 'ies'} failed" if failures
                     else "  all mandatory policies pass")
        unjudged = [r.rule.id for r in self.results if r.status == NOT_CONFIGURED]
        if unjudged:
            lines[-1] += f" ({len(unjudged)} not configured: {', '.join(unjudged)})"
        return "\n".join(lines)


def evaluate(stack: Stack, config: Optional[dict[str, Any]] = None, rules: Optional[list[Rule]] = None) -> PolicyReport:
    config = config or {}
    results = []
    for rule in rules or RULES:
        level, settings = rule.level(config), rule.settings(config)
        configured = rule.configured(settings)
        violations = [] if level == "disabled" or not configured else list(rule.check(stack, settings))
        results.append(RuleResult(rule, level, violations, configured))
    return PolicyReport(results)


def stack_from_plan(plan: Plan) -> Stack:
    """The resources of an offline plan as the policy engine would see them."""
    providers = {r.urn: r.inputs for r in plan.resources if r.type.startswith(PROVIDER_PREFIX)}
    # The engine hands a resource on the default AWS provider that provider's properties; offline, its region.
    default = {"region": plan.default_region} if plan.default_region else None
    resources = []
    for record in plan.resources:
        provider_urn = record.options.provider.rsplit("::", 1)[0] if record.options.provider else None
        on_default = provider_urn is None and record.type.startswith("aws:")
        provider = default if on_default else providers.get(provider_urn) if provider_urn else None
        resources.append(Resource(
            type=record.type, name=record.name, urn=record.urn, props=record.inputs,
            protect=record.options.protect, provider=provider,
            property_dependencies=record.property_dependencies, id=record.id, parent=record.parent,
            outputs=record.outputs))
    return Stack(resources)


def stack_from_crossguard(args: StackValidationArgs) -> Stack:
    """The resources of a CrossGuard ``StackValidationArgs``, as plain data like the plan's.

    The SDK hands properties over behind proxies that raise on an unknown value (so one
    unknown anywhere would abort a whole stack rule) and are not dicts or lists; rules read
    the same plain data as offline, unknowns marked as the offline plan marks them."""
    resources = []
    for r in args.resources:
        props = crossguard_value(r.props)
        resources.append(Resource(
            type=r.resource_type, name=r.name, urn=r.urn, props=props,
            protect=bool(r.opts.protect) if r.opts else False,
            provider=crossguard_value(r.provider.props) if r.provider is not None else None,
            property_dependencies={k: [d.urn for d in v] for k, v in (r.property_dependencies or {}).items()},
            id=props.get("id"), parent=r.parent.urn if r.parent is not None else None, outputs=props))
    return Stack(resources)


def crossguard_value(value: Any) -> Any:
    """A value the CrossGuard SDK hands over (properties, provider properties, config) as plain data."""
    from pulumi_policy import proxy
    from pulumi_policy.deserialize import serialize_properties

    unknowns = {proxy.UNKNOWN_BOOLEAN_VALUE, proxy.UNKNOWN_NUMBER_VALUE, proxy.UNKNOWN_STRING_VALUE,
                proxy.UNKNOWN_ARRAY_VALUE, proxy.UNKNOWN_ASSET_VALUE, proxy.UNKNOWN_ARCHIVE_VALUE,
                proxy.UNKNOWN_OBJECT_VALUE}

    def mark(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: mark(v) for k, v in value.items()}
        if isinstance(value, list):
            return [mark(v) for v in value]
        if isinstance(value, float) and value.is_integer():
            return int(value)  # protobuf's Struct carries every number as a double
        return UNKNOWN if isinstance(value, str) and value in unknowns else value

    return mark(serialize_properties(value))


__all__ = ["PolicyReport", "REMOVED_RULES", "RULES", "Resource", "Rule", "RuleResult", "Stack", "Violation",
           "config_problems", "crossguard_value", "evaluate", "stack_from_crossguard", "stack_from_plan"]
