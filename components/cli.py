"""The ``trainstack`` command.

Exit codes: 0 ok; 1 a mandatory policy (plan) or a preflight check failed; 2 the
project, its config or the input is invalid; 3 the program failed for another reason
(``--debug`` shows the traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from . import catalog
from .config import ConfigError

if TYPE_CHECKING:
    from .config import StackConfig
    from .plan import Project
    from .preflight import Clients

EXIT_OK, EXIT_POLICY, EXIT_CONFIG, EXIT_FAILURE = 0, 1, 2, 3


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_CONFIG
    try:
        code: int = args.handler(args)
        return code
    except BrokenPipeError:  # output piped into `head`
        return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trainstack", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command")

    plan = commands.add_parser("plan", help="plan a stack offline: resource tree, inputs, options, outputs")
    plan.add_argument("--stack", "-s", default="dev", help="stack name (stacks/Pulumi.<stack>.yaml); default dev")
    plan.add_argument("--cwd", type=Path, default=Path.cwd(), help="start the Pulumi.yaml search here")
    plan.add_argument("--json", action="store_true", help="print the plan record as one JSON document")
    plan.add_argument("--debug", action="store_true", help="show tracebacks of unexpected failures")
    plan.add_argument("--policy-config", type=Path,
                      help="policy pack configuration (JSON, CrossGuard's shape) on top of the stack's own")
    plan.set_defaults(handler=_plan)

    preflight = commands.add_parser("preflight", help="check the stack against the AWS account (read only)")
    preflight.add_argument("--stack", "-s", default="dev")
    preflight.add_argument("--cwd", type=Path, default=Path.cwd())
    preflight.add_argument("--json", action="store_true")
    preflight.set_defaults(handler=_preflight)

    launch = commands.add_parser("launch", help="render a job from the stack's outputs (pulumi stack output --json)")
    kinds = launch.add_subparsers(dest="kind", required=True)
    for kind, text in (("pytorchjob", "PyTorchJob for GPU groups (FSDP)"), ("mpijob", "MPIJob for Neuron groups"),
                       ("sbatch", "sbatch script for a HyperPod Slurm partition"),
                       ("device-check", "Job checking each node's accelerators and EFA devices"),
                       ("all-reduce", "PyTorchJob timing NCCL all-reduce against a bandwidth floor")):
        job = kinds.add_parser(kind, help=text)
        job.add_argument("--outputs", type=Path, default=Path("-"),
                         help="file with `pulumi stack output --json` (default: stdin)")
        job.add_argument("--group", required=True, help="accelerated group (HyperPod: worker group)")
        job.add_argument("--nodes", type=int, required=True)
        job.add_argument("--name", default=f"trainstack-{kind}")
        job.add_argument("--per-node", type=int, help="devices per node (default: all of them)")
        if kind != "sbatch":
            job.add_argument("--image", required=True, help="container image (e.g. from the stack's imageRepository)")
        if kind == "all-reduce":
            job.add_argument("--floor-gbps", type=float, required=True, help="fail below this bus bandwidth")
        if kind in ("pytorchjob", "mpijob", "sbatch"):
            job.add_argument("command", nargs=argparse.REMAINDER, help="-- the command (sbatch: torchrun's script)")
        job.set_defaults(handler=_launch)

    listing = commands.add_parser("catalog", help="list the instance catalog")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=_catalog)
    return parser


def _plan(args: argparse.Namespace) -> int:
    from .plan import ProjectError, find_project, render_json, render_text, run_plan

    try:
        project = find_project(args.cwd)
        _refuse_secret_trainstack_keys(project, args.stack)
        plan = run_plan(project, args.stack)
        policy_config = _policy_config(project, args.stack, args.policy_config)
    except ConfigError as error:
        return _config_failure(error, args.json)
    except ProjectError as error:
        return _report(args.json, "project", str(error), EXIT_CONFIG)
    except Exception as error:  # noqa: BLE001 - the CLI reports, it does not crash
        if args.debug:
            traceback.print_exc()
        return _report(args.json, "program", f"{type(error).__name__}: {error}", EXIT_FAILURE)
    from .estimate import critical_path, estimate_cost
    from .policy import evaluate, stack_from_plan

    cost = estimate_cost(plan)
    plan.sections["cost"] = {**cost.as_dict(), "text": cost.render()}
    path = critical_path(plan)
    plan.sections["criticalPath"] = {**path.as_dict(), "text": path.render()}
    report = evaluate(stack_from_plan(plan), policy_config)
    plan.sections["policies"] = {**report.as_dict(), "text": report.render()}
    print(render_json(plan) if args.json else render_text(plan))
    return EXIT_POLICY if report.mandatory_failures else EXIT_OK


def _stack_config(project: Project, stack: str) -> Optional[StackConfig]:
    """The stack's validated StackConfig, read from its file (None when it has no trainstack keys)."""
    from .config import validate_stack_config
    from .plan import load_stack

    raw: dict[str, Any] = {}
    for key, value in load_stack(project, stack).config.items():
        if key.startswith("trainstack:"):
            try:
                raw[key.split(":", 1)[1]] = json.loads(value)
            except ValueError:
                raw[key.split(":", 1)[1]] = value
    return validate_stack_config(raw) if raw else None


