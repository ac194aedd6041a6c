"""``trainstack launch KIND``: one table of the job kinds, read by the parser and by the dispatch alike.

Each :class:`LaunchKind` names its launcher (``trainstack.launch``) and the options it takes;
the parser adds exactly those options, and :func:`launched` passes exactly those to the launcher.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Optional

from ..boundary import FileProblem, cut, dump_yaml_all, read_json_object, shown_path
from ..launch import (
    LaunchError,
    QueueRequest,
    render_all_reduce,
    render_device_check,
    render_hyperpod_pytorchjob,
    render_mpijob,
    render_pytorchjob,
    render_sbatch,
    render_trainjob,
)
from ..launch.claims import documents as claim_documents
from ..launch.mpijob import LAUNCHER_RESTART_POLICIES
from ..launch.rendezvous import BACKENDS, DEFAULT_BACKEND
from ..launch.restarts import RESTART_POLICIES
from ..outputs import ContractError, StackOutputs
from .errors import EXIT_OK

OUTPUTS_FIX = ("write it with `trainstack plan --json > plan.json` (offline) or `pulumi stack output --json > "
               "outputs.json` (a deployed stack)")


@dataclass(frozen=True)
class LaunchKind:
    name: str
    help: str
    render: Callable[..., Any]
    """The launcher: ``render(outputs, name=, group_name=, nodes=, ...)``, a job object or an sbatch script."""
    per_node: str
    """The launcher's keyword for ``--per-node``."""
    image: str = "required"
    """``required``, ``optional`` (Neuron TrainJobs run the MPI runtime's image) or ``none`` (sbatch)."""
    command: Optional[str] = None
    """The launcher's keyword for the command after ``--`` (None: the kind takes no command)."""
    restarts: tuple[str, ...] = ()
    """The ``--restart-policy`` choices (none: the kind has no restart options)."""
    queued: bool = True
    """Stacks with a scheduling block: the job goes through the team's Kueue queue (launch/queueing.py)."""
    options: tuple[str, ...] = ()
    """The kind's own options (``floor_gbps``; ``max_retries`` and ``namespace``; ``rendezvous``), passed by name."""


KINDS = (
    LaunchKind("pytorchjob", "PyTorchJob for GPU groups (FSDP)", render_pytorchjob, "gpus_per_node",
               command="command", restarts=tuple(RESTART_POLICIES), options=("rendezvous",)),
    # The MPI launcher is a batch Job: only the policies its pods may have (launch/mpijob.py).
    LaunchKind("mpijob", "MPIJob for Neuron groups", render_mpijob, "devices_per_worker",
               command="command", restarts=tuple(LAUNCHER_RESTART_POLICIES)),
    LaunchKind("hyperpod-pytorchjob", "PyTorchJob that HyperPod (EKS) resumes after replacing a node",
               render_hyperpod_pytorchjob, "gpus_per_node", command="command", queued=False,
               options=("max_retries", "namespace")),
    LaunchKind("sbatch", "sbatch script for a HyperPod Slurm partition", render_sbatch, "gpus_per_node",
               image="none", command="command", queued=False),
    LaunchKind("device-check", "Job checking each node's accelerators and EFA devices", render_device_check,
               "accelerators_per_node", options=("rendezvous",)),
    LaunchKind("all-reduce", "PyTorchJob timing NCCL all-reduce against a bandwidth floor", render_all_reduce,
               "gpus_per_node", options=("floor_gbps",)),
    # On Neuron the MPI runtime's image runs the ranks (launch/trainjob.py): optional there.
    LaunchKind("trainjob", "TrainJob (Kubeflow Trainer v2): torch on GPU groups, Open MPI on Neuron groups",
               render_trainjob, "gpus_per_node", image="optional", command="command"),
)
BY_NAME = {kind.name: kind for kind in KINDS}
OWN_OPTIONS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "floor_gbps": (("--floor-gbps",), {"type": float, "help": "fail below this bus bandwidth (Gbit/s; default: "
                                       "half the type's peak, see trainstack.launch.floors)"}),
    "max_retries": (("--max-retries",), {"type": int, "default": 3,
                                         "help": "times HyperPod restarts the job after a fault (default 3)"}),
    "namespace": (("--namespace",), {"help": "kubeflow or hyperpod-* (default: the FSx claim's, else kubeflow)"}),
    "rendezvous": (("--rendezvous",), {"choices": list(BACKENDS), "default": DEFAULT_BACKEND,
                                       "help": "how torchrun's agents meet: c10d (default; nothing to install) or "
                                               "etcd, for an elastic PyTorchJob (--min-nodes below --nodes) on a "
                                               "stack with operators.etcd and no teams, whose image needs "
                                               "python-etcd; "
                                               "device-check imports in --image what it names"}),
}


