"""examples/consumer is the shipped program as a project of one's own: the same program as
stacks/, the same dev configuration, and a Pulumi project and template a user can start from.
(tests/package/test_wheel.py plans it from the installed wheel.)"""

import ast
import tomllib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
CONSUMER = REPO / "examples" / "consumer"


def _statements(program: Path) -> list[str]:
    """The program's statements, its docstring left out."""
    module = ast.parse(program.read_text())
    return [ast.dump(node) for node in module.body[1 if ast.get_docstring(module) else 0:]]


def test_the_consumer_runs_the_shipped_program():
    assert _statements(CONSUMER / "__main__.py") == _statements(REPO / "stacks" / "__main__.py")


def test_the_consumer_dev_stack_is_the_shipped_dev_stack():
    assert yaml.safe_load((CONSUMER / "Pulumi.dev.yaml").read_text()) == yaml.safe_load(
        (REPO / "stacks" / "Pulumi.dev.yaml").read_text())


def test_the_project_is_python_in_its_own_virtualenv_and_a_template():
    project = yaml.safe_load((CONSUMER / "Pulumi.yaml").read_text())
    assert project["runtime"] == {"name": "python", "options": {"toolchain": "pip", "virtualenv": "venv"}}
    assert "main" not in project  # the program is the project's own directory
    assert project["template"]["config"]["trainstack:region"]["default"] == "us-east-1"


def test_its_requirements_name_trainstack_at_this_minor_version():
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    major, minor, _ = version.split(".")
    wanted = [line for line in (CONSUMER / "requirements.txt").read_text().splitlines()
              if line and not line.startswith("#")]
    assert wanted == [f"trainstack>={major}.{minor},<{major}.{int(minor) + 1}"]
