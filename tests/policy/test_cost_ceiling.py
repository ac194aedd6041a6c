"""hourly-cost-ceiling judges the stack's whole on-demand spend at max size, the cost section's total:
FSx, NAT, the EKS control plane and HyperPod instances count as much as node groups, an item without a
published price fails the rule, and the rule's message and the cost section give one total."""

import copy
import re

import pytest
from support.policy_stacks import find
from trainstack.estimate import estimate_cost
from trainstack.plan import Plan
from trainstack.policy import evaluate, stack_from_plan

FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"
HYPERPOD = "aws-native:sagemaker:Cluster"
RULE = "hourly-cost-ceiling"


def ceiling_violations(stack, ceiling: float) -> list:
    report = evaluate(stack, {"maxHourlyUsd": ceiling})
    return next(r for r in report.results if r.rule.id == RULE).violations


def section_max_total(plan: Plan) -> str:
    """The max-size total as the cost section prints it ("at max size: $4.02/h, ...", "at least $4.02/h" while an
    item has no price)."""
    return re.search(r"at max size: ((?:at least )?\$[\d,.]+/h)", estimate_cost(plan).render()).group(1)


@pytest.mark.parametrize("stack", ["dev", "fsdp-p5", "nemo-p4de", "trn1"])
def test_the_rule_states_the_cost_sections_max_size_total_to_the_cent(plans, stack):
    plan = plans[stack]
    over = ceiling_violations(stack_from_plan(plan), 0.01)
    totals = [v for v in over if v.urn is None]
    assert len(totals) == 1 and f"costs {section_max_total(plan)} on demand at max size" in totals[0].message


def test_an_fsx_file_system_over_the_ceiling_fails_it_though_the_node_groups_fit(plans):
    stack = stack_from_plan(plans["dev"])
    assert not ceiling_violations(stack, 10)  # the shipped dev stack: $4.02/h at max size
    # dev has no file system: give it nemo-p4de's, as 120,000 GiB of SCRATCH_2 (about $23/h).
    fsx = copy.deepcopy(find(stack_from_plan(plans["nemo-p4de"]), FSX, "nemo-p4de-fsx"))
    fsx.props.update(storageCapacity=120000, deploymentType="SCRATCH_2")
    fsx.props.pop("perUnitStorageThroughput", None)
    big = type(stack)([*stack.resources, fsx])
    (violation,) = ceiling_violations(big, 10)
    assert violation.urn is None and "above the ceiling of $10/h" in violation.message
    assert "FSx nemo-p4de-fsx (120000 GiB SCRATCH_2)" in violation.message


def test_hyperpod_instances_without_a_published_price_fail_the_ceiling_each_by_name(plans):
    stack = stack_from_plan(plans["hyperpod"])
    violations = ceiling_violations(stack, 1000)
    cluster = next(r for r in stack.resources if r.type == HYPERPOD)
    unpriced = [v for v in violations if v.urn == cluster.urn]
    assert [v.message.split(":")[0] for v in unpriced] == ["HyperPod controller-machine (ml.c5.xlarge)",
                                                           "HyperPod worker-group-1 (ml.g5.8xlarge)"]
    assert all("no published price" in v.message and "cannot be held under $1000/h" in v.message
               for v in unpriced)


def test_without_a_ceiling_the_rule_judges_nothing(plans):
    assert not ceiling_violations(stack_from_plan(plans["hyperpod"]), 0)
