"""The oracle for a Kubernetes provider that moves: the real Pulumi engine, against a real API server.

One small program (a Kubernetes provider built from a kubeconfig, one ConfigMap on it) is brought up on the
rehearsal's control plane; then its kubeconfig or context changes and the engine previews each change. The
kubeconfig names the one API server twice (``a``: 127.0.0.1, ``b``: localhost; its certificate is good for
both), so a change of the active cluster is one the engine can preview. For each change, what the offline
diff (two plan records of the same program, ``trainstack.review``) replaces is what the engine's preview
replaces: the provider's DiffConfig replaces it when the active cluster is another, and the engine then
replaces every resource on it (pulumi/pulumi step_generator.go, providerChanged); a context on the same
cluster, or a context the provider does not use, replaces nothing.
"""

from __future__ import annotations

import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from trainstack.analysis import review
from trainstack.boundary import dump_yaml
from trainstack.deploy.engine import Engine, run
from trainstack.plan import find_project
from trainstack.plan.engine import run_plan
from trainstack.plan.project import StackSettings
from trainstack.rehearsal import engines
from trainstack.rehearsal.control_plane import control_plane

pytestmark = pytest.mark.engines(*engines.DEPLOY)

STACK = "oracle"
PROGRAM = '''
import pulumi
import pulumi_kubernetes as k8s

config = pulumi.Config()
cluster = k8s.Provider("cluster", kubeconfig=config.require("kubeconfig"), context=config.get("context"))
k8s.core.v1.ConfigMap("settings", metadata={"name": "provider-move", "namespace": "default"},
                      data={"key": "value"}, opts=pulumi.ResourceOptions(provider=cluster))
'''
REPLACING = ("replace", "create-replacement", "delete-replaced")
"""The engine's steps of a replacement."""


def kubeconfig(admin: dict[str, Any], current: str, extra_context: bool = False) -> str:
    """The control plane's kubeconfig with its API server named twice, and three contexts on the two names."""
    (entry,) = admin["clusters"]
    server = entry["cluster"]["server"]
    clusters = [{"name": "a", "cluster": entry["cluster"]},
                {"name": "b", "cluster": {**entry["cluster"], "server": server.replace("127.0.0.1", "localhost")}}]
    user = admin["users"][0]["name"]
    contexts = [{"name": "a", "context": {"cluster": "a", "user": user}},
                {"name": "a-other-namespace", "context": {"cluster": "a", "user": user, "namespace": "other"}},
                {"name": "b", "context": {"cluster": "b", "user": user}}]
    if extra_context:
        contexts.append({"name": "unused", "context": {"cluster": "b", "user": user}})
    return dump_yaml({**admin, "clusters": clusters, "contexts": contexts, "current-context": current})


def resource(urn: str) -> str:
    """``type name`` of a URN: the offline plan's URNs carry the root stack in their parent types, the inline
    program's do not."""
    qualified, name = urn.rsplit("::", 2)[-2:]
    return f"{qualified.rsplit('$', 1)[-1]} {name}"


def project_in(directory: Path) -> Path:
    (directory / "program").mkdir(parents=True)
    (directory / "program" / "__main__.py").write_text(textwrap.dedent(PROGRAM))
    (directory / "Pulumi.yaml").write_text("name: moves\nruntime: python\nmain: program\n")
    (directory / f"Pulumi.{STACK}.yaml").write_text("config: {}\n")
    return directory


def test_the_engine_replaces_what_the_diff_replaces_when_the_kubernetes_provider_moves():
    with tempfile.TemporaryDirectory(prefix="trainstack-provider-moves-") as scratch:
        directory = Path(scratch)
        project = find_project(project_in(directory / "project"))
        with control_plane(["default-scheduler"], directory=directory / "cluster") as plane:
            admin = yaml.safe_load(plane.kubeconfig.read_text())
            base = {"moves:kubeconfig": kubeconfig(admin, "a")}
            changes = {"context b, another cluster entry": {**base, "moves:context": "b"},
                       "current-context b": {"moves:kubeconfig": kubeconfig(admin, "b")},
                       "context on the same cluster": {**base, "moves:context": "a-other-namespace"},
                       "an unused context added": {"moves:kubeconfig": kubeconfig(admin, "a", extra_context=True)}}
            engine, state = Engine.built(automatic_logs=False), directory / "state"
            run(project, STACK, "up", engine=engine, state=state, config=base)
            base_plan = run_plan(project, STACK, StackSettings(STACK, base))
            seen = {}
            for label, config in changes.items():
                preview = run(project, STACK, "preview", engine=engine, state=state, config=config)
                by_engine = {resource(c.urn) for c in preview.changes if c.operation in REPLACING}
                diff = review(base_plan, run_plan(project, STACK, StackSettings(STACK, config))).diff
                by_diff = {resource(c.urn) for c in diff.changes if c.action == "replace"}
                seen[label] = (sorted(by_engine), sorted(by_diff))
            # No destroy: the control plane goes with the test (deleting the ConfigMap would wait on the garbage
            # collector's foreground deletion, which this control plane does not run).
    assert {label: engine_side for label, (engine_side, _) in seen.items()} == \
        {label: diff_side for label, (_, diff_side) in seen.items()}
    # Both answers occur: the oracle is asked where it says replace and where it does not.
    replacing = {label for label, (engine_side, _) in seen.items() if engine_side}
    assert replacing == {"context b, another cluster entry", "current-context b"}, seen
