"""The README's two commands are the ones that work: CI runs the same test command."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _commands():
    block = re.search(r"## Two commands.*?```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)
    return [line for line in block.splitlines() if line and not line.startswith("#")]


def test_the_readme_has_exactly_two_commands_the_plan_and_the_tests():
    plan, tests = _commands()
    assert plan.endswith("trainstack plan --stack dev")
    assert tests.endswith("python -m pytest")


def test_the_test_command_lints_and_type_checks_before_the_tests():
    _, tests = _commands()
    steps = [step.strip() for step in tests.split("&&")]
    lint, types, pytest = (steps.index(".venv/bin/python -m ruff check ."), steps.index(".venv/bin/python -m mypy"),
                           steps.index(".venv/bin/python -m pytest"))
    assert lint < pytest and types < pytest


def test_ci_runs_the_readmes_test_command():
    _, tests = _commands()
    assert tests in (ROOT / ".ci" / "run").read_text().splitlines()
