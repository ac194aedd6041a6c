"""The command line's grammar: each command and its options (the launch kinds' from their table)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..analysis.gate import DIFF_FORMATS
from ..boundary import cut
from ..outputs import CONTRACT_VERSION
from ..version import version
from . import commands as run
from .capacity import add_capacity
from .deploy import add_deploy
from .doctor import add_doctor
from .errors import EXIT_CODES
from .init import add_init
from .launch import KINDS, add_kind, launch_job
from .prices import add_prices
from .rehearse import rehearse
from .upgrade import add_upgrade

DESCRIPTION = ("Plan an AWS training cluster offline (no AWS account needed), judge it and a change to it, check it "
               "against an account, and render jobs from its outputs.")


def parser() -> argparse.ArgumentParser:
    # Help is plain text: argparse prints descriptions as written, so no reStructuredText markup here.
    parser = argparse.ArgumentParser(prog="trainstack", description=DESCRIPTION, epilog=EXIT_CODES)
    parser.add_argument("--version", action="version", version=version_line(),
                        help="print trainstack's version and the outputs-contract version, then exit")
    commands = parser.add_subparsers(dest="command")
    for add in (_add_plan, _add_preflight, _add_launch, _add_diff, _add_report, _add_catalog, add_prices,
                add_capacity, _add_rehearse):
        add(commands)
    add_deploy(commands, HERE)
    add_doctor(commands, HERE)
    add_init(commands, HERE)
    add_upgrade(commands, HERE)
    return parser


def version_line() -> str:
    """``trainstack 0.1.0 (outputs contract 2)``: what a launcher reading a stack's outputs needs too."""
    return f"trainstack {version()} (outputs contract {CONTRACT_VERSION})"


HERE: dict[str, Any] = {"type": Path, "default": Path.cwd(), "help": "start the Pulumi.yaml search here"}
DEBUG: dict[str, Any] = {"action": "store_true", "help": "show tracebacks of unexpected failures"}
OUTPUT: dict[str, Any] = {"type": Path, "help": "write it to this file instead of standard output (a line on "
                                                 "standard error confirms it)"}


def _add_plan(commands: Any) -> None:
    plan = commands.add_parser("plan", help="plan a stack offline: resource tree, inputs, options, outputs")
    plan.add_argument("--stack", "-s", default="dev", help="stack name (stacks/Pulumi.<stack>.yaml); default dev")
    plan.add_argument("--cwd", **HERE)
    plan.add_argument("--json", action="store_true", help="print the plan record as one JSON document")
    plan.add_argument("--debug", **DEBUG)
    plan.add_argument("--policy-config", type=Path,
                      help="policy pack configuration (JSON, CrossGuard's shape) on top of the stack's own")
    plan.set_defaults(handler=run.plan)


def _add_preflight(commands: Any) -> None:
    preflight = commands.add_parser("preflight", help="check the stack against the AWS account, or (preflight nodes) "
                                                      "its running cluster's accelerated nodes (read only)")
    preflight.add_argument("--stack", "-s", default="dev", help="stack name (stacks/Pulumi.<stack>.yaml); default dev")
    preflight.add_argument("--cwd", **HERE)
    preflight.add_argument("--json", action="store_true", help="print the checks as one JSON list")
    preflight.add_argument("--allow-unchecked", action="store_true",
                           help="accept checks that could not run (no permission, an API out of reach); a run in "
                                "which no check reached the account still fails")
    preflight.set_defaults(handler=run.preflight)
    scopes = preflight.add_subparsers(dest="scope", metavar="{nodes}",
                                      help="without one, the account; nodes: the running cluster's accelerated "
                                           "nodes")
    _add_preflight_nodes(scopes)


def _add_preflight_nodes(scopes: Any) -> None:
    nodes = scopes.add_parser("nodes", help="check the running cluster's accelerated nodes show the GPUs, Neuron "
                                            "devices and EFA interfaces of their instance type, in their group's "
                                            "number, EFA nodes offer the 2 MiB huge pages their group's pods "
                                            "request, the CSI driver etcd's volume needs is registered, and on a "
                                            "stack with teams the VPC CNI enforces their NetworkPolicies (read "
                                            "only)")
    nodes.add_argument("--outputs", type=Path, default=Path("-"),
                       help="the stack's outputs: pulumi stack output --json --show-secrets (its kubeconfig is used "
                            "unless --kubeconfig is given), or a plan record with --kubeconfig (default: stdin)")
    nodes.add_argument("--kubeconfig", type=Path,
                       help="read the cluster through this kubeconfig instead of the outputs' kubeconfig (bearer "
                            "tokens and exec plugins such as aws eks get-token)")
    nodes.add_argument("--context", help="the kubeconfig context to use (default: its current context)")
    # SUPPRESS: given before `nodes` (`preflight --json nodes`), the preflight parser's value stands; argparse
    # would otherwise overwrite it with this parser's default.
    nodes.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                       help="print the checks as one JSON list")
    nodes.add_argument("--allow-unchecked", action="store_true", default=argparse.SUPPRESS,
                       help="accept groups that could not be checked (no node running yet); a run that checked no "
                            "node still fails")
    nodes.add_argument("--wait", type=_wait_minutes, default=0, metavar="MINUTES",
                       help="read the nodes again, as trainstack up's deviceWait does, until every accelerated node "
                            "shows its devices or MINUTES pass (1 to 240), then check (default: one read, no wait)")
    nodes.add_argument("--debug", **DEBUG)
    nodes.set_defaults(handler=run.preflight_nodes)