def _policy_config(project: Project, stack: str, extra: Path | None) -> dict:
    """Stack-wide policy settings from the stack's own config, then the given file."""
    from .plan import ProjectError

    config: dict = {}
    stack_config = _stack_config(project, stack)
    if stack_config is not None:
        config["profile"] = stack_config.profile
        if stack_config.cost.max_hourly_usd:
            config["maxHourlyUsd"] = stack_config.cost.max_hourly_usd
    if extra is not None:
        try:
            config.update(json.loads(extra.read_text()))
        except (OSError, ValueError) as error:
            raise ProjectError(f"policy config {extra}: {error}") from None
    return config


def _refuse_secret_trainstack_keys(project: Project, stack: str) -> None:
    """The offline plan cannot decrypt ``secure:`` values; trainstack's own keys hold no secrets,
    so an encrypted one would only fail validation with a confusing message."""
    from .plan import ProjectError, load_stack

    secret = [k for k in load_stack(project, stack).secret_keys if k.startswith("trainstack:")]
    if secret:
        raise ProjectError(f"{', '.join(secret)} {'is' if len(secret) == 1 else 'are'} secure: the offline plan "
                           "cannot decrypt it. trainstack keys hold no secrets: keep them in plain text "
                           "(secrets of other namespaces are fine and become placeholders).")


def _config_failure(error: ConfigError, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"error": {"kind": "config", "issues": [i.as_dict() for i in error.issues]}}, indent=2))
    else:
        print(f"error: {error}", file=sys.stderr)
    return EXIT_CONFIG


def _report(as_json: bool, kind: str, message: str, code: int) -> int:
    if as_json:
        print(json.dumps({"error": {"kind": kind, "message": message}}, indent=2))
    else:
        print(f"error: {message}", file=sys.stderr)
        if code == EXIT_FAILURE:
            print("(run again with --debug for the traceback)", file=sys.stderr)
    return code


def _preflight(args: argparse.Namespace, clients: Optional[Clients] = None) -> int:
    from .plan import ProjectError, find_project
    from .preflight import Clients, render, run_preflight

    try:
        project = find_project(args.cwd)
        config = _stack_config(project, args.stack)
        if config is None:
            raise ProjectError(f"stack {args.stack} has no trainstack configuration")
    except ConfigError as error:
        return _config_failure(error, args.json)
    except ProjectError as error:
        return _report(args.json, "project", str(error), EXIT_CONFIG)
    checks = run_preflight(config, clients or Clients.for_region(config.region))
    if args.json:
        print(json.dumps([c.__dict__ for c in checks], indent=2))
    else:
        print(f"Preflight of {project.name} / {args.stack} in {config.region}\n")
        print(render(checks))
    return EXIT_POLICY if any(c.status == "fail" for c in checks) else EXIT_OK


def _launch(args: argparse.Namespace) -> int:
    import yaml

    from .launch import render_all_reduce, render_device_check, render_mpijob, render_pytorchjob, render_sbatch
    from .outputs import ContractError, parse_outputs

    try:
        text = sys.stdin.read() if str(args.outputs) == "-" else args.outputs.read_text()
        outputs = parse_outputs(json.loads(text))
        command = [part for part in getattr(args, "command", []) if part != "--"]
        common = {"name": args.name, "group_name": args.group, "nodes": args.nodes}
        if args.kind == "sbatch":
            print(render_sbatch(outputs, **common, script=command, gpus_per_node=args.per_node), end="")
            return EXIT_OK
        if args.kind == "pytorchjob":
            job = render_pytorchjob(outputs, **common, image=args.image, command=command, gpus_per_node=args.per_node)
        elif args.kind == "mpijob":
            job = render_mpijob(outputs, **common, image=args.image, command=command,
                                devices_per_worker=args.per_node)
        elif args.kind == "device-check":
            job = render_device_check(outputs, **common, image=args.image)
        else:
            job = render_all_reduce(outputs, **common, image=args.image, floor_gbps=args.floor_gbps)
    except (OSError, ValueError) as error:  # ContractError and LaunchError are ValueErrors
        kind = "outputs" if isinstance(error, (ContractError, OSError, json.JSONDecodeError)) else "launch"
        print(f"error: {kind}: {error}", file=sys.stderr)
        return EXIT_CONFIG
    print(yaml.safe_dump(job, sort_keys=False), end="")
    return EXIT_OK


def _catalog(args: argparse.Namespace) -> int:
    rows = []
    for entry in catalog.INSTANCE_TYPES:
        accelerator = entry.accelerator
        price = entry.price("us-east-1")
        rows.append({
            "instanceType": entry.name,
            "accelerator": f"{accelerator.count} x {accelerator.name}" if accelerator else "-",
            "efaInterfaces": "unknown" if entry.efa.max_interfaces is None else entry.efa.max_interfaces,
            "maxPods": "unknown" if entry.network.max_pods is None else entry.network.max_pods,
            "hyperpod": entry.hyperpod,
            "usdPerHourUsEast1": price.usd_per_hour if price else "no published price",
        })
    if args.json:
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    header = f"{'instance type':<20} {'accelerators':<18} {'EFA':>7} {'max pods':>8}  {'HyperPod':<8}  us-east-1 $/h"
    print(header)
    for row in rows:
        print(f"{row['instanceType']:<20} {row['accelerator']:<18} {row['efaInterfaces']!s:>7} "
              f"{row['maxPods']!s:>8}  {'yes' if row['hyperpod'] else 'no':<8}  {row['usdPerHourUsEast1']}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
