"""A rule with nothing to judge says so: with the setting it needs unset (no cost ceiling, no required
tags, no resource that must use a customer key) its result is "not configured", in the plan's table,
in the record (``configured: false``) and in the HTML report, never "pass"; with the setting given it
judges again. (CrossGuard's "not applicable": tests/policy/test_analyzer_grpc.py.)"""

import json

import pytest
from trainstack.policy import RULES, evaluate

NEEDS = {"hourly-cost-ceiling": {"maxHourlyUsd": 1000000},
         "required-tags": {"requiredTags": ["team"]},
         "kms-customer-keys": {"requireCustomerKeyFor": ["ebs"], "profiles": ["dev"]}}
"""Each rule that judges nothing without a setting, and a setting that gives it something to judge."""


def result(stack, rule_id, config):
    return next(r for r in evaluate(stack, config).results if r.rule.id == rule_id)


def test_the_rules_that_need_a_setting_are_the_ones_named_here():
    assert {rule.id: rule.needs for rule in RULES if rule.needs} == {
        "hourly-cost-ceiling": ("maxHourlyUsd",), "required-tags": ("requiredTags",),
        "kms-customer-keys": ("requireCustomerKeyFor",)}


@pytest.mark.parametrize("rule_id", NEEDS)
def test_a_rule_with_its_setting_unset_is_not_configured_and_judges_again_once_it_is_set(baselines, rule_id):
    stack = baselines["fsdp-p5"]
    unset = result(stack, rule_id, {"profile": "dev"})
    assert (unset.status, unset.configured, unset.violations) == ("not configured", False, [])
    judged = result(stack, rule_id, {"profile": "dev", rule_id: NEEDS[rule_id]})
    assert judged.configured and judged.status in ("pass", "FAIL")
    # A setting the rule cannot meet fails it: the rule did judge.
    impossible = {"maxHourlyUsd": 0.01, "requiredTags": ["no-such-tag"]}.get(next(iter(NEEDS[rule_id])))
    if impossible is not None:
        failed = result(stack, rule_id, {rule_id: {next(iter(NEEDS[rule_id])): impossible}})
        assert failed.status == "FAIL"


def test_a_disabled_rule_is_skipped_whether_or_not_it_is_configured(baselines):
    assert result(baselines["fsdp-p5"], "required-tags", {"required-tags": "disabled"}).status == "skip"


def test_the_plan_table_says_not_configured_and_how_to_configure_it(plans):
    from trainstack.analysis import judge

    table = judge(plans["fsdp-p5"], {"profile": "production"}).render()
    line = next(line for line in table.splitlines() if line.endswith(" hourly-cost-ceiling"))
    assert line == "  not configured mandatory   cost         hourly-cost-ceiling"
    assert ("- nothing to judge until maxHourlyUsd is set in the stack file (trainstack:cost.maxHourlyUsd) or the "
            "policy config") in table
    assert table.splitlines()[-1] == ("  all mandatory policies pass (3 not configured: kms-customer-keys, "
                                      "hourly-cost-ceiling, required-tags)")


def test_the_record_and_the_report_say_not_configured(plans):
    import dataclasses

    from trainstack.analysis import judge
    from trainstack.report.summary import policies

    judged = judge(plans["fsdp-p5"], {"profile": "production", "requiredTags": ["team"]})
    rules = {r["id"]: r for r in json.loads(json.dumps(judged.as_dict()))["rules"]}
    assert rules["hourly-cost-ceiling"]["configured"] is False and rules["required-tags"]["configured"] is True
    assert rules["hourly-cost-ceiling"]["passed"] is True  # no violation: what "passed" has always meant
    page = policies(dataclasses.replace(plans["fsdp-p5"], sections=dataclasses.replace(
        plans["fsdp-p5"].sections, policies=judged)))
    total = len(RULES)
    assert f"<p>{total - 2} of {total} rules pass; 0 mandatory failures; 2 not configured (kms-customer-keys, " \
           "hourly-cost-ceiling).</p>" in page
