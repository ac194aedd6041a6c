"""``trainstack doctor``: the running cluster (and with ``--aws`` the account) read against the stack's plan record,
one line a finding with what the plan expected, what is there and the fix (``trainstack.doctor``). Reads only."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..boundary import FileProblem, cut
from .errors import EXIT_CONFIG, EXIT_OK, EXIT_POLICY

if TYPE_CHECKING:
    from ..doctor.finding import Section
    from ..kube.kubeconfig import Access
    from ..plan import Plan

EPILOG = (f"exit codes: {EXIT_OK} healthy; {EXIT_POLICY} findings (each line says the fix); {EXIT_CONFIG} the cluster "
          "or the account cannot be read (the line says what and why), or the input is invalid; 3 doctor failed "
          "otherwise (--debug shows the traceback).")
ACCESS_FIX = ("give --kubeconfig PATH (and --context NAME) for the cluster, or --outputs OUTPUTS.json (pulumi stack "
              "output --json --show-secrets) to read it through the stack's own kubeconfig output")


def add_doctor(commands: Any, here: dict[str, Any]) -> None:
    from ..doctor.finding import SECTIONS

    doctor = commands.add_parser(
        "doctor", epilog=EPILOG,
        help="read the running cluster against the stack's plan: each node group's nodes, devices, labels, taints "
             "and health, the add-ons, why jobs are pending, whether jobs use EFA, and with --aws the account; one "
             "line a finding, with its fix (read only)")
    plan = doctor.add_mutually_exclusive_group(required=True)
    plan.add_argument("--stack", "-s", help="the stack to plan offline now (stacks/Pulumi.<stack>.yaml)")
    plan.add_argument("--plan", type=Path, metavar="RECORD", help="a saved plan record (trainstack plan --json) "
                                                                  "instead of planning the stack now")
    doctor.add_argument("--cwd", **here)
    doctor.add_argument("--outputs", type=Path,
                        help="the stack's outputs (pulumi stack output --json --show-secrets, '-' for stdin): the "
                             "cluster is read through their kubeconfig unless --kubeconfig is given")
    doctor.add_argument("--kubeconfig", type=Path,
                        help="read the cluster through this kubeconfig (bearer tokens and exec plugins such as aws "
                             "eks get-token), for a cluster made elsewhere too")
    doctor.add_argument("--context", help="the kubeconfig context to use (default: its current context)")
    doctor.add_argument("--aws", action="store_true",
                        help="also read the AWS account: capacity reservations and blocks, node group health, FSx, "
                             "EKS upgrade insights (the default credential chain)")
    doctor.add_argument("--section", action="append", choices=SECTIONS,
                        help="answer only this part (repeat for more): cluster (nodes and add-ons against the plan), "
                             "pending (why jobs wait), fabric (EFA in use), aws (implies --aws); default every part "
                             "the cluster holds, and aws with --aws")
    doctor.add_argument("--json", action="store_true", help="print the diagnosis as one JSON document")
    doctor.add_argument("--debug", action="store_true", help="show tracebacks of unexpected failures")
    doctor.set_defaults(handler=run_doctor)


def run_doctor(args: argparse.Namespace) -> int:
    """Exit 0 healthy, 1 with findings, 2 when the cluster or the account cannot be read."""
    from ..doctor.finding import Unreachable
    from ..doctor.run import doctor
    from ..kube.kubeconfig import CredentialError, connect

    plan = _plan(args)
    sections = _sections(args)
    access = _access(args, plan.stack) if any(s != "aws" for s in sections) else None
    try:
        clients = _aws_clients(plan) if "aws" in sections else None
        if access is None:
            diagnosis = doctor(plan, None, sections, clients)
        else:
            with connect(access) as cluster:
                diagnosis = doctor(plan, cluster, sections, clients)
    except CredentialError as error:
        return _unreachable(args, plan.stack, f"the API server {cut(access.server) if access else ''} could not be "
                            f"read: {error}")
    except Unreachable as error:
        return _unreachable(args, plan.stack, str(error))
    print(json.dumps(diagnosis.as_dict(), indent=2) if args.json else diagnosis.render_text())
    if diagnosis.healthy:
        return EXIT_OK
    print(f"error: doctor of stack {plan.stack}: {diagnosis.summary()}", file=sys.stderr)
    return EXIT_POLICY


def _plan(args: argparse.Namespace) -> Plan:
    from ..analysis import load_record, plan_stack
    from ..plan import find_project

    if args.plan is not None:
        return load_record(args.plan)
    return plan_stack(args.stack, find_project(args.cwd))


def _sections(args: argparse.Namespace) -> tuple[Section, ...]:
    from ..doctor.run import CLUSTER_SECTIONS

    chosen = tuple(args.section) if args.section else CLUSTER_SECTIONS
    return (*chosen, "aws") if args.aws and "aws" not in chosen else chosen


def _access(args: argparse.Namespace, stack: str) -> Access:
    """The kubeconfig to read the cluster through: --kubeconfig, else the --outputs' kubeconfig output."""
    from ..kube.kubeconfig import read_access
    from .commands import _kubeconfig, read_outputs_file

    if args.kubeconfig is None and args.outputs is None:
        raise FileProblem(f"doctor reads the cluster through a kubeconfig: {ACCESS_FIX}")
    document: dict[str, Any] = {}
    output, shown = "", "--kubeconfig"
    if args.outputs is not None:
        document, outputs, shown = read_outputs_file(args.outputs)
        if outputs.stack != stack:
            raise FileProblem(f"{shown} are stack {cut(outputs.stack)}'s, and the plan is stack {cut(stack)}'s; give "
                              f"the outputs of {cut(stack)}, or --stack {cut(outputs.stack)}")
        output = outputs.kubeconfig_output
    kubeconfig, name, directory = _kubeconfig(args.kubeconfig, document, shown, output)
    return read_access(kubeconfig, name, directory, args.context)


def _aws_clients(plan: Plan) -> Any:
    """The account's clients in the stack's region (``Unreachable`` where no credentials are usable)."""
    from ..doctor.aws import DoctorClients
    from ..outputs import parse_outputs

    region = parse_outputs(plan.outputs).region or plan.default_region
    if not region:
        raise FileProblem(f"the plan of stack {cut(plan.stack)} names no region to read the account in")
    return DoctorClients.for_region(region)


def _unreachable(args: argparse.Namespace, stack: str, message: str) -> int:
    if args.json:
        print(json.dumps({"doctorVersion": 1, "stack": stack, "healthy": False, "unreachable": message}, indent=2))
    print(f"error: {message}", file=sys.stderr)
    return EXIT_CONFIG

