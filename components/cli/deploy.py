"""``trainstack preview|up|destroy --stack NAME``: the real Pulumi engine through the Automation API, for users
who want no Pulumi project of their own (``trainstack.deploy.engine``). The engine is the Pulumi CLI the user
installed, with its plugins, backend and credentials; ``--engine source`` asks for the one trainstack builds from
Go source instead. ``up`` plans the stack offline first and goes no further when the plan fails (a mandatory policy,
a controller model): the engine's own policy packs need a Pulumi language host, which this route does without."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional

from .errors import EXIT_CONFIG, EXIT_FAILURE, EXIT_OK, EXIT_POLICY

if TYPE_CHECKING:
    from ..preflight.devices import WaitResult


def deploy(args: argparse.Namespace) -> int:
    """Exit 1 when the plan fails; 2 when there is no Pulumi CLI to use; 3 when the engine fails (each failed resource
    and its message on standard error)."""
    from ..analysis import failed, plan_stack
    from ..deploy.engine import DeployError, Engine, PulumiCliMissing, run
    from ..plan import find_project
    from ..rehearsal import engines

    project = find_project(args.cwd)
    if args.action != "destroy":
        planned = plan_stack(args.stack, project)
        if failed(planned):
            print(f"error: the plan of {project.name} / {args.stack} did not pass; `trainstack plan --stack "
                  f"{args.stack}` says why. Nothing was deployed.", file=sys.stderr)
            return EXIT_POLICY

    def progress(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    progress(f"{args.action} {project.name} / {args.stack} with the Pulumi engine")
    engines.announce = progress
    try:
        engine = Engine.built() if args.engine == "source" else None
        outcome = run(project, args.stack, args.action, engine=engine, state=args.state, progress=progress,
                      policy_packs=[str(p.resolve()) for p in args.policy_pack] or None)
    except PulumiCliMissing as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_CONFIG
    except DeployError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_FAILURE
    waited = wait_after_up(project, args.stack, outcome.outputs, progress) if args.action == "up" else None
    summary: dict[str, Any] = {"action": outcome.action, "seconds": outcome.seconds, "counts": outcome.counts,
                               "changed": [{"urn": c.urn, "operation": c.operation, "diffs": c.diffs}
                                           for c in outcome.changed]}
    if outcome.protected:
        summary["protectedKept"] = outcome.protected
    if outcome.policy_violations:
        summary["policyViolations"] = outcome.policy_violations
    if waited is not None:
        summary["deviceWait"] = waited.as_dict()
    if args.json:
        print(json.dumps({**summary, "outputs": outcome.outputs}, indent=2, sort_keys=True))
    else:
        counts = ", ".join(f"{n} {op}" for op, n in sorted(outcome.counts.items())) or "nothing"
        print(f"{outcome.action}: {counts} in {outcome.seconds:.1f} s")
        for urn in outcome.protected:
            print(f"  kept (protected): {urn}")
        for violation in outcome.policy_violations:
            print(f"  policy: {violation}")
    if waited is not None and not waited.done:
        print(f"error: {args.stack} is deployed, but not every accelerated node shows its devices after "
              f"{waited.seconds:.0f} s (deviceWait timeout {waited.timeout_seconds:.0f} s):\n  "
              + "\n  ".join(waited.problems()), file=sys.stderr)
        return EXIT_FAILURE
    return EXIT_OK


def wait_after_up(project: Any, stack: str, outputs: dict[str, Any], progress: Callable[[str], None]
                  ) -> Optional[WaitResult]:
    """With ``deviceWait`` set: wait until every accelerated node shows its devices (preflight/devices.py),
    reading the cluster through the stack's ``kubeconfig`` output. None where the stack does not wait."""
    from ..analysis import stack_config
    from ..config.device_wait import HYPERPOD_NOT_WAITED, device_needs, hyperpod_groups_not_waited
    from ..kube.kubeconfig import CredentialError, KubeconfigError, connect, read_access
    from ..outputs import KUBECONFIG_OUTPUT
    from ..plan import load_stack
    from ..preflight.devices import WaitResult, wait_for_devices

    config = stack_config(load_stack(project, stack))
    if config is None or config.device_wait is None:
        return None
    settings, needs = config.device_wait, device_needs(config.node_groups)
    progress(f"waiting up to {settings.timeout_minutes} min for every accelerated node to show its devices")
    for group in hyperpod_groups_not_waited(config.hyperpod):
        progress(f"HyperPod {group}: {HYPERPOD_NOT_WAITED}")
    kubeconfig = outputs[KUBECONFIG_OUTPUT]
    document = kubeconfig if isinstance(kubeconfig, dict) else json.loads(kubeconfig)
    try:
        access = read_access(document, f"{stack}'s kubeconfig output", project.root)
        with connect(access) as cluster:
            return wait_for_devices(cluster, needs, settings.timeout_minutes * 60, settings.poll_seconds, progress)
    except (KubeconfigError, CredentialError) as error:
        # The stack is deployed; what cannot be read is said as the wait's failure, not as a crash.
        return WaitResult([], 0.0, settings.timeout_minutes * 60, str(error))


def add_deploy(commands: Any, here: dict[str, Any]) -> None:
    from pathlib import Path

    helps = {"preview": "show what the Pulumi engine would change, after the offline plan passes",
             "up": "deploy the stack with the Pulumi engine (Automation API), after the offline plan passes",
             "destroy": "remove what the stack deployed; protected resources stay and are listed"}
    for action, text in helps.items():
        command = commands.add_parser(action, help=text)
        command.add_argument("--stack", "-s", required=True, help="stack name (stacks/Pulumi.<stack>.yaml)")
        command.add_argument("--cwd", **here)
        command.add_argument("--engine", choices=("installed", "source"), default="installed",
                             help="installed (default): the pulumi on PATH (or in ~/.pulumi/bin), with its plugins, "
                                  "backend and credentials; source: the Pulumi CLI and Kubernetes provider built from "
                                  "Go source by engines/build.sh (needs Go; minutes, once), which cannot deploy AWS "
                                  "resources")
        command.add_argument("--state", type=Path, default=None,
                             help="directory of the stack's state (a local backend); default: the CLI's own backend "
                                  "(pulumi login, or PULUMI_BACKEND_URL), or .trainstack/state beside Pulumi.yaml "
                                  "where an earlier trainstack deploy keeps the stack, and always with --engine "
                                  "source")
        command.add_argument("--policy-pack", type=Path, action="append", default=[],
                             help="a CrossGuard policy pack directory the engine runs too (policies/ is trainstack's; "
                                  "run through pulumi.policy in this Python, no language host needed); repeatable")
        command.add_argument("--json", action="store_true", help="print the outcome as one JSON document")
        command.add_argument("--quiet", "-q", action="store_true", help="no progress lines on standard error")
        command.add_argument("--debug", action="store_true", help="show tracebacks of unexpected failures")
        command.set_defaults(handler=deploy, action=action)
