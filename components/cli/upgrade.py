"""`trainstack upgrade`: a stack's Kubernetes upgrade as the ordered stack-file changes EKS requires, each judged by
the gate as its pull request would be (upgrade/steps.py, upgrade/gate.py)."""

from __future__ import annotations

import argparse
import functools
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
    upgrade.add_argument("--api-server", action="store_true",
                         help="also dry-run every object the last step renders on the target minor's own "
                              "kube-apiserver, built from source (engines/build.sh; 1.35 and 1.36)")
    upgrade.add_argument("--crds", type=Path, metavar="DIR",
                         help="with --api-server: CRD files (*.yaml, searched below DIR) installed first, so the "
                              "custom resources are dry-run too; without them each is reported as needing its CRD")
    upgrade.add_argument("--json", action="store_true", help="the steps and verdicts as JSON")
    upgrade.add_argument("--cwd", **here)
    upgrade.add_argument("--debug", action="store_true", help="show tracebacks of unexpected failures")
    upgrade.set_defaults(handler=upgrade_stack)


def _eks_client(document: dict[str, Any]) -> Any:
    """An EKS client in the stack's own region (``trainstack:region``; botocore's default only where the file sets
    none), its credentials required first: the one line and exit 2 of every command that calls AWS."""
    import boto3

    from ..preflight.credentials import require_credentials

    region = (document.get("config") or {}).get("trainstack:region")
    session = boto3.Session(region_name=str(region) if region else None)
    require_credentials(session)
    return session.client("eks")


def upgrade_stack(args: argparse.Namespace) -> int:
    """Print the steps and each one's gate verdict; exit 1 when a step's gate is closed."""
    from ..analysis import plan_stack
    from ..boundary import read_pulumi_yaml, read_text, shown_path
    from ..catalog import eks_addon_versions
    from ..plan import find_project
    from ..upgrade.gate import judged_steps, step_files, write_stack_file
    from ..upgrade.steps import AddonVersion, stack_file_minor, upgrade_steps

    project = find_project(args.cwd)
    path = project.stack_file(args.stack)
    document = read_pulumi_yaml(path, "stack file")
    addon_version: AddonVersion = eks_addon_versions.from_the_guide
    if args.aws:
        addon_version = functools.partial(eks_addon_versions.from_eks, _eks_client(document))
    steps = upgrade_steps(document, args.to, addon_version)
    # Each step's file is the user's own, changed only where the step sets a key (comments and $schema line kept).
    files = step_files(read_text(path, "stack file"), document, steps, f"stack file {shown_path(path)}")
    base = plan_stack(args.stack, project)
    judged = list(judged_steps(project, args.stack, base, steps, files))
    written: list[Path] = []
    if args.write is not None:
        for number, each in enumerate(judged, start=1):
            slug = each.step.part.replace(" ", "-")
            written.append(write_stack_file(args.write / f"{number}-{slug}-{each.step.minor}", args.stack,
                                            files[number - 1]))
    current = stack_file_minor(document)
    served = _on_the_api_server(judged[-1], args.to, args.crds) if args.api_server and judged else None
    if args.json:
        print(json.dumps({"stack": args.stack, "from": current, "to": args.to,
                          "steps": [_as_dict(number, each) for number, each in enumerate(judged, start=1)],
                          "apiServer": served, "written": [str(path) for path in written]}, indent=2))
    else:
        print(_text(args.stack, current, args.to, judged, written))
        if served is not None:
            print(_server_text(served))
    refused = served is not None and any(verdict != "deprecated" for verdict in served["findings"].values())
    if all(each.passed for each in judged) and not refused:
        return EXIT_OK
    closed = [f"{number}. {each.step.title}" for number, each in enumerate(judged, start=1) if not each.passed]
    if refused:
        closed.append(f"the {args.to} API server refused or could not check objects of the last step")
    print(f"error: the gate is closed: {'; '.join(closed)}", file=sys.stderr)
    return EXIT_POLICY


def _on_the_api_server(last: Any, target: str, crds_directory: Optional[Path]) -> dict[str, Any]:
    """The last step's objects dry-run on ``target``'s own kube-apiserver: what it accepted and what it said."""
    from ..upgrade.api_check import api_server, dry_run, server_version

    crds = _crds(crds_directory) if crds_directory is not None else []
    objects = last.rendered
    with api_server(target) as plane:
        version, _ = server_version(plane.cluster)
        findings = dry_run(objects, plane.cluster, crds)
    return {"server": version, "objects": len(objects), "crds": len(crds),
            "findings": {f"{finding.kind} {finding.name} ({finding.api_version})": finding.verdict
                         for finding in findings}}


def _crds(directory: Path) -> list[dict[str, Any]]:
    """Every CustomResourceDefinition in the YAML files below ``directory`` (charts ship theirs as such files)."""
    import yaml

    from ..boundary import FileProblem, read_text, shown_path

    if not directory.is_dir():
        raise FileProblem(f"--crds {shown_path(directory)} is not a directory: give the directory that holds the CRD "
                          "files (for example a chart's crds/)")
    found = []
    for path in sorted(directory.rglob("*.yaml")):
        try:
            documents = list(yaml.safe_load_all(read_text(path, "CRD file")))
        except yaml.YAMLError as error:
            raise FileProblem(f"CRD file {shown_path(path)} is not valid YAML: {error}") from None
        found += [document for document in documents
                  if isinstance(document, dict) and document.get("kind") == "CustomResourceDefinition"]
    return found


def _server_text(served: dict[str, Any]) -> str:
    findings = served["findings"]
    lines = ["", f"On Kubernetes {served['server']}'s own kube-apiserver (server-side dry-run, strict field "
                 f"validation, {served['crds']} CRDs installed first): {served['objects'] - len(findings)} of "
                 f"{served['objects']} objects accepted as they are"]
    lines += [f"  {verdict}: {what}" for what, verdict in findings.items()]
    return "\n".join(lines)


def _as_dict(number: int, judged: Any) -> dict[str, Any]:
    return {"number": number, "part": judged.step.part, "minor": judged.step.minor, "changes": judged.step.changes,
            "notes": judged.step.notes, "gate": {"passed": judged.passed,
                                                 "blocking": judged.findings("blocking"),
                                                 "warnings": judged.findings("warning")},
            "objects": {"checked": judged.objects, "findings": [str(finding) for finding in judged.api_findings]},
            "monthlyCostChangeUsd": judged.monthly_cost_change}


def _text(stack: str, current: str, target: str, judged: list[Any], written: list[Path]) -> str:
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
