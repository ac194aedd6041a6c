"""A stack deployed by the real Pulumi engine, through the Automation API, without a Pulumi project of
the user's own: ``trainstack preview|up|destroy --stack NAME`` and the engine tests.

    the stack file (stacks/Pulumi.<stack>.yaml), read and checked as the offline plan reads it
    a local workspace: the trainstack project, the stack's config, and the stack's backend
    the inline program: the trainstack program itself (stacks/__main__.py), run in this process
    the engine: a Pulumi CLI, which starts the providers' plugins

Which CLI (:class:`Engine`):

* **installed**, the default: the ``pulumi`` the user installed, found as the Automation API finds it (on PATH),
  or where Pulumi's installer puts it (``$PULUMI_HOME/bin``, ``~/.pulumi/bin``). It runs with its own home, so
  its plugins, its backend (``pulumi login``) and its credentials are the user's. Nothing is built.
* **source**: the CLI and Kubernetes provider that ``engines/build.sh`` builds from Go source (cached), with a
  home and a backend of trainstack's own under the project (``.trainstack/state``). The tests and the rehearsal
  use it, and a user may ask for it (``--engine source``). The AWS provider cannot be built here, so it deploys
  what needs no AWS provider: a stack with ``existingCluster`` (the Kubernetes layer alone).

The Automation API serves an inline program from this process and passes ``--client`` to the CLI, so
no Pulumi language host is needed.
"""

from __future__ import annotations

import os
import runpy
import shlex
import shutil
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Optional

from pulumi import automation as auto
from pulumi.automation.errors import InvalidVersionError

from ..plan.engine import program_environment
from ..plan.project import Project, load_stack
from ..rehearsal import engines

Action = Literal["preview", "up", "destroy"]
Progress = Callable[[str], None]

PASSPHRASE_VARIABLE = "PULUMI_CONFIG_PASSPHRASE"
# The state of a stack the engine deployed without a backend of the user's choosing: beside the
# stack files, ignored by git (the project's .gitignore), one directory per project.
DEFAULT_STATE = ".trainstack/state"


INSTALL_PULUMI = "curl -fsSL https://get.pulumi.com | sh"
"""Pulumi's installer (https://www.pulumi.com/docs/iac/download-install/): it puts the CLI in ~/.pulumi/bin."""


class PulumiCliMissing(RuntimeError):
    """No Pulumi CLI trainstack can use: none installed, or one older than the Automation API needs."""


@dataclass
class Engine:
    """Where the engine's programs are: the Pulumi CLI and the directories of provider plugins."""

    cli: Path
    plugin_directories: list[Path] = field(default_factory=list)
    installed: bool = False
    """The user's own CLI: it keeps its home (plugins, credentials), its backend and its version check."""
    automatic_logs: bool = True
    """Whether the CLI writes its automatic debug log of each command under ``<PULUMI_HOME>/logs``: Pulumi
    v3.259 keeps one per command, encrypted, and deletes the oldest past 500 MB (pkg/logging/encrypted.go,
    rotation.go). Pulumi's support reads it (``pulumi logs share``), so a user's deploy keeps it. The engine
    tests turn it off: on one Kubernetes layer's life it was 125 MB a command, and the life took 92 s with it
    and 48 s without (dev-layer, preview, up, up, destroy, one process)."""

    @classmethod
    def installed_cli(cls) -> Engine:
        """The Pulumi CLI the user installed: ``pulumi`` on PATH, as the Automation API's PulumiCommand runs it
        without a root, or else in ``$PULUMI_HOME/bin`` or ``~/.pulumi/bin``, where Pulumi's installer puts it
        (it adds that directory to PATH only in the shell profiles it edits)."""
        homes = [Path(os.environ["PULUMI_HOME"]) / "bin"] if os.environ.get("PULUMI_HOME") else []
        homes.append(Path.home() / ".pulumi" / "bin")
        for candidate in [shutil.which("pulumi"), *(str(home / "pulumi") for home in homes)]:
            if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
                return cls(cli=Path(candidate), installed=True)
        raise PulumiCliMissing(f"no Pulumi CLI found on PATH or in {' or '.join(str(home) for home in homes)}; "
                               f"install it with `{INSTALL_PULUMI}` and open a new shell, or run with --engine source "
                               "to build one from Go source")

    @classmethod
    def built(cls, *, automatic_logs: bool = True) -> Engine:
        """The CLI and the Kubernetes provider from engines/build.sh, built now if their cache is stale."""
        return cls(cli=engines.directory(engines.PULUMI) / "pulumi",
                   plugin_directories=[engines.directory(engines.PULUMI_KUBERNETES)],
                   automatic_logs=automatic_logs)


