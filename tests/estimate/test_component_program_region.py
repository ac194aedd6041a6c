"""A program built from the components (not TrainingStack) runs on the default AWS provider, which the offline
plan records no resource for: its prices, the record and the cost ceiling keep the stack's aws:region."""

from trainstack import Network
from trainstack.estimate import estimate_cost
from trainstack.plan import Plan, run_program
from trainstack.policy import evaluate, stack_from_plan


def program():
    Network("net", {"settings": {"zones": ["us-west-2a", "us-west-2b"]}, "region": "us-west-2"})


def planned():
    return run_program(program, project="own", stack="dev", config={"aws:region": "us-west-2"})


def test_a_component_program_is_priced_in_its_aws_region_not_unknown():
    estimate = estimate_cost(planned())
    assert estimate.region == "us-west-2"
    nat = next(line for line in estimate.lines if line.item == "NAT gateway")
    assert nat.priced and "in unknown" not in nat.source


def test_the_region_survives_the_record():
    plan = planned()
    document = plan.to_dict()
    assert document["defaultRegion"] == "us-west-2"
    assert estimate_cost(Plan.from_dict(document)).region == "us-west-2"


def test_the_cost_ceiling_judges_the_program_in_its_region():
    report = evaluate(stack_from_plan(planned()), {"hourly-cost-ceiling": {"maxHourlyUsd": 1000}})
    (result,) = [r for r in report.results if r.rule.id == "hourly-cost-ceiling"]
    assert result.violations == []  # NAT and its addresses priced in us-west-2, under the ceiling
