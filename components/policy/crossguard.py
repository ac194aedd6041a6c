"""The rules as CrossGuard stack policies, for ``pulumi preview --policy-pack policies``.

Kept in the library (not in policies/) so tests can build and run them without
starting a pack, which blocks serving gRPC.

Settings reach a rule as they do offline: the stack's own ``trainstack:profile`` and
``trainstack:cost.maxHourlyUsd`` first (the engine gives a Python pack the stack's
config in ``PULUMI_CONFIG``; ``trainstack plan`` reads the stack file), then the
rule's block of the policy pack config.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pulumi.runtime
from pulumi_policy import EnforcementLevel, PolicyConfigSchema, StackValidationArgs, StackValidationPolicy

from ..names import COST_CONFIG, PROFILE_CONFIG
from . import NOT_CONFIGURED, RULES, crossguard_value, stack_from_crossguard
from .model import Rule

# Settings every rule may read: the stack's trainstack profile (else read from the
# provider's default tags) and the cost ceiling.
STACK_WIDE: dict[str, dict[str, Any]] = {"profile": {"type": "string", "enum": ["dev", "production"]},
                                         "maxHourlyUsd": {"type": "number"}}


def stack_settings(config: dict[str, Any]) -> dict[str, Any]:
    """The stack-wide settings in a stack's config (``namespace:key`` -> string, objects as JSON)."""
    settings: dict[str, Any] = {}
    if config.get(PROFILE_CONFIG):
        settings["profile"] = config[PROFILE_CONFIG]
    try:
        ceiling = json.loads(config.get(COST_CONFIG) or "{}").get("maxHourlyUsd")
    except (ValueError, AttributeError):  # an invalid stack fails its own validation, not here
        ceiling = None
    if ceiling:
        settings["maxHourlyUsd"] = ceiling
    return settings


def to_crossguard(rule: Rule) -> StackValidationPolicy:
    def validate(args: StackValidationArgs, report_violation: Callable[..., None]) -> None:
        stack = stack_from_crossguard(args)
        own = crossguard_value(dict(args.get_config() or {}))
        settings = rule.settings({**stack_settings(pulumi.runtime.get_config_env()), **own})
        if not rule.configured(settings):
            not_configured(args, rule)
            return
        for violation in rule.check(stack, settings):
            report_violation(violation.message, violation.urn)

    return StackValidationPolicy(
        name=rule.id, description=rule.description, validate=validate,
        enforcement_level=EnforcementLevel(rule.enforcement),
        config_schema=PolicyConfigSchema(properties={**STACK_WIDE, **rule.config}),
        tags=[rule.area])


def not_configured(args: StackValidationArgs, rule: Rule) -> None:
    """Tell the engine the rule judged nothing, as ``trainstack plan`` says "not configured"."""
    not_applicable(args, f"{NOT_CONFIGURED}: nothing to judge until {' and '.join(rule.needs)} is set")


def not_applicable(args: StackValidationArgs, reason: str) -> None:
    """Tell the engine why a policy judged nothing, or not everything: never a silent pass.

    pulumi-policy's ``StackValidationArgs.not_applicable`` (sdk/python/lib/pulumi_policy/policy.py,
    https://github.com/pulumi/pulumi-policy) raises, and the SDK answers the engine's AnalyzeStack with a
    ``PolicyNotApplicable`` (the Analyzer protocol, pulumi/proto/analyzer.proto) beside the violations
    reported before it; releases of the SDK without it can only stay silent. Call it last."""
    mark = getattr(args, "not_applicable", None)
    if mark is not None:
        mark(reason)


def policies() -> list[StackValidationPolicy]:
    return [to_crossguard(rule) for rule in RULES]
