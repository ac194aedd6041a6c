"""Run a Pulumi program offline and record every registration.

The program runs under Pulumi's mock monitor (``pulumi.runtime.set_mocks``): no
CLI, no provider plugins, no credentials. A recording monitor keeps what the
engine would receive for each resource (inputs, parent, dependencies, options)
and the fixtures answer with realistic outputs. Generic: it names no component.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import runpy
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Optional

import pulumi
from google.protobuf import json_format
from pulumi.runtime import mocks, settings
from pulumi.runtime.config import set_all_config
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

from .fixtures import DEFAULT_REGION, Fixtures
from .library_paths import stable_values
from .project import Project, StackSettings, load_stack
from .record import Plan, ResourceOptions, ResourceRecord

# Signatures the engine uses inside property values (pulumi/sdk/go/common/resource/sig).
_SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
_RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e"
_OUTPUT_SIG = "d0e6a833031e9bbcd3f4e8bde6ca49a4"
_SIG_KEY = "4dabf18193072939515e22adb298388d"
_UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
SECRET_MARK = "[secret]"
UNKNOWN_MARK = "[unknown]"


class _PlanMocks(mocks.Mocks):
    def __init__(self, fixtures: Fixtures, plan: Plan):
        self.fixtures = fixtures
        self.plan = plan

    def new_resource(self, args: mocks.MockResourceArgs) -> tuple[Optional[str], dict[str, Any]]:
        return self.fixtures.resource(args.typ, args.name, args.inputs, args.provider)

    def call(self, args: mocks.MockCallArgs) -> tuple[dict[str, Any], Optional[list[tuple[str, str]]]]:
        self.plan.invokes.append({"token": args.token, "args": engine_value(args.args),
                                  "provider": args.provider or None})
        return self.fixtures.invoke(args.token, args.args, args.provider or None), []  # no check failures


class _DiagnosticsLog(logging.Handler):
    """Keeps the program's warnings and errors (``pulumi.log.warn`` ...) in the plan."""

    def __init__(self, plan: Plan):
        super().__init__(level=logging.WARNING)
        self.plan = plan

    def emit(self, record: logging.LogRecord) -> None:
        self.plan.diagnostics.append({"severity": record.levelname.lower(), "message": record.getMessage()})


class DuplicateUrnError(Exception):
    """The program registered two resources under one URN. The Pulumi engine stops such a program (pulumi/pulumi
    sdk/go/common/diag/errors.go, GetDuplicateResourceURNError, 2001); Pulumi's mock monitor lets the second
    replace the first, and the plan would read as a program with one resource fewer."""


class RecordingMonitor(mocks.MockMonitor):
    """A mock monitor that keeps the full registration request of every resource."""

    def __init__(self, plan: Plan, mocks_: _PlanMocks):
        super().__init__(mocks_)
        self.plan = plan
        self.fixtures = mocks_.fixtures
        self._by_urn: dict[str, ResourceRecord] = {}

    def RegisterResource(self, request: Any) -> Any:  # resource_pb2.RegisterResourceRequest
        response = super().RegisterResource(self._with_regional_provider(request))  # type: ignore[no-untyped-call]
        inputs = _struct_to_plain(request.object)
        record = ResourceRecord(
            urn=response.urn,
            type=request.type,
            name=request.name,
            parent=request.parent or None,
            custom=bool(request.custom),
            remote=bool(request.remote),
            inputs=inputs,
            outputs=_struct_to_plain(response.object) if request.custom or request.remote else {},
            dependencies=list(request.dependencies),
            property_dependencies={k: list(v.urns) for k, v in request.propertyDependencies.items() if v.urns},
            options=_options(request),
            id=response.id or None,
        )
        if record.urn in self._by_urn:
            raise DuplicateUrnError(f"Duplicate resource URN '{record.urn}'; try giving it a unique name")
        self.plan.resources.append(record)
        self._by_urn[record.urn] = record
        return response

    def _with_regional_provider(self, request: Any) -> Any:
        """The request the mocks answer: a remote component names its providers in a map, and Pulumi's mock
        hands the fixtures only ``provider``, so the one with a region is named there (the record keeps the
        request as the program sent it)."""
        if request.provider or not request.providers:
            return request
        regional = self.fixtures.regional_provider(request.providers.values())
        if regional is None:
            return request
        answered = type(request)()
        answered.CopyFrom(request)
        answered.provider = regional
        return answered

    def RegisterResourceOutputs(self, request: Any) -> Any:
        record = self._by_urn.get(request.urn)
        if record is not None:
            record.outputs = _struct_to_plain(request.outputs)
        return super().RegisterResourceOutputs(request)  # type: ignore[no-untyped-call]


def run_plan(project: Project, stack: str, stack_settings: Optional[StackSettings] = None) -> Plan:
    """Run ``project``'s program for ``stack`` (its ``Pulumi.<stack>.yaml``) under mocks; ``stack_settings``: the
    stack file as :func:`load_stack` read it, where the caller has read it already (it is read once)."""
    stack_settings = stack_settings if stack_settings is not None else load_stack(project, stack)
    plan = run_program(
        lambda: runpy.run_path(str(project.main), run_name="__main__"),
        project=project.name, stack=stack, config=stack_settings.config,
        secret_keys=stack_settings.secret_keys, program_dir=project.main)
    plan.stack_file = Path(os.path.relpath(project.stack_file(stack), project.root)).as_posix()
    return plan


