"""Drive the policy pack the way the Pulumi engine does: a subprocess serving gRPC.

How the engine starts a Python pack (pulumi/pulumi, sdk/python/cmd/pulumi-language-python,
``RunPlugin`` for kind ``analyzer``): ``python -u -m pulumi.policy <engine address> <pack dir>``
with the pack directory as the working directory. ``pulumi.policy`` runs the pack's
``__main__.py`` (``runpy.run_path``), whose ``PolicyPack(...)`` serves the Analyzer service
on 127.0.0.1 and writes the port, alone on a line, to stdout. The engine then calls
``GetAnalyzerInfo``, ``ConfigureStack``, ``Configure`` (the reconciled policy config) and,
at the end of a preview or update, ``AnalyzeStack`` with every resource of the stack
(pkg/resource/plugin/analyzer_plugin.go, pkg/resource/deploy/step_generator.go).

Properties travel as the engine marshals them (``KeepUnknowns``, ``KeepSecrets``, no
resource references): unknowns as the unknown sentinel string, secrets wrapped in the
secret signature, references downgraded to the referenced resource's id.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import grpc
from google.protobuf import empty_pb2, struct_pb2
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc, plugin_pb2
from trainstack.plan import SECRET_MARK, UNKNOWN_MARK, Plan
from trainstack.policy import Stack

# The engine's property signatures (pulumi/sdk/go/common/resource/sig).
SIG_KEY, SECRET_SIG = "4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
# pulumi.policy parses but does not dial the engine address; nothing listens here.
ENGINE_ADDRESS = "127.0.0.1:1"
START_TIMEOUT_S = 60.0
CALL_TIMEOUT_S = 60.0
LEVELS = {analyzer_pb2.ADVISORY: "advisory", analyzer_pb2.MANDATORY: "mandatory",
          analyzer_pb2.REMEDIATE: "remediate", analyzer_pb2.DISABLED: "disabled"}
LEVEL_OF = {name: value for value, name in LEVELS.items()}


class PackProcess:
    """The pack, started as the engine starts it; always ``close()`` it."""

    def __init__(self, pack_dir: Path, env: Optional[dict[str, str]] = None, python: str = sys.executable):
        self.process = subprocess.Popen(
            [python, "-u", "-m", "pulumi.policy", ENGINE_ADDRESS, str(pack_dir)],
            cwd=pack_dir, env={**os.environ, **(env or {})},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            self.port = self._read_port()
            self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
            grpc.channel_ready_future(self.channel).result(timeout=START_TIMEOUT_S)
        except BaseException:
            self.close()
            raise
        self.stub = analyzer_pb2_grpc.AnalyzerStub(self.channel)

    def _read_port(self) -> int:
        """The first stdout line, as the engine reads it, within a bounded wait."""
        assert self.process.stdout is not None
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: lines.put(self.process.stdout.readline()), daemon=True).start()  # type: ignore[union-attr]
        try:
            line = lines.get(timeout=START_TIMEOUT_S)
        except queue.Empty:
            raise RuntimeError(f"the pack printed no port in {START_TIMEOUT_S}s") from None
        if not line.strip().isdigit():
            self.process.kill()
            _, stderr = self.process.communicate(timeout=10)
            raise RuntimeError(f"the pack printed {line!r} instead of a port:\n{stderr}")
        return int(line)

    def close(self) -> None:
        if getattr(self, "channel", None) is not None:
            self.channel.close()
        if self.process.poll() is None:
            self.process.kill()
        self.process.communicate(timeout=10)

    # -- the engine's calls ------------------------------------------------
    def info(self) -> analyzer_pb2.AnalyzerInfo:
        return self.stub.GetAnalyzerInfo(empty_pb2.Empty(), timeout=CALL_TIMEOUT_S)

    def plugin_info(self) -> plugin_pb2.PluginInfo:
        return self.stub.GetPluginInfo(empty_pb2.Empty(), timeout=CALL_TIMEOUT_S)

    def configure_stack(self, project: str, stack: str) -> None:
        self.stub.ConfigureStack(analyzer_pb2.AnalyzerStackConfigureRequest(
            project=project, stack=stack, organization="organization", dry_run=True), timeout=CALL_TIMEOUT_S)

    def configure(self, config: dict[str, tuple[str, dict[str, Any]]]) -> None:
        """``Configure`` with a reconciled config: policy -> (enforcement level, properties)."""
        request = analyzer_pb2.ConfigureAnalyzerRequest()
        for name, (level, properties) in config.items():
            entry = analyzer_pb2.PolicyConfig(enforcementLevel=LEVEL_OF[level])
            entry.properties.update(properties)
            request.policyConfig[name].CopyFrom(entry)
        self.stub.Configure(request, timeout=CALL_TIMEOUT_S)

    def analyze_stack(self, resources: list[analyzer_pb2.AnalyzerResource]) -> analyzer_pb2.AnalyzeResponse:
        return self.stub.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest(resources=resources), timeout=CALL_TIMEOUT_S)


# -- policy configuration, as the engine reconciles it ---------------------
def crossguard_config(pack_config: dict[str, Any]) -> dict[str, Any]:
    """The offline runner's config in the shape ``--policy-pack-config`` accepts.

    ``trainstack plan`` takes stack-wide settings (``profile``, ``maxHourlyUsd``) at the top
    level; the engine refuses a top-level string that is not an enforcement level and any
    other scalar (pkg/resource/analyzer/config.go, ``parsePolicyPackConfig``). Every rule
    declares those settings in its schema, so the equivalent is to give them to each rule.
    """
    from trainstack.policy import RULES

    rule_ids = {rule.id for rule in RULES}
    stack_wide = {k: v for k, v in pack_config.items() if k != "all" and k not in rule_ids}
    converted: dict[str, Any] = {k: v for k, v in pack_config.items() if k not in stack_wide}
    for rule in RULES:
        own = converted.get(rule.id)
        if isinstance(own, str):
            own = {"enforcementLevel": own}
        converted[rule.id] = {**stack_wide, **(own or {})}
    return converted


def reconcile(info: analyzer_pb2.AnalyzerInfo, config: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    """``ReconcilePolicyPackConfig``: schema defaults, then "all", then each policy's own block."""
    from google.protobuf import json_format

    result: dict[str, tuple[str, dict[str, Any]]] = {}
    for policy in info.policies:
        schema = json_format.MessageToDict(policy.configSchema.properties)
        defaults = {k: v["default"] for k, v in schema.items() if "default" in v}
        result[policy.name] = (LEVELS[policy.enforcementLevel], defaults)
    all_level = config.get("all")
    if isinstance(all_level, str):
        result = {name: (all_level, props) for name, (_, props) in result.items()}
    for name, given in config.items():
        if name == "all" or name not in result:
            continue
        level, props = result[name]
        given = {"enforcementLevel": given} if isinstance(given, str) else dict(given)
        level = given.pop("enforcementLevel", level)
        result[name] = (level, {**props, **given})
    return result


