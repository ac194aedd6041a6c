"""The ``trainstack`` command.

Exit codes: 0 ok; 1 a mandatory policy (plan) failed, preflight did not pass (a check
failed, could not run without --allow-unchecked, or nothing was checked), or the diff's
gate is closed (a new mandatory failure, unapproved data loss); 2 the project, its config,
an argument or a file read or written is invalid (one line naming it), or `report` lacks
Graphviz's `dot`; 3 the program failed for another reason (``--debug`` shows the traceback).

Every file a command reads or writes passes through ``trainstack.boundary`` (one reader
per kind of file: YAML project and stack files, JSON records, outputs and policy
configuration, and ``-o`` outputs).
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from . import catalog
from .boundary import FileProblem, check_writable, cut, read_json_object, write_text
from .config import ConfigError

if TYPE_CHECKING:
    from .config import StackConfig
    from .config.ip_budget import IpBudget
    from .controllers import Report as ControllerReport
    from .outputs import StackOutputs
    from .plan import Plan, Project
    from .preflight import Clients

EXIT_OK, EXIT_POLICY, EXIT_CONFIG, EXIT_FAILURE = 0, 1, 2, 3
PROGRAM_ERROR_SHOWN = 300
"""Characters of an unexpected error's message the CLI prints (--debug shows all of it)."""
OUTPUTS_FIX = "write it with `pulumi stack output --json > outputs.json`"
POLICY_CONFIG_FIX = 'write a JSON object such as {"all": "advisory", "<rule id>": "disabled"}'


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
    preflight.add_argument("--allow-unchecked", action="store_true",
                           help="accept checks that could not run (no permission, an API out of reach); a run in "
                                "which no check reached the account still fails")
    preflight.set_defaults(handler=_preflight)

    launch = commands.add_parser("launch", help="render a job from the stack's outputs (pulumi stack output --json)")
    kinds = launch.add_subparsers(dest="kind", required=True)
    for kind, text in (("pytorchjob", "PyTorchJob for GPU groups (FSDP)"), ("mpijob", "MPIJob for Neuron groups"),
                       ("hyperpod-pytorchjob", "PyTorchJob that HyperPod (EKS) resumes after replacing a node"),
                       ("sbatch", "sbatch script for a HyperPod Slurm partition"),
                       ("device-check", "Job checking each node's accelerators and EFA devices"),
                       ("all-reduce", "PyTorchJob timing NCCL all-reduce against a bandwidth floor"),
                       ("trainjob", "TrainJob (Kubeflow Trainer v2): torch on GPU groups, Open MPI on Neuron groups")):
        job = kinds.add_parser(kind, help=text)
        job.add_argument("--outputs", type=Path, default=Path("-"),
                         help="file with `pulumi stack output --json` (default: stdin)")
        job.add_argument("--group", required=True, help="accelerated group (HyperPod: worker group)")
        job.add_argument("--nodes", type=int, required=True)
        job.add_argument("--name", default=f"trainstack-{kind}")
        job.add_argument("--per-node", type=int, help="devices per node (default: all of them)")
        if kind == "trainjob":
            # On Neuron the MPI runtime's image runs the ranks (launch/trainjob.py): optional there.
            job.add_argument("--image", help="container image (GPU groups; Neuron groups run the MPI runtime's)")
        elif kind != "sbatch":
            job.add_argument("--image", required=True, help="container image (e.g. from the stack's imageRepository)")
        if kind == "all-reduce":
            job.add_argument("--floor-gbps", type=float,
                             help="fail below this bus bandwidth (Gbit/s; default: half the type's peak, "
                                  "see trainstack.launch.floors)")
        if kind in ("pytorchjob", "mpijob"):
            from .launch.mpijob import LAUNCHER_RESTART_POLICIES
            from .launch.restarts import RESTART_POLICIES

            # The MPI launcher is a batch Job: only the policies its pods may have (launch/mpijob.py).
            job.add_argument("--restart-policy", default="OnFailure",
                             choices=list(LAUNCHER_RESTART_POLICIES if kind == "mpijob" else RESTART_POLICIES),
                             help="replica restart policy after a failure or a lost node (default OnFailure)")
            job.add_argument("--backoff-limit", type=int,
                             help="restarts before the job fails (default 3; none with Never)")
            job.add_argument("--min-nodes", type=int,
                             help="PyTorchJob with etcd: keep training on at least this many nodes (elastic)")
        if kind == "hyperpod-pytorchjob":
            job.add_argument("--max-retries", type=int, default=3,
                             help="times HyperPod restarts the job after a fault (default 3)")
            job.add_argument("--namespace", help="kubeflow or hyperpod-* (default: the FSx claim's, else kubeflow)")
        if kind in QUEUED_KINDS:
            # Stacks with a scheduling block: the job goes through the team's Kueue queue (launch/queueing.py).
            job.add_argument("--team", help="the team whose Kueue queue admits the job (default: the only team)")
            job.add_argument("--topology", choices=("preferred", "required"), default="preferred",
                             help="keep the nodes in one EC2 network block if possible, or wait until they can be")
            job.add_argument("--layer", type=int, help="network layer the nodes share (1 = top; default: bottom)")
            job.add_argument("--priority", help="a WorkloadPriorityClass of the stack")
        if kind in ("pytorchjob", "mpijob", "sbatch", "hyperpod-pytorchjob", "trainjob"):
            # Not dest "command": that is the subcommand's, which an empty remainder would overwrite.
            job.add_argument("job_command", metavar="command", nargs=argparse.REMAINDER,
                             help="-- the command (sbatch: torchrun's script)")
        job.set_defaults(handler=_launch)

    diff = commands.add_parser("diff", help="compare two plan records (or a saved base with the stack planned now)")
    diff.add_argument("base", type=Path, help="the base revision's record (trainstack plan --json)")
    diff.add_argument("head", type=Path, nargs="?",
                      help="the head revision's record; without it, plan --stack in --cwd now and compare")
    diff.add_argument("--stack", "-s", help="the stack to plan when HEAD is not given (default: the base's stack)")
    diff.add_argument("--cwd", type=Path, default=Path.cwd(), help="start the Pulumi.yaml search here")
    diff.add_argument("--format", choices=("text", "markdown", "json", "sarif"), default="text")
    diff.add_argument("--approve-replace", action="append", default=[], metavar="URN",
                      help="approve the data loss of replacing or deleting this resource (repeat per resource)")
    diff.add_argument("--policy-config", type=Path,
                      help="policy pack configuration: the head is planned under it, or, with HEAD given, each "
                           "record's policies are judged again under it, on top of the configuration the record "
                           "was planned with")
    diff.add_argument("--output", "-o", type=Path, help="write the report here instead of standard output")
    diff.add_argument("--debug", action="store_true", help="show tracebacks of unexpected failures")
    diff.set_defaults(handler=_diff)

    report = commands.add_parser("report", help="write one self-contained HTML page: resource graph, deploy "
                                                "timeline, cost, policies (needs Graphviz's dot)")
    report.add_argument("record", type=Path, nargs="?", help="a saved record (trainstack plan --json); "
                                                              "without it the stack is planned now")
    report.add_argument("--stack", "-s", help="the stack to plan when RECORD is not given (default dev)")
    report.add_argument("--base", type=Path, help="the base revision's record: mark what changes from it")
    report.add_argument("--cwd", type=Path, default=Path.cwd(), help="start the Pulumi.yaml search here")
    report.add_argument("--policy-config", type=Path,
                        help="policy pack configuration: the stack is planned under it, or a saved record's "
                             "policies are judged again under it")
    report.add_argument("--output", "-o", type=Path, help="write the page here instead of standard output")
    report.add_argument("--debug", action="store_true", help="show tracebacks of unexpected failures")
    report.set_defaults(handler=_report_page)

    listing = commands.add_parser("catalog", help="list the instance catalog")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=_catalog)
    return parser