@dataclass
class Change:
    """One resource step of an operation, as the engine reported it."""

    urn: str
    type: str
    operation: str
    """``create``, ``update``, ``delete``, ``same``, ``replace``, …  (the engine's ``op``)."""
    diffs: list[str] = field(default_factory=list)
    """The properties that differ, for an update or replace."""


@dataclass
class Outcome:
    """What one operation did: its steps, the summary counts, the outputs, its time, and what failed."""

    action: Action
    changes: list[Change]
    counts: dict[str, int]
    outputs: dict[str, Any]
    seconds: float
    failures: list[str]
    """``<urn>: <the provider's message>`` for each resource that failed, and the engine's own errors."""
    protected: list[str] = field(default_factory=list)
    """URNs of protected resources a destroy left in place (and in the state)."""
    policy_violations: list[str] = field(default_factory=list)
    """``<level> <pack>/<policy>: <message>`` of each violation the policy packs reported."""
    text: str = ""
    """What the CLI printed (its progress and summary, the policy packs it ran)."""

    @property
    def changed(self) -> list[Change]:
        return [c for c in self.changes if c.operation != "same"]


class DeployError(RuntimeError):
    """The engine could not finish the operation; ``outcome`` holds what it reported."""

    def __init__(self, message: str, outcome: Outcome):
        super().__init__(message)
        self.outcome = outcome


def run(project: Project, stack: str, action: Action, *, engine: Optional[Engine] = None,
        state: Optional[Path] = None, config: Optional[Mapping[str, str]] = None,
        progress: Progress = lambda line: None, policy_packs: Optional[list[str]] = None) -> Outcome:
    """Run ``action`` on ``stack`` of ``project`` with the real engine (by default the user's installed CLI, and
    its backend unless ``state`` names a directory); ``config`` overrides keys of the stack file (``namespace:key``
    to the string the engine would pass). Raises PulumiCliMissing where there is no CLI to use, and DeployError
    naming each failed resource and the provider's message."""
    engine = engine or Engine.installed_cli()
    settings = load_stack(project, stack)
    backend = _backend(project, stack, engine, state)
    progress(f"the Pulumi CLI: {engine.cli}{' (built from source by trainstack)' if not engine.installed else ''}; "
             f"backend: {backend.shown}")
    workspace = _workspace(project, stack, engine, backend, bool(policy_packs))
    values = {**settings.config, **(config or {})}
    workspace.set_all_config({key: auto.ConfigValue(value, secret=key in settings.secret_keys)
                              for key, value in values.items()})
    events = _Events(progress)
    began = time.monotonic()
    try:
        outcome = _operate(workspace, action, events, policy_packs)
    except auto.CommandError as error:
        # The engine's own summary ("preview failed") says little: the CLI's last words say why.
        said = _last_lines(str(error))
        failed = Outcome(action, events.changes, {}, {}, round(time.monotonic() - began, 2),
                         [*events.failures, *([said] if said and said not in events.failures else [])])
        raise DeployError(f"pulumi {action} of {stack} failed:\n  " + "\n  ".join(failed.failures), failed) from None
    outcome.seconds = round(time.monotonic() - began, 2)
    outcome.changes, outcome.policy_violations, outcome.text = events.changes, events.violations, events.text()
    return outcome


def _operate(stack: auto.Stack, action: Action, events: _Events, policy_packs: Optional[list[str]]) -> Outcome:
    if action == "preview":
        previewed = stack.preview(on_event=events, policy_packs=policy_packs, diff=False, on_output=events.output)
        counts = {_op(op): n for op, n in previewed.change_summary.items()}
        return Outcome(action, [], counts, {}, 0.0, [])
    if action == "up":
        result = stack.up(on_event=events, policy_packs=policy_packs, suppress_progress=True, on_output=events.output)
        counts = {_op(op): n for op, n in (result.summary.resource_changes or {}).items()}
        return Outcome(action, [], counts, {k: v.value for k, v in result.outputs.items()}, 0.0, [])
    # Protected resources (data) stay: the engine skips them and leaves them in the state, and says so.
    destroyed = stack.destroy(on_event=events, exclude_protected=True, suppress_progress=True)
    deployment = stack.export_stack().deployment or {}
    remaining = [r["urn"] for r in deployment.get("resources") or [] if r.get("protect")]
    counts = {_op(op): n for op, n in (destroyed.summary.resource_changes or {}).items()}
    return Outcome(action, [], counts, {}, 0.0, [], protected=remaining)


