"""Compliant baselines: the shipped stacks as the policy engine sees them."""

from collections.abc import Iterator

import pytest
from support.analyzer import PackProcess
from support.policy_stacks import PROJECT
from trainstack.plan import Plan, run_plan
from trainstack.policy import Stack, stack_from_plan


@pytest.fixture(scope="session")
def plans() -> dict[str, Plan]:
    return {name: run_plan(PROJECT, name) for name in PROJECT.stacks()}


@pytest.fixture(scope="session")
def baselines(plans: dict[str, Plan]) -> dict[str, Stack]:
    return {name: stack_from_plan(plan) for name, plan in plans.items()}


@pytest.fixture(scope="module")
def pack() -> Iterator[PackProcess]:
    """The trainstack CrossGuard pack (policies/), started as the Pulumi engine starts it; one per test module."""
    process = PackProcess(PROJECT.root / "policies")
    try:
        yield process
    finally:
        process.close()