def _wait_minutes(text: str) -> int:
    """``--wait``'s minutes: a whole number in deviceWait.timeoutMinutes' range."""
    from ..config.device_wait import DeviceWait

    bounds = DeviceWait.model_fields["timeout_minutes"].metadata
    low, high = (next(getattr(b, attr) for b in bounds if hasattr(b, attr)) for attr in ("ge", "le"))
    if not text.isdigit() or not low <= int(text) <= high:
        raise argparse.ArgumentTypeError(f"'{cut(text)}' is not a whole number of minutes from {low} to {high}; give "
                                         "e.g. --wait 20, or leave it out for one read")
    return int(text)


def _add_launch(commands: Any) -> None:
    launch = commands.add_parser("launch", help="render a job from the stack's outputs (a plan record, or pulumi stack "
                                                  "output --json)")
    kinds = launch.add_subparsers(dest="kind", required=True)
    for kind in KINDS:
        add_kind(kinds, kind).set_defaults(handler=launch_job)


def _add_diff(commands: Any) -> None:
    diff = commands.add_parser("diff", help="compare two plan records (or a saved base with the stack planned now)")
    diff.add_argument("base", type=Path, help="the base revision's record (trainstack plan --json)")
    diff.add_argument("head", type=Path, nargs="?",
                      help="the head revision's record; without it, plan --stack in --cwd now and compare")
    diff.add_argument("--stack", "-s", help="the stack to plan when HEAD is not given (default: the base's stack)")
    diff.add_argument("--cwd", **HERE)
    diff.add_argument("--format", choices=DIFF_FORMATS, default="text",
                      help="text (default), markdown (a pull-request comment), json (reportVersion 1) or sarif "
                           "(code scanning, at the stack file's lines)")
    diff.add_argument("--approve-replace", action="append", default=[], metavar="URN",
                      help="approve the data loss of replacing or deleting this resource (repeat per resource)")
    diff.add_argument("--policy-config", type=Path,
                      help="policy pack configuration: the head is planned under it, or, with HEAD given, each "
                           "record's policies are judged again under it, on top of the configuration the record "
                           "was planned with")
    diff.add_argument("--output", "-o", **OUTPUT)
    diff.add_argument("--debug", **DEBUG)
    diff.set_defaults(handler=run.diff)


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
    report.set_defaults(handler=run.report_page)


def _add_catalog(commands: Any) -> None:
    listing = commands.add_parser("catalog", help="list the instance catalog")
    listing.add_argument("--json", action="store_true", help="print the rows as one JSON list")
    listing.add_argument("--region", default="us-east-1", help="the region whose on-demand prices to list")
    listing.set_defaults(handler=run.catalog_listing)


def _add_rehearse(commands: Any) -> None:
    rehearse_parser = commands.add_parser(
        "rehearse", help="run the stack's Kubernetes layer and jobs through the real controllers it installs "
                         "(Kueue, JobSet, Trainer, MPI and training operators) on nodes kwok simulates; "
                         "builds them from source with Go the first time")
    rehearse_parser.add_argument("--stack", "-s", default="dev", help="stack name (stacks/Pulumi.<stack>.yaml); "
                                                                      "default dev")
    rehearse_parser.add_argument("--cwd", **HERE)
    rehearse_parser.add_argument("--json", action="store_true", help="print the rehearsal as one JSON document")
    rehearse_parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines on standard error")
    rehearse_parser.add_argument("--faults", action="store_true",
                                 help="also lose a node under a running job, and (with Kueue queues) have every team "
                                      "submit at once, just after a team's job without a queue name, which must be "
                                      "refused or held; about a minute more")
    rehearse_parser.add_argument("--only", action="append", choices=[k.name for k in KINDS if k.image != "none"],
                                 help="rehearse only this launcher's jobs (repeat for more); default every launcher "
                                      "that serves the stack's groups")
    rehearse_parser.add_argument("--job-timeout", type=float, default=None,
                                 help="seconds each job has to run whole before it counts as unable to; default: "
                                      "each job's own, from its pods and the controllers' rates (90 s and up)")
    rehearse_parser.add_argument("--logs", type=Path,
                                 help="keep the control plane's and controllers' logs and certificates in this "
                                      "directory (default: a temporary one, removed after)")
    rehearse_parser.add_argument("--debug", **DEBUG)
    rehearse_parser.set_defaults(handler=rehearse)
