"""Plan records of crafted stacks: a shipped stack's config, edited, planned offline as `trainstack plan --json`."""

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

import yaml
from trainstack import report, review
from trainstack.analysis import plan_stack, render_json
from trainstack.plan import Plan, find_project
from trainstack.review import PlanDiff

REPO = Path(__file__).resolve().parents[2]


def stack_config(stack: str) -> dict[str, Any]:
    return yaml.safe_load((REPO / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]


def write_project(directory: Path, stack: str, config: dict[str, Any]) -> Path:
    """A project in ``directory`` running the repository's program with ``config`` as stack ``stack``."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "Pulumi.yaml").write_text(yaml.safe_dump(
        {"name": "trainstack", "runtime": "python", "main": str(REPO / "stacks")}))
    (directory / f"Pulumi.{stack}.yaml").write_text(yaml.safe_dump({"config": config}, sort_keys=False))
    return directory


def record(directory: Path, stack: str, edit: Optional[Callable[[dict[str, Any]], None]] = None,
           config: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """The JSON record `trainstack plan --json` writes for the edited stack (planned in this process)."""
    config = copy.deepcopy(config if config is not None else stack_config(stack))
    if edit is not None:
        edit(config)
    project = find_project(write_project(directory, stack, config))
    return json.loads(render_json(plan_stack(stack, project)))


def save(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(json.dumps(document, indent=2))
    return path


def compare(base: dict[str, Any], head: dict[str, Any]) -> PlanDiff:
    """The review's diff of two record documents, read back as plans (as `trainstack diff` reads saved records)."""
    return review.compare(Plan.from_dict(base), Plan.from_dict(head))


def render_report(document: dict[str, Any], base: Optional[dict[str, Any]] = None) -> str:
    """The HTML report of a record document (and a base one), read back as plans as `trainstack report` does."""
    return report.render_report(Plan.from_dict(document), Plan.from_dict(base) if base is not None else None)