def _plan(args: argparse.Namespace) -> int:
    from .plan import ProjectError, find_project, render_json, render_text

    try:
        project = find_project(args.cwd)
        plan = _planned(project, args.stack, args.policy_config)
    except ConfigError as error:
        return _config_failure(error, args.json)
    except ProjectError as error:
        return _report(args.json, "project", str(error), EXIT_CONFIG)
    except FileProblem as error:
        return _report(args.json, "input", str(error), EXIT_CONFIG)
    except Exception as error:  # noqa: BLE001 - the CLI reports, it does not crash
        return _unexpected(error, args.debug, args.json)
    print(render_json(plan) if args.json else render_text(plan))
    failed = plan.sections["policies"]["mandatoryFailures"] or plan.sections["controllers"]["errors"]
    return EXIT_POLICY if failed else EXIT_OK


def _planned(project: Project, stack: str, policy_config_file: Path | None) -> Plan:
    """The stack planned offline, with its cost, critical path and policy results as record sections."""
    from .estimate import critical_path, estimate_cost
    from .estimate.checkpoint import storage_sizing
    from .launch.queueing import describe_queues
    from .outputs import OUTPUT_NAME, parse_outputs
    from .plan import run_plan
    from .policy import evaluate, stack_from_plan

    _refuse_secret_trainstack_keys(project, stack)
    plan = run_plan(project, stack)
    policy_config = _policy_config(project, stack, policy_config_file)
    cost = estimate_cost(plan)
    plan.sections["cost"] = {**cost.as_dict(), "text": cost.render()}
    path = critical_path(plan)
    plan.sections["criticalPath"] = {**path.as_dict(), "text": path.render()}
    budget = _ip_budget(project, stack)
    if budget is not None:
        plan.sections["ipBudget"] = {**budget.as_dict(), "text": budget.render()}
    sizing = storage_sizing(plan)
    if sizing is not None:
        plan.sections["storage"] = {**sizing.as_dict(), "text": sizing.render()}
    report = evaluate(stack_from_plan(plan), policy_config)
    # The configuration is kept with the results, so a saved record can be judged again under
    # a policy config on top of its own (diff and report with --policy-config).
    plan.sections["policies"] = {**report.as_dict(), "config": policy_config, "text": report.render()}
    # The outputs contract, read once for the models' whole-node pods and the queues.
    outputs = parse_outputs(plan.outputs) if isinstance(plan.outputs.get(OUTPUT_NAME), dict) else None
    models = _controller_models(plan, outputs)
    plan.sections["controllers"] = {**models.as_dict(), "text": models.render()}
    queues = describe_queues(outputs) if outputs is not None else None
    if queues is not None:
        plan.sections["queues"] = {"text": queues}
    return plan


