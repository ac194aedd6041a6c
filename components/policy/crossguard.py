"""The rules as CrossGuard stack policies, for ``pulumi preview --policy-pack policies``.

Kept in the library (not in policies/) so tests can build and run them without
starting a pack, which blocks serving gRPC.
"""

from __future__ import annotations

from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    StackValidationArgs,
    StackValidationPolicy,
)

from . import RULES, stack_from_crossguard
from .model import Rule

# Settings every rule may read: the stack's trainstack profile (else read from the
# provider's default tags) and the cost ceiling.
STACK_WIDE: dict[str, dict[str, Any]] = {"profile": {"type": "string", "enum": ["dev", "production"]},
                                         "maxHourlyUsd": {"type": "number"}}


def to_crossguard(rule: Rule) -> StackValidationPolicy:
    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        stack = stack_from_crossguard(args)
        for violation in rule.check(stack, rule.settings(dict(args.get_config() or {}))):
            report_violation(violation.message, violation.urn)

    return StackValidationPolicy(
        name=rule.id, description=rule.description, validate=validate,
        enforcement_level=EnforcementLevel(rule.enforcement),
        config_schema=PolicyConfigSchema(properties={**STACK_WIDE, **rule.config}),
        tags=[rule.area])


def policies() -> list[StackValidationPolicy]:
    return [to_crossguard(rule) for rule in RULES]
