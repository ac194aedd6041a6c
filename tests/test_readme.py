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


def test_the_test_command_first_sets_up_graphviz_and_chromium_and_says_so():
    _, tests = _commands()
    assert tests.split(" && ")[0] == "tests/setup-system.sh"
    script = (ROOT / "tests" / "setup-system.sh").read_text()
    # Debian/Ubuntu and macOS, each installing both, only where missing.
    assert "apt-get install" in script and "graphviz" in script and "chromium" in script
    assert "brew install graphviz" in script and "brew install --cask chromium" in script
    said = re.search(r"```\n\n(Command 2 first runs `tests/setup-system.sh`.*?)\n\n", (ROOT / "README.md").read_text(),
                     re.S).group(1)
    assert "Graphviz" in said and "Chromium" in said and "apt-get" in said and "Homebrew" in said


def test_ci_installs_no_system_package_itself_but_builds_the_engines_before_the_readmes_command():
    _, tests = _commands()
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    code = [line for line in lines if line and not line.startswith("#")]
    assert not any("apt-get" in line or "brew " in line for line in code)
    engines = next(i for i, line in enumerate(code) if line.startswith("engines/build.sh"))
    assert engines < code.index(tests)
