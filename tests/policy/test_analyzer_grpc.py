"""The CrossGuard pack, started as the Pulumi engine starts it and spoken to over gRPC,
reports exactly the violations ``trainstack plan`` reports: on every shipped stack and on
every broken resource of the corpus, with the stack in the offline plan's shape and in
the engine's shape (pulumi-eks's children as separate resources, components carrying
their outputs)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

import pytest
from support.analyzer import PackProcess, Reported, Topology, analyzer_resources, crossguard_config, reconcile, reported
from support.engine_shape import engine_shape
from support.policy_stacks import PROJECT, added
from trainstack.analysis import policy_config, stack_config
from trainstack.plan import UNKNOWN_MARK, Plan, load_stack
from trainstack.policy import RULES, Resource, Stack, evaluate
from trainstack.policy.crossguard import stack_settings

from .test_corpus import CORPUS

RULE_IDS = {rule.id for rule in RULES}


def offline(stack: Stack, config: dict[str, Any]) -> list[Reported]:
    report = evaluate(stack, config)
    return ordered(Reported(r.rule.id, v.urn, v.message, r.enforcement) for r in report.results for v in r.violations)


def served(pack: PackProcess, plan: Plan, stack: Stack, topology: Topology, config: dict[str, Any],
           settings: dict[str, Any] | None = None) -> list[Reported]:
    """One preview's worth of engine calls: stack context, reconciled config, AnalyzeStack. ``settings``: what
    the pack judges under when it also reads the stack's own (the engine's environment); default ``config``."""
    info = pack.info()
    pack.configure_stack(plan.project, plan.stack)
    pack.configure(reconcile(info, crossguard_config(config)))
    response = pack.analyze_stack(analyzer_resources(stack, topology))
    # A rule with nothing configured is "not applicable" to the engine, as it is "not configured" offline.
    # (The controller models the pack serves beside the rules: test_analyzer_controllers.py.)
    assert [(n.policy_name, n.reason.split(":")[0]) for n in response.not_applicable if n.policy_name in RULE_IDS] \
        == [(r.rule.id, "not configured") for r in evaluate(stack, config if settings is None else settings).results
            if r.status == "not configured"]
    return ordered(f for f in reported(response, {p.name: p.description for p in info.policies})
                   if f.policy in RULE_IDS)


def ordered(found: Iterable[Reported]) -> list[Reported]:
    return sorted(found, key=lambda f: (f.policy, f.urn or "", f.message, f.level))


def as_offline_resource(found: list[Reported], offline_stack: Stack, topology: Topology) -> Counter:
    """(policy, URN, level), a violation on one of pulumi-eks's children counted on the component
    the program declared (the resource a reader of ``trainstack plan`` sees)."""
    declared = {r.urn for r in offline_stack.resources}

    def declared_ancestor(urn: str | None) -> str | None:
        while urn is not None and urn not in declared:
            urn = topology.parents.get(urn)
        return urn

    return Counter((f.policy, declared_ancestor(f.urn), f.level) for f in found)


def test_the_pack_serves_every_rule_with_its_level_schema_and_area(pack: PackProcess):
    info = pack.info()
    assert info.name == "trainstack" and info.supportsConfig
    assert [p.name for p in info.policies][:len(RULES)] == [r.id for r in RULES]
    for policy, rule in zip(info.policies[:len(RULES)], RULES, strict=True):
        assert policy.description == rule.description
        assert policy.enforcementLevel == 1  # MANDATORY
        assert policy.policy_type == 2  # POLICY_TYPE_STACK
        assert {"profile", "maxHourlyUsd", *rule.config} == set(policy.configSchema.properties.keys())
        assert list(policy.tags) == [rule.area]


@pytest.mark.parametrize("stack_name", sorted(PROJECT.stacks()))
def test_every_shipped_stack_gets_the_offline_verdict_in_both_shapes(pack, plans, baselines, stack_name):
    plan, stack = plans[stack_name], baselines[stack_name]
    config = policy_config(stack_config(load_stack(PROJECT, stack_name)), None)
    expected = offline(stack, config)

    assert served(pack, plan, stack, Topology.of(plan), config) == expected
    engine_stack, topology = engine_shape(stack, plan)
    assert as_offline_resource(served(pack, plan, engine_stack, topology, config), stack, topology) == \
        as_offline_resource(expected, stack, topology)


@pytest.mark.parametrize("case", list(CORPUS))
def test_each_broken_resource_gets_the_offline_verdict_in_both_shapes(pack, plans, baselines, case):
    stack_name, rule_id, break_it, config = CORPUS[case]
    plan = plans[stack_name]
    broken = break_it(baselines[stack_name])
    expected = offline(broken, config)
    assert rule_id in {r.policy for r in expected}

    assert served(pack, plan, broken, Topology.of(plan), config) == expected
    engine_stack, topology = engine_shape(broken, plan)
    assert as_offline_resource(served(pack, plan, engine_stack, topology, config), broken, topology) == \
        as_offline_resource(expected, broken, topology)


def test_a_value_unknown_during_preview_is_skipped_and_does_not_hide_the_next_resource(pack, plans, baselines):
    """The SDK's proxies raise on an unknown value, which would abort the whole stack rule;
    the rules read plain data instead and skip the unknown value, as offline."""
    unknown = Resource("aws:iam/rolePolicy:RolePolicy", "later", "urn:test::later", {"policy": UNKNOWN_MARK})
    wildcard = Resource("aws:iam/rolePolicy:RolePolicy", "wild", "urn:test::wild", {"policy": json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]})})
    stack = added(baselines["nemo-p4de"], unknown, wildcard)
    expected = offline(stack, {})
    assert [(r.policy, r.urn) for r in expected] == [("iam-no-wildcard-actions", "urn:test::wild")]

    assert served(pack, plans["nemo-p4de"], stack, Topology.of(plans["nemo-p4de"]), {}) == expected


def test_the_stacks_own_profile_and_ceiling_reach_the_pack_as_they_reach_the_plan():
    for name in PROJECT.stacks():
        settings = load_stack(PROJECT, name)
        assert stack_settings(settings.config) == policy_config(stack_config(settings), None)


def test_a_ceiling_in_the_stack_config_fails_the_pack_started_with_the_engines_environment(plans, baselines):
    """The language host starts the pack with the stack's identity and config in its
    environment (PULUMI_PROJECT, PULUMI_STACK, PULUMI_DRY_RUN, PULUMI_CONFIG); no policy config."""
    config = dict(load_stack(PROJECT, "dev").config)
    config["trainstack:cost"] = json.dumps({"maxHourlyUsd": 1})
    env = {"PULUMI_PROJECT": PROJECT.name, "PULUMI_STACK": "dev", "PULUMI_DRY_RUN": "true",
           "PULUMI_ORGANIZATION": "organization", "PULUMI_CONFIG": json.dumps(config)}
    expected = offline(baselines["dev"], stack_settings(config))
    assert [r.policy for r in expected] == ["hourly-cost-ceiling"]

    process = PackProcess(PROJECT.root / "policies", env)
    try:
        assert served(process, plans["dev"], baselines["dev"], Topology.of(plans["dev"]), {},
                      stack_settings(config)) == expected
    finally:
        process.close()