def _op(op: object) -> str:
    """An operation's name: the summaries key by the OpType enum, the events by its value."""
    return str(getattr(op, "value", op))


@dataclass(frozen=True)
class Backend:
    """Where the stack's state is: a directory of trainstack's (``state``), or the CLI's own (``url`` None: what
    ``pulumi login`` chose, or PULUMI_BACKEND_URL)."""

    directory: Optional[Path]
    shown: str


def _backend(project: Project, stack: str, engine: Engine, state: Optional[Path]) -> Backend:
    """The directory given, else the CLI's own backend for the user's CLI, else trainstack's directory. A stack
    that an earlier trainstack deployed into its directory stays there: its resources are recorded nowhere else, and
    a backend without them would create them all again."""
    if state is not None:
        return Backend(state, f"the directory {state}")
    if os.environ.get("PULUMI_BACKEND_URL"):
        return Backend(None, f"PULUMI_BACKEND_URL ({os.environ['PULUMI_BACKEND_URL']})")
    kept = project.root / DEFAULT_STATE
    if not engine.installed:
        return Backend(kept, f"trainstack's directory {kept}")
    stacks = kept / ".pulumi" / "stacks"
    if any(path.is_file() for path in (stacks / project.name / f"{stack}.json", stacks / f"{stack}.json")):
        return Backend(kept, f"the directory {kept}, where an earlier trainstack deploy of {stack} keeps its state "
                             "(pass --state, or `pulumi stack export`/`import` to move it)")
    return Backend(None, "the CLI's own (`pulumi login`)")


def _workspace(project: Project, stack: str, engine: Engine, backend: Backend, policies: bool) -> auto.Stack:
    """The stack in a local workspace whose program is trainstack's, run in this process."""
    # The workspace's own files (the Automation API's project and stack settings, the link to the CLI) live beside
    # the state trainstack keeps, or under .trainstack/ in the project when the backend is the CLI's.
    place = backend.directory or project.root / ".trainstack"
    place.mkdir(parents=True, exist_ok=True)
    home = None if engine.installed else place / ".pulumi"
    if home is not None and not engine.automatic_logs:
        _without_automatic_logs(home)
    # The Automation API looks for ``<root>/bin/pulumi``; the engine's CLI is linked there.
    root = place / ".cli"
    (root / "bin").mkdir(parents=True, exist_ok=True)
    link = root / "bin" / "pulumi"
    if not link.exists() or link.resolve() != engine.cli.resolve():
        link.unlink(missing_ok=True)
        link.symlink_to(engine.cli.resolve())
    plugins = [*(str(d) for d in engine.plugin_directories), *([str(_policy_analyzer(root))] if policies else [])]
    path = os.pathsep.join([*plugins, os.environ.get("PATH", "")])
    environment = {"PULUMI_SKIP_UPDATE_CHECK": "true", "PATH": path}
    if backend.directory is not None:
        environment["PULUMI_BACKEND_URL"] = backend.directory.resolve().as_uri()
        # A stack of a local backend keeps its secrets under a passphrase; none is asked for unless the
        # caller set one (the stack's secrets are then encrypted with it).
        environment[PASSPHRASE_VARIABLE] = os.environ.get(PASSPHRASE_VARIABLE, "")
    # The workspace is a directory of its own (the Automation API writes the stack's settings there, never into
    # the user's stack files), whose project names the program's directory as its ``main``: the engine starts the
    # providers there (pkg/engine/project.go, getPwdMain), as `pulumi up` in the project would, so the paths the
    # program passes relative to its directory (the shipped kustomizations) name the same files for the provider.
    workspace = place / ".workspace" / stack
    workspace.mkdir(parents=True, exist_ok=True)
    main = os.path.relpath(project.main, workspace)
    options = auto.LocalWorkspaceOptions(
        work_dir=str(workspace), pulumi_home=str(home) if home is not None else None, env_vars=environment,
        pulumi_command=_command(root, engine),
        project_settings=auto.ProjectSettings(name=project.name, runtime="python", main=main))
    return auto.create_or_select_stack(stack_name=stack, project_name=project.name,
                                       program=_program(project), opts=options)