# -- resources, as the engine sends them -----------------------------------
def wire(value: Any, ids: dict[str, str]) -> Any:
    """A recorded property value as the engine marshals it for an analyzer."""
    if value == UNKNOWN_MARK:
        return UNKNOWN
    if value == SECRET_MARK:
        # The engine sends the plaintext inside the secret envelope; offline the plaintext is
        # gone, so the placeholder stands in for it.
        return {SIG_KEY: SECRET_SIG, "value": SECRET_MARK}
    if isinstance(value, dict):
        if set(value) == {"resourceRef", "id"}:
            return ids.get(value["resourceRef"], value["resourceRef"])
        return {k: wire(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [wire(v, ids) for v in value]
    return value


def struct(props: dict[str, Any], ids: dict[str, str]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(wire(props, ids))
    return message


@dataclass
class Topology:
    """What a policy ``Stack`` lacks and the engine sends: parents, dependencies, provider URNs."""

    parents: dict[str, str] = field(default_factory=dict)
    dependencies: dict[str, list[str]] = field(default_factory=dict)
    providers: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Resource URN -> (provider type, provider URN)."""
    ids: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, plan: Plan) -> Topology:
        topology = cls()
        provider_types = {r.urn: r.type for r in plan.resources if r.type.startswith("pulumi:providers:")}
        for record in plan.resources:
            if record.parent:
                topology.parents[record.urn] = record.parent
            topology.dependencies[record.urn] = list(record.dependencies)
            if record.id:
                topology.ids[record.urn] = record.id
            if record.options.provider:
                provider_urn = record.options.provider.rsplit("::", 1)[0]
                topology.providers[record.urn] = (provider_types.get(provider_urn, ""), provider_urn)
        return topology


def analyzer_resources(stack: Stack, topology: Topology) -> list[analyzer_pb2.AnalyzerResource]:
    """Each resource of ``stack`` as an ``AnalyzerResource`` of ``AnalyzeStackRequest``."""
    resources = []
    for resource in stack.resources:
        message = analyzer_pb2.AnalyzerResource(
            type=resource.type, urn=resource.urn, name=resource.name,
            properties=struct(resource.props, topology.ids),
            options=analyzer_pb2.AnalyzerResourceOptions(
                protect=resource.protect, parent=topology.parents.get(resource.urn, ""),
                customTimeouts=analyzer_pb2.AnalyzerResourceOptions.CustomTimeouts()),
            parent=topology.parents.get(resource.urn, ""),
            dependencies=topology.dependencies.get(resource.urn, []))
        for prop, urns in resource.property_dependencies.items():
            if urns:
                message.propertyDependencies[prop].urns.extend(urns)
        if resource.provider is not None:
            provider_type, provider_urn = topology.providers.get(resource.urn, ("pulumi:providers:aws", ""))
            message.provider.CopyFrom(analyzer_pb2.AnalyzerProviderResource(
                type=provider_type, urn=provider_urn, name=provider_urn.rsplit("::", 1)[-1],
                properties=struct(resource.provider, topology.ids)))
        resources.append(message)
    return resources


@dataclass(frozen=True)
class Reported:
    policy: str
    urn: Optional[str]
    message: str
    level: str


def reported(response: analyzer_pb2.AnalyzeResponse, descriptions: dict[str, str]) -> list[Reported]:
    """The pack's violations, with the description the SDK prepends to each message removed."""
    found = []
    for diagnostic in response.diagnostics:
        prefix = descriptions[diagnostic.policyName] + "\n"
        message = diagnostic.message.removeprefix(prefix)
        found.append(Reported(diagnostic.policyName, diagnostic.urn or None, message,
                              LEVELS[diagnostic.enforcementLevel]))
    return found