def _hours(text: str) -> float:
    try:
        hours = float(text)
    except ValueError:
        hours = -1.0
    if not 0 < hours < float("inf"):
        raise argparse.ArgumentTypeError(f"'{cut(text)}' is not a number of hours above 0 (e.g. 12 or 36.5)")
    return hours


def add_kind(kinds: Any, kind: LaunchKind) -> argparse.ArgumentParser:
    """The parser of ``trainstack launch <kind>``, with the options the kind takes."""
    job: argparse.ArgumentParser = kinds.add_parser(kind.name, help=kind.help)
    job.add_argument("--outputs", type=Path, default=Path("-"),
                     help="the stack's outputs: a plan record (trainstack plan --json) or pulumi stack output "
                          "--json (default: stdin)")
    job.add_argument("--group", required=True, help="accelerated group (HyperPod: worker group)")
    job.add_argument("--nodes", type=int, required=True, help="nodes the job runs on (1 to what the group has)")
    job.add_argument("--name", default=f"trainstack-{kind.name}",
                     help=f"the job's name (default trainstack-{kind.name})")
    job.add_argument("--per-node", type=int, help="devices per node (default: all of them)")
    job.add_argument("--cost", action="store_true", help="say on standard error what the job costs per hour "
                                                         "(its nodes x the group's rate, with the rate's source)")
    job.add_argument("--duration", type=_hours, help="how long the job runs, in hours (12, 36.5): --cost, with "
                                                     "the total for that long")
    if kind.image == "optional":
        job.add_argument("--image", help="container image (GPU groups; Neuron groups run the MPI runtime's)")
    elif kind.image == "required":
        job.add_argument("--image", required=True, help="container image (e.g. from the stack's imageRepository)")
    for option in kind.options:
        flags, settings = OWN_OPTIONS[option]
        job.add_argument(*flags, **settings)
    if kind.restarts:
        job.add_argument("--restart-policy", default="OnFailure", choices=list(kind.restarts),
                         help="replica restart policy after a failure or a lost node (default OnFailure)")
        job.add_argument("--backoff-limit", type=int, help="restarts before the job fails (default 3; none with Never)")
        job.add_argument("--min-nodes", type=int,
                         help="PyTorchJob: keep training on at least this many nodes (elastic; see --rendezvous)")
    if kind.queued:
        job.add_argument("--team", help="the team whose Kueue queue admits the job (default: the only team)")
        job.add_argument("--topology", choices=("preferred", "required"), default="preferred",
                         help="keep the nodes in one EC2 network block if possible, or wait until they can be")
        job.add_argument("--layer", type=int, help="network layer the nodes share (1 = top; default: bottom)")
        job.add_argument("--priority", help="a WorkloadPriorityClass of the stack")
    if kind.command is not None:
        # Not dest "command": that is the subcommand's, which an empty remainder would overwrite.
        job.add_argument("job_command", metavar="command", nargs=argparse.REMAINDER,
                         help="-- the command every node runs, as written: torchrun train.py ... for torch jobs "
                              "(mpijob: mpirun ..., or the program mpirun runs on every slot)")
    return job


