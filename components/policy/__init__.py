"""Policy rules for training clusters, run by ``trainstack plan`` and by the CrossGuard pack.

    from trainstack.policy import RULES, evaluate, stack_from_plan
    report = evaluate(stack_from_plan(plan), {"profile": "production"})

Pack configuration has CrossGuard's shape: ``{"all": "advisory", "<rule id>":
"disabled" | {"enforcementLevel": ..., <settings>}, <stack-wide settings>}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from . import data_cost_tags, security, training
from .model import Resource, Rule, Stack, Violation

if TYPE_CHECKING:
    from pulumi_policy import StackValidationArgs

    from ..plan import Plan

RULES: list[Rule] = [*security.RULES, *training.RULES, *data_cost_tags.RULES]


@dataclass
class RuleResult:
    rule: Rule
    enforcement: str
    violations: list[Violation] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.violations


@dataclass
class PolicyReport:
    results: list[RuleResult]

    @property
    def mandatory_failures(self) -> list[RuleResult]:
        return [r for r in self.results if r.enforcement == "mandatory" and not r.passed]

    def failed(self, rule_id: str) -> bool:
        return any(r.rule.id == rule_id and not r.passed for r in self.results)

    def as_dict(self) -> dict:
        return {"rules": [{"id": r.rule.id, "area": r.rule.area, "enforcement": r.enforcement,
                           "passed": r.passed, "violations": [{"urn": v.urn, "message": v.message}
                                                              for v in r.violations]} for r in self.results],
                "mandatoryFailures": len(self.mandatory_failures)}

    def render(self) -> str:
        lines = ["Policies:", f"  {'result':<8} {'enforcement':<11} {'area':<12} rule"]
        for result in self.results:
            status = "pass" if result.passed else ("skip" if result.enforcement == "disabled" else "FAIL")
            lines.append(f"  {status:<8} {result.enforcement:<11} {result.rule.area:<12} {result.rule.id}")
            lines += [f"           - {v.message}" for v in result.violations]
        failures = len(self.mandatory_failures)
        lines.append(f"  {failures} mandatory polic{'y' if failures == 1 else 'ies'} failed" if failures
                     else "  all mandatory policies pass")
        return "\n".join(lines)


def evaluate(stack: Stack, config: Optional[dict[str, Any]] = None, rules: Optional[list[Rule]] = None) -> PolicyReport:
    config = config or {}
    results = []
    for rule in rules or RULES:
        level = rule.level(config)
        violations = [] if level == "disabled" else list(rule.check(stack, rule.settings(config)))
        results.append(RuleResult(rule, level, violations))
    return PolicyReport(results)


def stack_from_plan(plan: Plan) -> Stack:
    """The resources of an offline plan as the policy engine would see them."""
    providers = {r.urn: r.inputs for r in plan.resources if r.type.startswith("pulumi:providers:")}
    resources = []
    for record in plan.resources:
        provider_urn = record.options.provider.rsplit("::", 1)[0] if record.options.provider else None
        resources.append(Resource(
            type=record.type, name=record.name, urn=record.urn, props=record.inputs,
            protect=record.options.protect, provider=providers.get(provider_urn) if provider_urn else None,
            property_dependencies=record.property_dependencies, id=record.id))
    return Stack(resources)


def stack_from_crossguard(args: StackValidationArgs) -> Stack:
    """The resources of a CrossGuard ``StackValidationArgs``."""
    return Stack(Resource(
        type=r.resource_type, name=r.name, urn=r.urn, props=dict(r.props),
        protect=bool(r.opts.protect) if r.opts else False,
        provider=dict(r.provider.props) if r.provider is not None else None,
        property_dependencies={k: [d.urn for d in v] for k, v in (r.property_dependencies or {}).items()},
        id=r.props.get("id")) for r in args.resources)


__all__ = ["PolicyReport", "RULES", "Resource", "Rule", "RuleResult", "Stack", "Violation", "evaluate",
           "stack_from_crossguard", "stack_from_plan"]
