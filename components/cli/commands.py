"""The commands: each reads its arguments, calls ``trainstack.analysis`` (or the preflight), prints the result
and says its exit code; errors go up to ``errors.print_error``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from ..boundary import FileProblem, check_writable, cut, read_json_object, shown_path, write_text
from .errors import EXIT_OK, EXIT_POLICY

GATE_TITLES_SHOWN = 300
"""Characters of the blocking findings' titles the closed gate's line shows (the report has them all)."""

if TYPE_CHECKING:
    from ..analysis import Plan
    from ..config.device_wait import DeviceWait
    from ..outputs import StackOutputs
    from ..plan import Project
    from ..preflight import Clients


def plan(args: argparse.Namespace) -> int:
    """Plan the stack; exit 1 when a mandatory policy fails or a controller model finds an error."""
    from ..analysis import failed, plan_stack, render_json, render_text
    from ..plan import find_project
    from ..report.numbers import counted

    planned = plan_stack(args.stack, find_project(args.cwd), args.policy_config)
    print(render_json(planned) if args.json else render_text(planned))
    if not failed(planned):
        return EXIT_OK
    # Standard output holds the table or the record; the reason for exit 1 is said where errors go.
    policies, controllers = planned.sections.policies, planned.sections.controllers
    failures = policies.as_dict()["mandatoryFailures"] if policies else 0
    errors = controllers.as_dict()["errors"] if controllers else 0
    print(f"error: the plan of {planned.project} / {planned.stack} did not pass: "
          f"{counted(failures, 'mandatory policy', 'mandatory policies')} failed, "
          f"{counted(errors, 'controller model error')}", file=sys.stderr)
    return EXIT_POLICY


def diff(args: argparse.Namespace) -> int:
    """Compare two records; exit 1 when the gate closes (new mandatory failure, unapproved data loss)."""
    from ..analysis import judge_again, load_record, plan_stack, policy_config_file, review
    from ..plan import find_project

    _check_output(args.output)
    base = load_record(args.base)
    if args.head is not None:
        head = load_record(args.head)
        project = _project_if_any(args.cwd)
        root = project.root if project is not None else args.cwd.resolve()
        if args.policy_config is not None:
            extra = policy_config_file(args.policy_config)
            base, head = judge_again(base, extra), judge_again(head, extra)
    else:
        project = find_project(args.cwd)
        root = project.root
        head = plan_stack(args.stack or base.stack, project, args.policy_config)
    change = review(base, head, args.approve_replace)
    _write(args.output, change.render(args.format, root) + "\n", f"the diff ({args.format})")
    if change.passed:
        return EXIT_OK
    titles = "; ".join(finding.title for finding in change.blocking)
    print(f"error: the gate is closed: {len(change.blocking)} blocking: {cut(titles, GATE_TITLES_SHOWN)}",
          file=sys.stderr)
    return EXIT_POLICY


def report_page(args: argparse.Namespace) -> int:
    """The HTML report of a saved record or of the stack planned now; exit 2 when it cannot be made."""
    from ..analysis import (
        RecordError,
        judge_again,
        load_record,
        plan_stack,
        policy_config_file,
        render_report,
        same_stack,
    )
    from ..plan import find_project

    _check_output(args.output)
    head: Plan
    if args.record is not None:
        if args.stack is not None:
            raise RecordError("give a saved record or --stack, not both")
        head = load_record(args.record)
        if args.policy_config is not None:
            head = judge_again(head, policy_config_file(args.policy_config))
    else:
        head = plan_stack(args.stack or "dev", find_project(args.cwd), args.policy_config)
    base = load_record(args.base) if args.base is not None else None
    if base is not None:
        same_stack(base, head)
    _write(args.output, render_report(head, base), "the HTML report")
    return EXIT_OK


def _check_output(path: Optional[Path]) -> None:
    if path is not None:
        check_writable(path, "output")


def _write(path: Optional[Path], text: str, what: str) -> None:
    """``text`` into ``path``, or onto standard output without one. A file written is confirmed in one line
    on standard error, where every message goes: standard output holds only documents."""
    if path is not None:
        write_text(path, text, "output")
        print(f"wrote {what} to {shown_path(path)}", file=sys.stderr)
    else:
        sys.stdout.write(text)


def _project_if_any(cwd: Path) -> Optional[Project]:
    """The project above ``cwd``, or None where there is none (records can be compared anywhere)."""
    from ..plan import ProjectError, find_project

    try:
        return find_project(cwd)
    except ProjectError as error:
        if isinstance(error, FileProblem):
            raise
        return None


def preflight(args: argparse.Namespace, clients: Optional[Clients] = None) -> int:
    """Exit 1 unless every check that ran passed and something was checked (see preflight.verdict)."""
    from ..analysis import stack_config
    from ..plan import ProjectError, find_project, load_stack
    from ..preflight import Clients, run_preflight, verdict

    project = find_project(args.cwd)
    config = stack_config(load_stack(project, args.stack))
    if config is None:
        raise ProjectError(f"stack {args.stack} has no trainstack configuration")
    checks = run_preflight(config, clients or Clients.for_region(config.region))
    why_not = verdict(checks, allow_unchecked=args.allow_unchecked)
    return _preflight_result(checks, why_not, args.json, f"Preflight of {project.name} / {args.stack} in "
                             f"{config.region}")


NODES_OUTPUTS_FIX = ("write it with `pulumi stack output --json --show-secrets > outputs.json`, or give a plan "
                     "record (`trainstack plan --json`) with --kubeconfig")


def read_outputs_file(path: Path) -> tuple[dict[str, Any], StackOutputs, str]:
    """The stack outputs a command reads from ``path`` (``-``: standard input): the JSON document, the outputs
    contract in it, and how the file is named in messages. A file that holds no contract is a ``FileProblem``."""
    from ..analysis import read_outputs
    from ..outputs import ContractError

    shown = f"outputs {'<stdin>' if str(path) == '-' else shown_path(path)}"
    document = read_json_object(path, "outputs", NODES_OUTPUTS_FIX)
    try:
        return document, read_outputs(document, shown), shown
    except ContractError as error:
        raise FileProblem(f"{shown}: {error}") from None


def preflight_nodes(args: argparse.Namespace) -> int:
    """Exit 1 unless every EFA group's running nodes offer the huge pages its pods request, every accelerated
    group's nodes show their devices, the cluster runs the CSI driver each of the stack's claims needs, and, on a
    stack with teams, its VPC CNI enforces their NetworkPolicies (preflight.node_preflight)."""
    from ..config.device_wait import DeviceWait
    from ..kube.kubeconfig import read_access
    from ..launch.node_needs import hugepages_needs
    from ..preflight import verdict
    from ..preflight.network_policy import network_policy_need
    from ..preflight.node_devices import needs_from_outputs
    from ..preflight.node_preflight import CLUSTER, run_node_preflight
    from ..preflight.volume_drivers import volume_needs

    document, outputs, shown = read_outputs_file(args.outputs)
    hugepages = hugepages_needs(outputs)
    node_counts, uncounted, settings = _node_counts(args.cwd, outputs.stack)
    devices = needs_from_outputs(outputs, node_counts)
    volumes = volume_needs(outputs)
    network = network_policy_need(outputs)
    access = None
    if hugepages or devices or volumes or network is not None:
        kubeconfig, name, directory = _kubeconfig(args.kubeconfig, document, shown, outputs.kubeconfig_output)
        access = read_access(kubeconfig, name, directory, args.context)
    # --wait reads again as often as the stack's own deviceWait does, where it sets one.
    wait = DeviceWait(timeout_minutes=args.wait, poll_seconds=(settings or DeviceWait()).poll_seconds) \
        if args.wait else None

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    cluster_name = outputs.cluster.name if outputs.cluster is not None else None
    checks = (run_node_preflight(hugepages, devices, access, uncounted, wait, progress, volumes, cluster_name,
                                 network) if access is not None else [])
    why_not = verdict(checks, allow_unchecked=args.allow_unchecked, scope=CLUSTER)
    through = f" through {cut(access.server)} (context {cut(access.context)})" if access is not None else ""
    return _preflight_result(checks, why_not, args.json, f"Preflight of stack {outputs.stack}'s nodes{through}")


def _node_counts(cwd: Path, stack: str) -> tuple[dict[str, int], str, Optional[DeviceWait]]:
    """How many nodes each accelerated group of ``stack`` should have (its desiredSize; Karpenter pools none), from
    the stack file of the project above ``cwd``, and, where there is none, why the counts are not checked (the
    outputs contract does not carry desired sizes); with the stack's ``deviceWait``, if it sets one."""
    from ..analysis import stack_config
    from ..config.device_wait import device_needs
    from ..plan import ProjectError, find_project, load_stack

    try:
        project = find_project(cwd)
    except ProjectError as error:
        if isinstance(error, FileProblem):
            raise
        return {}, (f"no Pulumi project above {shown_path(cwd)} to read stack {cut(stack)}'s desiredSize from "
                    "(--cwd)"), None
    if stack not in project.stacks():
        return {}, f"project {cut(project.name)} has no stack file for stack {cut(stack)} (--cwd)", None
    config = stack_config(load_stack(project, stack))
    if config is None:
        return {}, f"stack {cut(stack)}'s stack file has no trainstack configuration", None
    return {need.group: need.nodes for need in device_needs(config.node_groups)}, "", config.device_wait


