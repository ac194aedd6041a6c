"""Plan a stack file written by a test, through the real stacks/__main__.py."""

from pathlib import Path

import yaml
from trainstack.plan import Plan, find_project, run_plan

REPO = Path(__file__).resolve().parents[2]


def write_stack(directory: Path, stack: str, config: dict) -> Path:
    """A project in ``directory`` whose program is the shipped one, with one stack file."""
    (directory / "Pulumi.yaml").write_text(yaml.safe_dump(
        {"name": "trainstack", "runtime": "python", "main": str(REPO / "stacks"), "stackConfigDir": "."}))
    document = {"config": {f"trainstack:{key}": value for key, value in config.items()}}
    (directory / f"Pulumi.{stack}.yaml").write_text(yaml.safe_dump(document, sort_keys=False))
    return directory


def plan_config(directory: Path, stack: str, config: dict) -> Plan:
    return run_plan(find_project(write_stack(directory, stack, config)), stack)