def _command(root: Path, engine: Engine) -> auto.PulumiCommand:
    """The CLI as the Automation API runs it. The user's is held to the API's minimum version (the source-built one
    is pinned with the SDK: engines/pulumi/go.mod)."""
    try:
        return auto.PulumiCommand(root=str(root), skip_version_check=not engine.installed)
    except InvalidVersionError as error:
        raise PulumiCliMissing(f"the Pulumi CLI {engine.cli} is too old for trainstack's Automation API ({error}); "
                               f"update it with `{INSTALL_PULUMI}`") from None


def _without_automatic_logs(home: Path) -> None:
    """The CLI has no switch for its automatic log: it makes ``<home>/logs`` and, when it cannot, goes on
    without one (pkg/cmd/pulumi/pulumi.go, "automatic logging unavailable"). A file of that name stops it. A
    directory already there (a state the CLI has logged into) is left as it is."""
    home.mkdir(parents=True, exist_ok=True)
    logs = home / "logs"
    if not logs.exists():
        logs.write_text("The CLI's automatic logs are off for this state (trainstack deploy.engine).\n")


def _policy_analyzer(root: Path) -> Path:
    """A directory holding ``pulumi-analyzer-policy-python``, the ambient plugin the CLI runs a Python policy pack
    with when no Python language host is installed (it first looks one up, and asks GitHub for the ``policy-python``
    plugin, which is not reachable everywhere). It runs what the language host would: ``python -u -m pulumi.policy
    <engine address> <pack directory>`` (pulumi/pulumi sdk/python/cmd/pulumi-language-python, RunPlugin), with
    this interpreter, which has pulumi-policy; the runtime options the CLI adds (``-virtualenv=…``) are the
    language host's and are dropped."""
    directory = root / "analyzers"
    directory.mkdir(parents=True, exist_ok=True)
    shim = directory / "pulumi-analyzer-policy-python"
    shim.write_text("#!/bin/sh\n"
                    "for argument in \"$@\"; do shift; case \"$argument\" in\n"
                    "  -virtualenv=*|-toolchain=*|-typechecker=*) ;;\n"
                    "  *) set -- \"$@\" \"$argument\" ;;\n"
                    "esac; done\n"
                    f"exec {shlex.quote(sys.executable)} -u -m pulumi.policy \"$@\"\n")
    shim.chmod(0o755)
    return directory


def _program(project: Project) -> Callable[[], None]:
    """The trainstack program as the language host would run it: ``stacks/__main__.py``, from its directory."""
    def program() -> None:
        with program_environment(project.main):
            runpy.run_path(str(project.main), run_name="__main__")
    return program


class _Events:
    """The engine's events as progress lines, resource steps and failures (resource and message)."""

    def __init__(self, progress: Progress):
        self.progress = progress
        self.changes: list[Change] = []
        self.failures: list[str] = []
        self.violations: list[str] = []
        self.lines: list[str] = []

    def output(self, line: str) -> None:
        self.lines.append(line)

    def text(self) -> str:
        return "".join(line if line.endswith("\n") else line + "\n" for line in self.lines)

    def __call__(self, event: auto.events.EngineEvent) -> None:
        if event.resource_pre_event is not None:
            metadata = event.resource_pre_event.metadata
            if str(metadata.op.value) != "same":
                self.progress(f"  {metadata.op.value:8} {metadata.type} {metadata.urn.rsplit('::', 1)[-1]}")
        elif event.res_outputs_event is not None:
            metadata = event.res_outputs_event.metadata
            self.changes.append(Change(metadata.urn, metadata.type, str(metadata.op.value),
                                       [str(d) for d in metadata.diffs or []]))
        elif event.res_op_failed_event is not None:
            metadata = event.res_op_failed_event.metadata
            self.progress(f"  failed   {metadata.type} {metadata.urn.rsplit('::', 1)[-1]}")
        elif event.policy_event is not None:
            policy = event.policy_event
            self.violations.append(f"{policy.enforcement_level} {policy.policy_pack_name}/{policy.policy_name}: "
                                   f"{policy.message.strip()}")
        elif event.diagnostic_event is not None and event.diagnostic_event.severity == "error":
            diagnostic = event.diagnostic_event
            where, message = diagnostic.urn or "the engine", diagnostic.message.strip()
            # An error the program raised comes twice: as the program said it, then as gRPC's server repeats it
            # ("Exception calling application: <the same>").
            if not any(message.endswith(said.split(": ", 1)[1]) for said in self.failures):
                self.failures.append(f"{where}: {message}")


def _last_lines(text: str, count: int = 12) -> str:
    return "\n".join(text.strip().splitlines()[-count:])
