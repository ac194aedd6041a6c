"""Compliant baselines: the shipped stacks as the policy engine sees them."""

import pytest
from support.policy_stacks import PROJECT
from trainstack.plan import run_plan
from trainstack.policy import Stack, stack_from_plan


@pytest.fixture(scope="session")
def baselines() -> dict[str, Stack]:
    return {name: stack_from_plan(run_plan(PROJECT, name)) for name in PROJECT.stacks()}
