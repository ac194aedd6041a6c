"""The records of every shipped stack, as `trainstack plan --json` writes them, planned once per session."""

from pathlib import Path
from typing import Any

import pytest
from support.plan_records import record
from trainstack.plan import find_project

STACKS = find_project(Path(__file__).resolve().parents[2]).stacks()


@pytest.fixture(scope="session")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    from support.plan_records import stack_config

    return {stack: record(tmp_path_factory.mktemp(stack), stack, config=stack_config(stack)) for stack in STACKS}


@pytest.fixture(scope="session")
def growth_record(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The benchmark's 64-group stack (bench/report_time.py), its head side."""
    from support.growth_stack import config

    return record(tmp_path_factory.mktemp("growth"), "growth", config=config(64, True))
