"""Compliant baselines: the shipped stacks as the policy engine sees them."""

import pytest
from support.policy_stacks import PROJECT
from trainstack.plan import Plan, run_plan
from trainstack.policy import Stack, stack_from_plan


@pytest.fixture(scope="session")
def plans() -> dict[str, Plan]:
    return {name: run_plan(PROJECT, name) for name in PROJECT.stacks()}


@pytest.fixture(scope="session")
def baselines(plans: dict[str, Plan]) -> dict[str, Stack]:
    return {name: stack_from_plan(plan) for name, plan in plans.items()}
