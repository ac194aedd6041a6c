"""The ``trainstack`` command.

Exit codes: 0 ok; 1 a mandatory policy (plan) failed, preflight did not pass (a check
failed, could not run without --allow-unchecked, or nothing was checked), or the diff's
gate is closed (a new mandatory failure, unapproved data loss); 2 the project, its config,
an argument or a file read or written is invalid (one line naming it), or `report` lacks
Graphviz's `dot`; 3 the program failed for another reason (``--debug`` shows the traceback).

Every file a command reads or writes passes through ``trainstack.boundary`` (one reader
per kind of file: YAML project and stack files, JSON records, outputs and policy
configuration, and ``-o`` outputs). The work is ``trainstack.analysis``'s: this module
parses arguments, calls it, and maps its errors to exit codes in one place (:func:`_print_error`).
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from . import catalog
from .analysis.gate import DIFF_FORMATS
from .boundary import FileProblem, check_writable, cut, read_json_object, write_text
from .cli_launch import BY_NAME, KINDS, add_kind, launched
from .config import ConfigError

if TYPE_CHECKING:
    from .analysis import Plan
    from .plan import Project
    from .preflight import Clients

EXIT_OK, EXIT_POLICY, EXIT_CONFIG, EXIT_FAILURE = 0, 1, 2, 3
PROGRAM_ERROR_SHOWN = 300
"""Characters of an unexpected error's message the CLI prints (--debug shows all of it)."""
OUTPUTS_FIX = "write it with `pulumi stack output --json > outputs.json`"


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_CONFIG
    try:
        return _run(args)
    except BrokenPipeError:  # output piped into `head`
        return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trainstack", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command")
    for add in (_add_plan, _add_preflight, _add_launch, _add_diff, _add_report, _add_catalog):
        add(commands)
    return parser


HERE: dict[str, Any] = {"type": Path, "default": Path.cwd(), "help": "start the Pulumi.yaml search here"}
DEBUG: dict[str, Any] = {"action": "store_true", "help": "show tracebacks of unexpected failures"}
OUTPUT: dict[str, Any] = {"type": Path, "help": "write it here instead of standard output"}


def _add_plan(commands: Any) -> None:
    plan = commands.add_parser("plan", help="plan a stack offline: resource tree, inputs, options, outputs")
    plan.add_argument("--stack", "-s", default="dev", help="stack name (stacks/Pulumi.<stack>.yaml); default dev")
    plan.add_argument("--cwd", **HERE)
    plan.add_argument("--json", action="store_true", help="print the plan record as one JSON document")
    plan.add_argument("--debug", **DEBUG)
    plan.add_argument("--policy-config", type=Path,
                      help="policy pack configuration (JSON, CrossGuard's shape) on top of the stack's own")
    plan.set_defaults(handler=_plan)


def _add_preflight(commands: Any) -> None:
    preflight = commands.add_parser("preflight", help="check the stack against the AWS account (read only)")
    preflight.add_argument("--stack", "-s", default="dev")
    preflight.add_argument("--cwd", **HERE)
    preflight.add_argument("--json", action="store_true")
    preflight.add_argument("--allow-unchecked", action="store_true",
                           help="accept checks that could not run (no permission, an API out of reach); a run in "
                                "which no check reached the account still fails")
    preflight.set_defaults(handler=_preflight)


def _add_launch(commands: Any) -> None:
    launch = commands.add_parser("launch", help="render a job from the stack's outputs (pulumi stack output --json)")
    kinds = launch.add_subparsers(dest="kind", required=True)
    for kind in KINDS:
        add_kind(kinds, kind).set_defaults(handler=_launch)


def _add_diff(commands: Any) -> None:
    diff = commands.add_parser("diff", help="compare two plan records (or a saved base with the stack planned now)")
    diff.add_argument("base", type=Path, help="the base revision's record (trainstack plan --json)")
    diff.add_argument("head", type=Path, nargs="?",
                      help="the head revision's record; without it, plan --stack in --cwd now and compare")
    diff.add_argument("--stack", "-s", help="the stack to plan when HEAD is not given (default: the base's stack)")
    diff.add_argument("--cwd", **HERE)
    diff.add_argument("--format", choices=DIFF_FORMATS, default="text")
    diff.add_argument("--approve-replace", action="append", default=[], metavar="URN",
                      help="approve the data loss of replacing or deleting this resource (repeat per resource)")
    diff.add_argument("--policy-config", type=Path,
                      help="policy pack configuration: the head is planned under it, or, with HEAD given, each "
                           "record's policies are judged again under it, on top of the configuration the record "
                           "was planned with")
    diff.add_argument("--output", "-o", **OUTPUT)
    diff.add_argument("--debug", **DEBUG)
    diff.set_defaults(handler=_diff)