def _controller_models(plan: Plan, outputs: Optional[StackOutputs]) -> ControllerReport:
    """The controller models over the plan, judging the pod the EKS launchers render on a whole node of
    each accelerated group."""
    from .controllers import check_stack

    pods = _whole_node_pods(outputs) if outputs is not None else {}
    return check_stack(plan, pods.items())


def _whole_node_pods(outputs: StackOutputs) -> dict[str, dict[str, Any]]:
    """Per accelerated group, its pods' placement and whole-node requests, from the launchers' own functions."""
    from .launch.placement import pod_placement, resources

    return {f"{name}/whole-node pod": {**pod_placement(group), "containers": [
        {"name": "job", "resources": resources(group, group.accelerators_per_node)}]}
        for name, group in sorted(outputs.accelerated_groups.items())}


def _diff(args: argparse.Namespace) -> int:
    """Compare two records; exit 1 when the gate closes (new mandatory failure, unapproved data loss)."""
    from .plan import ProjectError, find_project
    from .review import RecordError, assess, blocking, compare, load_record

    try:
        if args.output is not None:
            check_writable(args.output, "output")
        base = load_record(args.base)
        root = args.cwd.resolve()
        if args.head is not None:
            head = load_record(args.head)
            project = _project_if_any(args.cwd)
            root = project.root if project is not None else root
            if args.policy_config is not None:
                extra = _policy_config_file(args.policy_config)
                base, head = _judged(base, extra), _judged(head, extra)
        else:
            project = find_project(args.cwd)
            root = project.root
            head = _planned_record(project, args.stack or base["stack"], args.policy_config)
        _same_stack(base, head)
        diff = compare(base, head)
        findings = assess(diff, frozenset(args.approve_replace))
        text = _diff_text(args.format, diff, findings, root)
        if args.output is not None:
            write_text(args.output, text + "\n", "output")
        else:
            print(text)
    except ConfigError as error:
        return _config_failure(error, False)
    except (RecordError, ProjectError, FileProblem) as error:
        return _report(False, "input", str(error), EXIT_CONFIG)
    except Exception as error:  # noqa: BLE001 - the CLI reports, it does not crash
        return _unexpected(error, args.debug, False)
    return EXIT_POLICY if blocking(findings) else EXIT_OK