def run_program(program: Callable[[], Any], *, project: str, stack: str,
                config: Optional[dict[str, str]] = None, secret_keys: Iterable[str] = (),
                program_dir: Optional[Path] = None) -> Plan:
    """Run any Pulumi program (a callable) under the recording mocks and return the record.

    ``config`` maps ``namespace:key`` to the string the engine would pass (objects as JSON).
    """
    config = dict(config or {})
    plan = Plan(project=project, stack=stack, secret_config_keys=list(secret_keys),
                default_region=config.get("aws:region"))
    region = config.get("aws:region") or config.get(f"{project}:region")
    fixtures = Fixtures(default_region=region or DEFAULT_REGION)
    # A fresh context per run: Pulumi keeps its settings, config and root stack in
    # context variables, so runs in one process (tests, benchmarks) do not mix.
    contextvars.Context().run(_run, program, config, plan, fixtures, program_dir)
    plan.canonicalize()
    return plan


def _run(program: Callable[[], Any], config: dict[str, str], plan: Plan, fixtures: Fixtures,
         program_dir: Optional[Path]) -> None:
    set_all_config(config, plan.secret_config_keys)
    settings.ROOT.set(None)
    monitor = RecordingMonitor(plan, _PlanMocks(fixtures, plan))
    logger = logging.getLogger(f"trainstack.plan.{id(plan)}")
    logger.propagate = False
    logger.addHandler(_DiagnosticsLog(plan))
    mocks.set_mocks(monitor.mocks, project=plan.project, stack=plan.stack, preview=False, monitor=monitor,
                    logger=logger)
    root = settings.get_root_resource()
    with program_environment(program_dir):
        try:
            _sync_await(run_pulumi_func(program))
        except BaseException:
            _cancel_what_is_left()
            raise
        plan.outputs = _resolve_stack_outputs(root)
        _name_library_paths(plan, os.getcwd())


def _cancel_what_is_left() -> None:
    """A program that failed part way leaves its other registrations and applies pending on the event loop Pulumi
    shares between runs in one process, and in the set of outputs it awaits before a run ends (one set, the default
    of a context variable, whatever the context); left there, the next run would await them and fail with this
    one's error."""
    settings.SETTINGS.outputs.clear()
    loop = asyncio.get_event_loop()
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


def _name_library_paths(plan: Plan, program_dir: str) -> None:
    """Paths into the installed trainstack recorded as identifiers (``library_paths``), read as the program and
    its providers read them: relative to the program's directory, the working directory of the whole run."""
    for record in plan.resources:
        record.inputs = stable_values(record.inputs, program_dir)
        record.outputs = stable_values(record.outputs, program_dir)
    for invoke in plan.invokes:
        invoke["args"] = stable_values(invoke["args"], program_dir)
    plan.outputs = stable_values(plan.outputs, program_dir)


@contextmanager
def program_environment(main: Optional[Path]) -> Iterator[None]:
    """Run the program as the Pulumi language host does: from its own directory."""
    if main is None:
        yield
        return
    previous_cwd, previous_path = os.getcwd(), list(sys.path)
    os.chdir(main)
    sys.path.insert(0, str(main))
    try:
        yield
    finally:
        os.chdir(previous_cwd)
        sys.path[:] = previous_path


def _resolve_stack_outputs(root: Optional[pulumi.Resource]) -> dict[str, Any]:
    outputs = {}
    for name, value in getattr(root, "outputs", {}).items():
        output = pulumi.Output.from_input(value)
        resolved = _sync_await(output.future())
        outputs[name] = SECRET_MARK if _sync_await(output.is_secret()) else engine_value(resolved)
    return outputs


def _options(request: Any) -> ResourceOptions:
    explained = {urn for deps in request.propertyDependencies.values() for urn in deps.urns}
    timeouts = {k: getattr(request.customTimeouts, k) for k in ("create", "update", "delete")
                if getattr(request.customTimeouts, k)}
    return ResourceOptions(
        protect=bool(request.protect),
        retain_on_delete=bool(request.retainOnDelete),
        ignore_changes=list(request.ignoreChanges),
        replace_on_changes=list(request.replaceOnChanges),
        delete_before_replace=bool(request.deleteBeforeReplace),
        custom_timeouts=timeouts,
        depends_on=[urn for urn in request.dependencies if urn not in explained],
        provider=request.provider or None,
        # A remote component's children are registered inside its provider, with these providers.
        providers=dict(request.providers) if request.remote else {},
        additional_secret_outputs=list(request.additionalSecretOutputs),
        aliases=[a.urn for a in request.aliases if a.urn] if request.aliases else [],
        import_id=request.importId or None,
    )


def _struct_to_plain(struct: Any) -> dict[str, Any]:
    plain: dict[str, Any] = engine_value(json_format.MessageToDict(struct))
    return plain


def engine_value(value: Any) -> Any:
    """Property values as JSON-ready data: secrets, unknowns and resource references marked."""
    if isinstance(value, dict):
        signature = value.get(_SIG_KEY)
        if signature == _SECRET_SIG:
            return SECRET_MARK
        if signature == _RESOURCE_SIG:
            return {"resourceRef": value.get("urn"), "id": engine_value(value.get("id"))}
        if signature == _OUTPUT_SIG:
            if value.get("secret"):
                return SECRET_MARK
            return engine_value(value["value"]) if "value" in value else UNKNOWN_MARK
        return {k: engine_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [engine_value(v) for v in value]
    if value == _UNKNOWN:
        return UNKNOWN_MARK
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)