def launched(kind: LaunchKind, args: argparse.Namespace, outputs: StackOutputs) -> Any:
    """The sbatch script or the job object ``kind``'s launcher renders from ``args``."""
    given: dict[str, Any] = {"name": args.name, "group_name": args.group, "nodes": args.nodes,
                             kind.per_node: args.per_node}
    if kind.image != "none":
        given["image"] = args.image
    if kind.command is not None:
        # Only the `--` that ends trainstack's options: one inside the command is the command's own.
        given[kind.command] = args.job_command[1:] if args.job_command[:1] == ["--"] else args.job_command
    if kind.restarts:
        given.update(restart_policy=args.restart_policy, backoff_limit=args.backoff_limit, min_nodes=args.min_nodes)
    if kind.queued:
        # A stack without queues refuses any queue option rather than ignore it.
        given["queue"] = QueueRequest(team=args.team, topology=args.topology, layer=args.layer,
                                      priority=args.priority)
    given.update({option: getattr(args, option) for option in kind.options})
    return kind.render(outputs, **given)


def launch_job(args: argparse.Namespace) -> int:
    """Render the job from a plan record or a stack's outputs; a bad file or argument exits 2 with one line."""
    from ..analysis import read_outputs

    shown = f"outputs {'<stdin>' if str(args.outputs) == '-' else shown_path(args.outputs)}"
    try:
        outputs = read_outputs(read_json_object(args.outputs, "outputs", OUTPUTS_FIX), shown)
    except ContractError as error:
        raise FileProblem(f"{shown}: {error}") from None
    if args.duration is not None:
        check_block_end(outputs, args.group, args.duration, datetime.now(UTC))
    job = launched(BY_NAME[args.kind], args, outputs)
    if isinstance(job, str):
        print(job, end="")
    else:
        # A job on a DRA group comes with the ResourceClaimTemplates its pods name, before it in one stream.
        eks_group = args.group in outputs.accelerated_groups
        print(dump_yaml_all(claim_documents(outputs, args.group, job) if eks_group else [job], sort_keys=False),
              end="")
    if args.cost or args.duration is not None:
        # Asked for only: a launch that succeeds says nothing on standard error otherwise (docs/getting-started.md).
        print(job_cost(outputs, args.group, args.nodes, args.duration), file=sys.stderr)
    return EXIT_OK


def check_block_end(outputs: StackOutputs, group: str, hours: float, now: datetime) -> None:
    """A job that says how long it runs (``--duration``) and would still run when its capacity block winds down is
    refused: from then its queue admits nothing and its pods get SIGTERM (docs/capacity-block-end.md). A job that
    does not say is admitted until the hold and signalled then."""
    accelerated = outputs.accelerated_groups.get(group)
    if accelerated is None or accelerated.capacity_wind_down_at is None:
        return
    wind_down = datetime.fromisoformat(accelerated.capacity_wind_down_at.replace("Z", "+00:00"))
    left = (wind_down - now).total_seconds() / 3600
    if hours > left:
        raise LaunchError(
            f"--duration {hours:g}: group {group}'s capacity block winds down at {accelerated.capacity_wind_down_at} "
            f"(it ends {accelerated.capacity_ends_at}), {max(left, 0):.1f} h from now: its queue admits nothing from "
            f"then and its pods get SIGTERM. Fix: run at most {max(left, 0):.1f} h (checkpoint and resume on the "
            "next block), or launch on another group")


def job_cost(outputs: StackOutputs, group: str, nodes: int, duration: Optional[float]) -> str:
    """The job's cost in one line: its nodes x the group's rate per hour, and over ``duration`` hours."""
    from ..estimate.node_rates import node_rate

    accelerated = outputs.accelerated_groups.get(group)
    hyperpod_groups = outputs.hyperpod.instance_groups if outputs.hyperpod else []
    hyperpod = next((g for g in hyperpod_groups if g.name == group), None)
    instance_type = accelerated.instance_type if accelerated else hyperpod.instance_type if hyperpod else None
    if instance_type is None:
        return f"cost: no price: group {group} is not in the stack's outputs"
    rate = node_rate(instance_type, outputs.region, accelerated.capacity_type if accelerated else "none")
    hourly = rate.hourly(nodes)
    if hourly is None:
        return f"cost: {nodes} x {instance_type}: no price ({rate.source})"
    total = f"; ${hourly * duration:,.2f} for {duration:g} h" if duration is not None else ""
    return f"cost: {nodes} x {instance_type} = ${hourly:,.2f}/h{total} ({rate.source})"