def _diff_text(output_format: str, diff: Any, findings: Any, root: Path) -> str:
    from .review import render_json, render_markdown, render_sarif, render_text

    if output_format == "sarif":
        return json.dumps(render_sarif(diff, findings, root), indent=2)
    rendered: str = {"text": render_text, "markdown": render_markdown, "json": render_json}[output_format](
        diff, findings)
    return rendered


def _report_page(args: argparse.Namespace) -> int:
    """The HTML report of a saved record or of the stack planned now; exit 2 when it cannot be made."""
    from .plan import ProjectError, find_project
    from .report import ReportError, render_report
    from .review import RecordError, load_record

    try:
        if args.output is not None:
            check_writable(args.output, "output")
        if args.record is not None:
            if args.stack is not None:
                raise RecordError("give a saved record or --stack, not both")
            head = load_record(args.record)
            if args.policy_config is not None:
                head = _judged(head, _policy_config_file(args.policy_config))
        else:
            head = _planned_record(find_project(args.cwd), args.stack or "dev", args.policy_config)
        base = load_record(args.base) if args.base is not None else None
        if base is not None:
            _same_stack(base, head)
        page = render_report(head, base)
        if args.output is not None:
            write_text(args.output, page, "output")
        else:
            sys.stdout.write(page)
    except ConfigError as error:
        return _config_failure(error, False)
    except (RecordError, ProjectError, ReportError, FileProblem) as error:
        return _report(False, "input", str(error), EXIT_CONFIG)
    except Exception as error:  # noqa: BLE001 - the CLI reports, it does not crash
        return _unexpected(error, args.debug, False)
    return EXIT_OK


def _project_if_any(cwd: Path) -> Optional[Project]:
    """The project above ``cwd``, or None where there is none (records can be compared anywhere)."""
    from .plan import ProjectError, find_project

    try:
        return find_project(cwd)
    except ProjectError as error:
        if isinstance(error, FileProblem):
            raise
        return None