def _add_report(commands: Any) -> None:
    report = commands.add_parser("report", help="write one self-contained HTML page: resource graph, deploy "
                                                "timeline, cost, policies (needs Graphviz's dot)")
    report.add_argument("record", type=Path, nargs="?", help="a saved record (trainstack plan --json); "
                                                              "without it the stack is planned now")
    report.add_argument("--stack", "-s", help="the stack to plan when RECORD is not given (default dev)")
    report.add_argument("--base", type=Path, help="the base revision's record: mark what changes from it")
    report.add_argument("--cwd", **HERE)
    report.add_argument("--policy-config", type=Path,
                        help="policy pack configuration: the stack is planned under it, or a saved record's "
                             "policies are judged again under it")
    report.add_argument("--output", "-o", **OUTPUT)
    report.add_argument("--debug", **DEBUG)
    report.set_defaults(handler=_report_page)


def _add_catalog(commands: Any) -> None:
    listing = commands.add_parser("catalog", help="list the instance catalog")
    listing.add_argument("--json", action="store_true")
    listing.add_argument("--region", default="us-east-1", help="the region whose on-demand prices to list")
    listing.set_defaults(handler=_catalog)


def _run(args: argparse.Namespace) -> int:
    """The command's exit code; its errors printed by :func:`_print_error` (the one place they are mapped)."""
    try:
        code: int = args.handler(args)
        return code
    except Exception as error:  # noqa: BLE001 - the CLI reports, it does not crash
        return _print_error(error, args)


def _print_error(error: Exception, args: argparse.Namespace) -> int:
    """One line (or, with --json, one JSON object) for ``error`` and its exit code: 2 for what the user can
    fix (configuration, project, files, arguments), 3 for the rest (commands with --debug; others re-raise)."""
    from .launch import LaunchError
    from .plan import ProjectError
    from .report import ReportError

    as_json = bool(getattr(args, "json", False))
    if isinstance(error, ConfigError):
        if as_json:
            print(json.dumps({"error": {"kind": "config", "issues": [i.as_dict() for i in error.issues]}}, indent=2))
        else:
            print(f"error: {error}", file=sys.stderr)
        return EXIT_CONFIG
    if isinstance(error, ProjectError):
        return _print_line(as_json, "project", str(error), EXIT_CONFIG)
    if isinstance(error, (FileProblem, ReportError)):
        return _print_line(as_json, "input", str(error), EXIT_CONFIG)
    if isinstance(error, LaunchError):
        return _print_line(as_json, "input", f"launch: {error}", EXIT_CONFIG)
    if not hasattr(args, "debug"):
        raise error
    if args.debug:
        traceback.print_exception(error)
    return _print_line(as_json, "program", cut(f"{type(error).__name__}: {error}", PROGRAM_ERROR_SHOWN), EXIT_FAILURE)


def _print_line(as_json: bool, kind: str, message: str, code: int) -> int:
    if as_json:
        print(json.dumps({"error": {"kind": kind, "message": message}}, indent=2))
    else:
        print(f"error: {message}", file=sys.stderr)
        if code == EXIT_FAILURE:
            print("(run again with --debug for the traceback)", file=sys.stderr)
    return code


def _plan(args: argparse.Namespace) -> int:
    from .analysis import failed, plan_stack, render_json, render_text
    from .plan import find_project

    plan = plan_stack(args.stack, find_project(args.cwd), args.policy_config)
    print(render_json(plan) if args.json else render_text(plan))
    return EXIT_POLICY if failed(plan) else EXIT_OK


def _diff(args: argparse.Namespace) -> int:
    """Compare two records; exit 1 when the gate closes (new mandatory failure, unapproved data loss)."""
    from .analysis import judge_again, load_record, plan_stack, policy_config_file, review
    from .plan import find_project

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
    _write(args.output, change.render(args.format, root) + "\n")
    return EXIT_OK if change.passed else EXIT_POLICY