def _preflight_result(checks: list[Any], why_not: Optional[str], as_json: bool, heading: str) -> int:
    """The checks printed (a table under ``heading``, or JSON), and the exit code their verdict gives."""
    from ..preflight import render

    if as_json:
        print(json.dumps([c.__dict__ for c in checks], indent=2))
    else:
        print(f"{heading}\n")
        print(render(checks))
    if why_not is not None:
        print(f"error: preflight did not pass: {why_not}", file=sys.stderr)
        return EXIT_POLICY
    return EXIT_OK


def _kubeconfig(path: Optional[Path], document: dict[str, Any], shown: str,
                output: str) -> tuple[dict[str, Any], str, Path]:
    """The kubeconfig to read the cluster through, the name its errors give it, and the directory its relative
    paths start from: ``path``, else the stack's kubeconfig output in ``document``."""
    from ..analysis.records import RECORD_KEYS
    from ..boundary import parse_json_object, read_yaml_mapping
    from ..plan import SECRET_MARK

    if path is not None:
        return read_yaml_mapping(path, "kubeconfig"), f"kubeconfig {shown_path(path)}", path.resolve().parent
    if any(key in document for key in RECORD_KEYS):
        raise FileProblem(f"{shown} is a plan record, whose kubeconfig the offline plan made up; give the "
                          "cluster's with --kubeconfig")
    value = document.get(output)
    fix = "give --kubeconfig, or write the outputs with `pulumi stack output --json --show-secrets`"
    if value == SECRET_MARK:
        raise FileProblem(f"{shown}: the '{output}' output is {SECRET_MARK}: Pulumi did not show the secret; {fix}")
    if isinstance(value, str):
        value = parse_json_object(value, f"{shown}: the '{output}' output", fix)
    if not isinstance(value, dict):
        raise FileProblem(f"{shown} has no '{output}' output (a kubeconfig); {fix}")
    return value, f"{shown}: the '{output}' output", Path.cwd()


def catalog_listing(args: argparse.Namespace) -> int:
    """The instance catalog, with each type's on-demand price in ``--region`` (a region AWS has)."""
    from ..catalog import regions
    from ..catalog.listing import listing, render_listing

    if regions.find(args.region) is None:
        raise regions.UnknownRegionError(cut(args.region))
    rows = listing(args.region)
    print(json.dumps(rows, indent=2) if args.json else render_listing(rows, args.region))
    return EXIT_OK
