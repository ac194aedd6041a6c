"""The policies' section: the rules judged over a plan, under the configuration they were judged with.

The configuration is kept with the results, so a saved record can be judged again under a
policy config on top of its own (``trainstack diff`` and ``report`` with ``--policy-config``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Optional

from ..boundary import SMALL_JSON_BYTES_MAX, FileProblem, cut, read_json_object, shown_path
from ..plan import Plan
from ..policy import PolicyReport, config_problems, evaluate, stack_from_plan

if TYPE_CHECKING:
    from ..config import StackConfig

POLICY_CONFIG_FIX = 'write a JSON object such as {"all": "advisory", "<rule id>": "disabled"}'
PROBLEMS_SHOWN = 1200
"""Characters of a policy config's problems an error echoes."""


@dataclass(frozen=True)
class JudgedPolicies:
    """The ``policies`` section: each rule's result, and the pack configuration it was judged under."""

    key: ClassVar[str] = "policies"
    report: PolicyReport
    config: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {**self.report.as_dict(), "config": self.config}

    def render(self) -> str:
        return self.report.render()


def judge(plan: Plan, config: dict[str, Any]) -> JudgedPolicies:
    """Every rule over ``plan`` under ``config``."""
    return JudgedPolicies(evaluate(stack_from_plan(plan), config), config)


def judge_again(plan: Plan, extra: Mapping[str, Any]) -> Plan:
    """``plan`` with its policies judged again under the configuration it was planned with
    (``policies.config``; none in records made before it was kept) with ``extra`` on top."""
    judged = plan.sections.policies
    config = {**((judged.as_dict().get("config") or {}) if judged is not None else {}), **extra}
    return dataclasses.replace(plan, sections=dataclasses.replace(plan.sections, policies=judge(plan, config)))


def policy_config(stack: Optional[StackConfig], extra: Path | Mapping[str, Any] | None) -> dict[str, Any]:
    """Stack-wide policy settings from the stack's own config, then ``extra`` (a file, or settings)."""
    config: dict[str, Any] = {}
    if stack is not None:
        config["profile"] = stack.profile
        if stack.cost.max_hourly_usd:
            config["maxHourlyUsd"] = stack.cost.max_hourly_usd
    if isinstance(extra, Path):
        config.update(policy_config_file(extra))
    elif extra is not None:
        config.update(checked_policy_config(extra, "settings"))
    return config


def policy_config_file(path: Path) -> dict[str, Any]:
    """A policy pack configuration file: a JSON object of settings the rules read."""
    document = read_json_object(path, "policy config", POLICY_CONFIG_FIX, SMALL_JSON_BYTES_MAX)
    return checked_policy_config(document, shown_path(path))


def _whole_problems(problems: list[str]) -> str:
    """As many whole problems as fit in PROBLEMS_SHOWN characters, and how many more there are: a problem's fix
    is never cut mid-sentence (one problem longer than the bound, from a value it echoes, is cut)."""
    shown = [problems[0]]
    for problem in problems[1:]:
        if len(" ".join([*shown, problem])) > PROBLEMS_SHOWN:
            break
        shown.append(problem)
    more = len(problems) - len(shown)
    return cut(" ".join(shown), PROBLEMS_SHOWN) + (f" (and {more} more problem{'s' * (more > 1)})" if more else "")


def checked_policy_config(config: Mapping[str, Any], name: str) -> dict[str, Any]:
    """``config`` if every rule it names and every setting it gives is one the rules know; else a FileProblem."""
    problems = config_problems(dict(config))
    if problems:
        raise FileProblem(f"policy config {name}: {_whole_problems(problems)}")
    return dict(config)
