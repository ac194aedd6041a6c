"""`trainstack upgrade`: a stack's Kubernetes upgrade as the ordered stack-file changes EKS requires, each judged by
the gate as its pull request would be (upgrade/steps.py, upgrade/gate.py)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Optional

from .errors import EXIT_OK, EXIT_POLICY


def add_upgrade(commands: Any, here: dict[str, Any]) -> None:
    upgrade = commands.add_parser(
        "upgrade", help="write a Kubernetes upgrade as ordered stack-file steps (control plane, EKS add-ons, charts, "
                        "node groups; one minor at a time), each judged by the gate")
    upgrade.add_argument("--stack", "-s", required=True, help="the stack to upgrade (Pulumi.<stack>.yaml)")
    upgrade.add_argument("--to", required=True, metavar="MINOR", help="the Kubernetes minor to reach, e.g. 1.35")
    upgrade.add_argument("--aws", action="store_true",
                         help="ask EKS for each minor's add-on versions (DescribeAddonVersions, the account's "
                              "credentials); without it, the EKS user guide's tables as trainstack carries them")
    upgrade.add_argument("--write", type=Path, metavar="DIR",
                         help="write each step's whole stack file under DIR/<n>-<part>-<minor>/, to open one pull "
                              "request per step")
    upgrade.add_argument("--json", action="store_true", help="the steps and verdicts as JSON")
    upgrade.add_argument("--cwd", **here)
    upgrade.add_argument("--debug", action="store_true", help="show tracebacks of unexpected failures")
    upgrade.set_defaults(handler=upgrade_stack)


def upgrade_stack(args: argparse.Namespace) -> int:
    """Print the steps and each one's gate verdict; exit 1 when a step's gate is closed."""
    from ..analysis import plan_stack
    from ..boundary import read_yaml_mapping
    from ..catalog import eks_addon_versions
    from ..plan import find_project
    from ..upgrade.gate import judged_steps, write_stack_file
    from ..upgrade.steps import upgrade_steps

    project = find_project(args.cwd)
    document = read_yaml_mapping(project.stack_file(args.stack), "stack file")
    if args.aws:
        import boto3

        client = boto3.client("eks")
        steps = upgrade_steps(document, args.to,
                              lambda addon, minor: eks_addon_versions.from_eks(client, addon, minor))
    else:
        steps = upgrade_steps(document, args.to, eks_addon_versions.from_the_guide)
    base = plan_stack(args.stack, project)
    judged = list(judged_steps(project, args.stack, base, steps))
    written: list[Path] = []
    if args.write is not None:
        for number, each in enumerate(judged, start=1):
            slug = each.step.part.replace(" ", "-")
            written.append(write_stack_file(args.write / f"{number}-{slug}-{each.step.minor}", args.stack,
                                            each.step.document))
    current = _version_of(document)
    if args.json:
        print(json.dumps({"stack": args.stack, "from": current, "to": args.to,
                          "steps": [_as_dict(number, each) for number, each in enumerate(judged, start=1)],
                          "written": [str(path) for path in written]}, indent=2))
    else:
        print(_text(args.stack, current, args.to, judged, written))
    if all(each.passed for each in judged):
        return EXIT_OK
    closed = [f"{number}. {each.step.title}" for number, each in enumerate(judged, start=1) if not each.passed]
    print(f"error: the gate is closed on {len(closed)} step(s): {'; '.join(closed)}", file=sys.stderr)
    return EXIT_POLICY


def _version_of(document: dict[str, Any]) -> Optional[str]:
    config = document.get("config", {})
    block = config.get("trainstack:eks") or config.get("trainstack:existingCluster") or {}
    version = block.get("version")
    return None if version is None else str(version)


def _as_dict(number: int, judged: Any) -> dict[str, Any]:
    return {"number": number, "part": judged.step.part, "minor": judged.step.minor, "changes": judged.step.changes,
            "notes": judged.step.notes, "gate": {"passed": judged.passed,
                                                 "blocking": judged.findings("blocking"),
                                                 "warnings": judged.findings("warning")},
            "objects": {"checked": judged.objects, "findings": [str(finding) for finding in judged.api_findings]},
            "monthlyCostChangeUsd": judged.monthly_cost_change}


def _text(stack: str, current: Optional[str], target: str, judged: list[Any], written: list[Path]) -> str:
    from ..catalog import eks_versions

    window = ", ".join(eks_versions.offered())
    lines = [f"trainstack upgrade: {stack}, Kubernetes {current} -> {target}, {len(judged)} step(s), one pull request "
             f"each (EKS's window on {eks_versions.DATA_DATE.isoformat()}: {window})"]
    for number, each in enumerate(judged, start=1):
        cost = each.monthly_cost_change
        money = "unpriced" if cost is None else f"{cost:+,.2f} USD"
        blocking, warnings = each.findings("blocking"), each.findings("warning")
        blocking += [str(finding) for finding in each.api_blocking]
        lines += ["", f"{number}. {each.step.title}: gate {'passed' if each.passed else 'CLOSED'} "
                      f"({len(blocking)} blocking, {len(warnings)} warning(s)); monthly cost {money}"]
        lines += [f"   sets {key}: {json.dumps(value)}" if value is not None else f"   removes {key}"
                  for key, value in each.step.changes.items()]
        verdicts = "; ".join(str(finding) for finding in each.api_findings) or "none removed, unserved or deprecated"
        lines.append(f"   objects: {each.objects} checked against Kubernetes {each.api_minor}'s API: {verdicts}")
        lines += [f"   blocking: {finding}" for finding in blocking]
        lines += [f"   warning: {finding}" for finding in warnings]
        lines += [f"   note: {note}" for note in each.step.notes]
    if written:
        lines += ["", "Wrote each step's stack file:", *[f"  {path}" for path in written]]
    return "\n".join(lines)