def _report_page(args: argparse.Namespace) -> int:
    """The HTML report of a saved record or of the stack planned now; exit 2 when it cannot be made."""
    from .analysis import (
        RecordError,
        judge_again,
        load_record,
        plan_stack,
        policy_config_file,
        render_report,
        same_stack,
    )
    from .plan import find_project

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
    _write(args.output, render_report(head, base))
    return EXIT_OK


def _check_output(path: Optional[Path]) -> None:
    if path is not None:
        check_writable(path, "output")


def _write(path: Optional[Path], text: str) -> None:
    """``text`` into ``path``, or onto standard output without one."""
    if path is not None:
        write_text(path, text, "output")
    else:
        sys.stdout.write(text)


def _project_if_any(cwd: Path) -> Optional[Project]:
    """The project above ``cwd``, or None where there is none (records can be compared anywhere)."""
    from .plan import ProjectError, find_project

    try:
        return find_project(cwd)
    except ProjectError as error:
        if isinstance(error, FileProblem):
            raise
        return None


def _preflight(args: argparse.Namespace, clients: Optional[Clients] = None) -> int:
    """Exit 1 unless every check that ran passed and something was checked (see preflight.verdict)."""
    from .analysis import stack_config
    from .plan import ProjectError, find_project, load_stack
    from .preflight import Clients, render, run_preflight, verdict

    project = find_project(args.cwd)
    config = stack_config(load_stack(project, args.stack))
    if config is None:
        raise ProjectError(f"stack {args.stack} has no trainstack configuration")
    checks = run_preflight(config, clients or Clients.for_region(config.region))
    why_not = verdict(checks, allow_unchecked=args.allow_unchecked)
    if args.json:
        print(json.dumps([c.__dict__ for c in checks], indent=2))
    else:
        print(f"Preflight of {project.name} / {args.stack} in {config.region}\n")
        print(render(checks))
    if why_not is not None:
        print(f"error: preflight did not pass: {why_not}", file=sys.stderr)
        return EXIT_POLICY
    return EXIT_OK


def _launch(args: argparse.Namespace) -> int:
    """Render the job; a bad outputs file or argument exits 2 with one line."""
    import yaml

    from .outputs import ContractError, parse_outputs

    try:
        outputs = parse_outputs(read_json_object(args.outputs, "outputs", OUTPUTS_FIX))
    except ContractError as error:
        raise FileProblem(f"outputs {cut(str(args.outputs))}: {error}") from None
    job = launched(BY_NAME[args.kind], args, outputs)
    print(job if isinstance(job, str) else yaml.safe_dump(job, sort_keys=False), end="")
    return EXIT_OK


def _catalog(args: argparse.Namespace) -> int:
    """The instance catalog, with each type's on-demand price in ``--region``."""
    region = args.region
    rows = []
    for entry in catalog.INSTANCE_TYPES:
        accelerator = entry.accelerator
        price = entry.price(region)
        rows.append({
            "instanceType": entry.name,
            "accelerator": f"{accelerator.count} x {accelerator.name}" if accelerator else "-",
            "efaInterfaces": "unknown" if entry.efa.max_interfaces is None else entry.efa.max_interfaces,
            "maxPods": "unknown" if entry.network.max_pods is None else entry.network.max_pods,
            "hyperpod": entry.hyperpod,
            _price_key(region): price.usd_per_hour if price else "no published price",
        })
    if args.json:
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    print(f"{'instance type':<20} {'accelerators':<18} {'EFA':>7} {'max pods':>8}  {'HyperPod':<8}  {region} $/h")
    for row in rows:
        print(f"{row['instanceType']:<20} {row['accelerator']:<18} {row['efaInterfaces']!s:>7} "
              f"{row['maxPods']!s:>8}  {'yes' if row['hyperpod'] else 'no':<8}  {row[_price_key(region)]}")
    return EXIT_OK


def _price_key(region: str) -> str:
    """The JSON key of a row's price: ``usdPerHourUsEast1`` for us-east-1 (the key the listing always had)."""
    return "usdPerHour" + "".join(part.capitalize() for part in region.split("-"))


if __name__ == "__main__":
    sys.exit(main())
