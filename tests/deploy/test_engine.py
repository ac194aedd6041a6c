"""The real Pulumi engine deploys trainstack's Kubernetes layer (support/engine_deploy.py): the existing-cluster
stack byo-p5 through preview, up, a second up that changes nothing, a change of one input that updates only what
depends on it, and destroy; and the Kubernetes layer of every shipped stack that makes an EKS cluster
(support/kubernetes_layer.py) through preview, up, a second up and destroy. Each step is checked against the API
server, and the engine's resources against the offline plan, one to one."""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import pytest
from support.engine_deploy import Life, live, named_objects
from support.kubernetes_layer import LAYERED, project_of_layers
from trainstack.plan import find_project
from trainstack.rehearsal import engines

pytestmark = pytest.mark.engines(*engines.DEPLOY)

STACK = "byo-p5"
# The resources the provider itself makes inside a kustomize directory or a ConfigGroup (components it
# implements): the offline plan runs no provider, so it records the component and not what is inside.
PROVIDER_COMPONENTS = ("kubernetes:kustomize/v2:Directory", "kubernetes:yaml/v2:ConfigGroup")


def _longer_pods_ready_timeout(scheduling: dict) -> dict:
    return {**scheduling, "podsReadyTimeoutMinutes": 25}


@functools.cache
def byo() -> Life:
    return live(STACK, ("trainstack:scheduling", _longer_pods_ready_timeout), policies=True)


@functools.cache
def layers_project() -> Path:
    return project_of_layers(Path(tempfile.mkdtemp(prefix="trainstack-layers-")), LAYERED)


@functools.cache
def layer(stack: str) -> Life:
    return live(f"{stack}-layer", project=find_project(layers_project()))


def _life_of(name: str) -> pytest.MarkDecorator:
    """The tests of one stack's life share a pytest-xdist worker, so that the life is lived once; two lives run
    side by side on two workers (each its own control plane, ports and Pulumi state: support/engine_deploy.py)."""
    return pytest.mark.xdist_group(name=f"engines: the Pulumi CLI, {name}'s life")


LIVES = [pytest.param(byo, id=STACK, marks=_life_of(STACK)),
         *(pytest.param(functools.partial(layer, s), id=f"{s}-layer", marks=_life_of(f"{s}-layer")) for s in LAYERED)]


def _name(urn: str) -> str:
    return urn.rsplit("::", 1)[-1]


def _type(urn: str) -> str:
    return urn.rsplit("::", 1)[0].rsplit("::", 1)[-1].rsplit("$", 1)[-1]


@pytest.mark.parametrize("life", LIVES)
def test_preview_plans_every_resource_of_the_offline_plan_for_creation_and_the_providers_own_children(life):
    deployed = life()
    created = {c.urn for c in deployed.outcomes["preview"].changes if c.operation == "create"}
    planned = {(r.type, r.name) for r in deployed.plan.resources}
    assert planned <= {(c.type, _name(c.urn)) for c in deployed.outcomes["preview"].changes}
    # The rest are the provider's children of its own components (a kustomize directory's objects) and the
    # engine's built-in default provider.
    rest = {urn for urn in created if (_type(urn), _name(urn)) not in planned}
    assert all(any(f"{component}$" in urn for component in PROVIDER_COMPONENTS) or urn.endswith("::default")
               for urn in rest), rest
    # The summary does not count the engine's default providers.
    assert deployed.outcomes["preview"].counts == {"create": len({u for u in created if not u.endswith("::default")})}


@pytest.mark.parametrize("life", LIVES)
def test_up_creates_every_object_the_plan_names_in_the_api_server(life):
    deployed = life()
    # Objects the plan names itself (a stack of releases and a kustomize directory alone names none).
    objects = {(kind, namespace, name) for _, kind, namespace, name in named_objects(deployed.plan)}
    assert deployed.objects_after["up"] == objects
    assert not deployed.outcomes["up"].failures


@pytest.mark.parametrize("life", LIVES)
def test_the_engine_registers_the_resources_of_the_offline_plan_one_to_one(life):
    deployed = life()

    def key(type_: str, name: str, parent: str | None) -> tuple[str, str, str]:
        return type_, name, _name(parent) if parent else ""

    planned = {key(r.type, r.name, r.parent) for r in deployed.plan.resources}
    inside = {r["urn"] for r in deployed.state if r["type"] in PROVIDER_COMPONENTS}
    # The engine's own default providers (its built-in ``pulumi`` provider) are no resource of the program.
    engine = {key(r["type"], _name(r["urn"]), r.get("parent")) for r in deployed.state
              if r.get("parent") not in inside and not r["urn"].endswith("::default")}
    assert engine == planned


@pytest.mark.parametrize("life", LIVES)
def test_a_second_up_changes_nothing(life):
    outcome = life().outcomes["no-op up"]
    assert outcome.changed == [] and set(outcome.counts) == {"same"}


@_life_of(STACK)
def test_a_changed_input_updates_only_what_depends_on_it():
    changed = byo().outcomes["changed up"].changed
    assert [(c.type, _name(c.urn), c.operation) for c in changed] == [
        ("kubernetes:helm.sh/v3:Release", f"{STACK}-addons-kueue", "update")]


@_life_of(STACK)
def test_the_engine_runs_the_policy_pack_without_a_language_host_and_every_mandatory_policy_passes():
    """The CLI runs policies/ through the ambient analyzer trainstack.deploy provides (deploy/engine.py says why)."""
    outcome = byo().outcomes["preview with the policy pack"]
    # The CLI says which analyzer it ran the pack with; a mandatory violation would have failed the preview.
    assert "using pulumi-analyzer-policy-python from $PATH" in outcome.text
    assert not [v for v in outcome.policy_violations if v.startswith("mandatory")]


@pytest.mark.parametrize("life", LIVES)
def test_destroy_removes_every_object_and_keeps_nothing_protected(life):
    deployed = life()
    assert deployed.objects_after["destroy"] == set()
    assert deployed.outcomes["destroy"].protected == []


# A life's etcd, control-plane logs and engine state came to about 100 MB (dev-layer); with the CLI's automatic
# logs on, 540 MB, and a run of the engine tests lives a dozen lives on a machine whose disk CI shares.
LIFE_DISK_LIMIT = 256 * 2**20


@pytest.mark.parametrize("life", LIVES)
def test_a_life_leaves_little_on_disk_and_the_cli_writes_no_automatic_logs(life):
    deployed = life()
    assert deployed.disk_bytes < LIFE_DISK_LIMIT, (
        f"{deployed.stack}'s life left {deployed.disk_bytes / 2**20:.0f} MiB on disk")