def _judged(record: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``record`` with its policies judged again under the configuration it was planned with
    (``policies.config``; none in records made before it was kept) with ``extra`` on top."""
    from .plan import Plan
    from .policy import evaluate, stack_from_plan

    config = {**(record.get("policies") or {}).get("config", {}), **extra}
    report = evaluate(stack_from_plan(Plan.from_dict(record)), config)
    return {**record, "policies": {**report.as_dict(), "config": config, "text": report.render()}}


def _planned_record(project: Project, stack: str, policy_config: Optional[Path]) -> dict[str, Any]:
    """The stack planned now, as the JSON record `trainstack plan --json` writes (what a saved one reads back as)."""
    from .review import check_record

    plan = _planned(project, stack, policy_config)
    return check_record(json.loads(json.dumps(plan.to_dict(), default=str)), f"stack {plan.stack}")


def _same_stack(base: dict[str, Any], head: dict[str, Any]) -> None:
    """Refuse to compare records of two different stacks."""
    from .review import RecordError

    if (base["stack"], base["project"]) != (head["stack"], head["project"]):
        raise RecordError(f"the records are of different stacks ({cut(base['project'] + '/' + base['stack'])} and "
                          f"{cut(head['project'] + '/' + head['stack'])}): compare a stack with itself")


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


def _ip_budget(project: Project, stack: str) -> Optional[IpBudget]:
    """Pods per node and each zone's subnet addresses at max size (None without EKS)."""
    from .config.ip_budget import ip_budget

    config = _stack_config(project, stack)
    return ip_budget(config) if config is not None else None


def _policy_config(project: Project, stack: str, extra: Path | None) -> dict:
    """Stack-wide policy settings from the stack's own config, then the given file."""
    config: dict = {}
    stack_config = _stack_config(project, stack)
    if stack_config is not None:
        config["profile"] = stack_config.profile
        if stack_config.cost.max_hourly_usd:
            config["maxHourlyUsd"] = stack_config.cost.max_hourly_usd
    if extra is not None:
        config.update(_policy_config_file(extra))
    return config


def _policy_config_file(path: Path) -> dict[str, Any]:
    """A policy pack configuration file: a JSON object of settings the rules read."""
    from .policy import config_problems

    config = read_json_object(path, "policy config", POLICY_CONFIG_FIX)
    problems = config_problems(config)
    if problems:
        raise FileProblem(f"policy config {cut(str(path))}: {cut(' '.join(problems), 4 * PROGRAM_ERROR_SHOWN)}")
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


def _unexpected(error: Exception, debug: bool, as_json: bool) -> int:
    """An error no check foresaw: one bounded line (the traceback with --debug), exit 3."""
    if debug:
        traceback.print_exc()
    return _report(as_json, "program", cut(f"{type(error).__name__}: {error}", PROGRAM_ERROR_SHOWN), EXIT_FAILURE)


def _report(as_json: bool, kind: str, message: str, code: int) -> int:
    if as_json:
        print(json.dumps({"error": {"kind": kind, "message": message}}, indent=2))
    else:
        print(f"error: {message}", file=sys.stderr)
        if code == EXIT_FAILURE:
            print("(run again with --debug for the traceback)", file=sys.stderr)
    return code


def _preflight(args: argparse.Namespace, clients: Optional[Clients] = None) -> int:
    """Exit 1 unless every check that ran passed and something was checked (see preflight.verdict)."""
    from .plan import ProjectError, find_project
    from .preflight import Clients, render, run_preflight, verdict

    try:
        project = find_project(args.cwd)
        config = _stack_config(project, args.stack)
        if config is None:
            raise ProjectError(f"stack {args.stack} has no trainstack configuration")
    except ConfigError as error:
        return _config_failure(error, args.json)
    except ProjectError as error:
        return _report(args.json, "project", str(error), EXIT_CONFIG)
    except FileProblem as error:
        return _report(args.json, "input", str(error), EXIT_CONFIG)
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


QUEUED_KINDS = ("pytorchjob", "mpijob", "device-check", "all-reduce", "trainjob")


def _launch(args: argparse.Namespace) -> int:
    """Render the job; a bad outputs file or argument exits 2 with one line."""
    import yaml

    from .launch import LaunchError
    from .outputs import ContractError, parse_outputs

    try:
        outputs = parse_outputs(read_json_object(args.outputs, "outputs", OUTPUTS_FIX))
    except FileProblem as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_CONFIG
    except ContractError as error:
        print(f"error: outputs {cut(str(args.outputs))}: {error}", file=sys.stderr)
        return EXIT_CONFIG
    try:
        job = _launched(args, outputs)
    except LaunchError as error:
        print(f"error: launch: {error}", file=sys.stderr)
        return EXIT_CONFIG
    print(job if isinstance(job, str) else yaml.safe_dump(job, sort_keys=False), end="")
    return EXIT_OK


def _launched(args: argparse.Namespace, outputs: Any) -> str | dict[str, Any]:
    """The sbatch script or the job object the launcher of ``args.kind`` renders."""
    from .launch import (
        QueueRequest,
        render_all_reduce,
        render_device_check,
        render_hyperpod_pytorchjob,
        render_mpijob,
        render_pytorchjob,
        render_sbatch,
        render_trainjob,
    )

    command = [part for part in getattr(args, "job_command", []) if part != "--"]
    common: dict[str, Any] = {"name": args.name, "group_name": args.group, "nodes": args.nodes}
    if args.kind == "sbatch":
        return render_sbatch(outputs, **common, script=command, gpus_per_node=args.per_node)
    restarts = {"restart_policy": args.restart_policy, "backoff_limit": args.backoff_limit,
                "min_nodes": args.min_nodes} if args.kind in ("pytorchjob", "mpijob") else {}
    if args.kind in QUEUED_KINDS:
        # A stack without queues refuses any queue option rather than ignore it.
        common["queue"] = QueueRequest(team=args.team, topology=args.topology, layer=args.layer,
                                       priority=args.priority)
    if args.kind == "pytorchjob":
        return render_pytorchjob(outputs, **common, image=args.image, command=command, gpus_per_node=args.per_node,
                                 **restarts)
    if args.kind == "mpijob":
        return render_mpijob(outputs, **common, image=args.image, command=command, devices_per_worker=args.per_node,
                             **restarts)
    if args.kind == "hyperpod-pytorchjob":
        return render_hyperpod_pytorchjob(outputs, **common, image=args.image, command=command,
                                          gpus_per_node=args.per_node, namespace=args.namespace,
                                          max_retries=args.max_retries)
    if args.kind == "trainjob":
        return render_trainjob(outputs, **common, image=args.image, command=command, gpus_per_node=args.per_node)
    if args.kind == "device-check":
        return render_device_check(outputs, **common, image=args.image, accelerators_per_node=args.per_node)
    return render_all_reduce(outputs, **common, image=args.image, floor_gbps=args.floor_gbps,
                             gpus_per_node=args.per_node)


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
