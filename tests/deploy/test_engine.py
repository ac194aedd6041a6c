"""The real Pulumi engine deploys the Kubernetes layer of an existing-cluster stack (support/engine_deploy.py):
preview, up, a second up that changes nothing, a change of one input that updates only what depends on it, and
destroy, each checked against the API server and the offline plan."""

from __future__ import annotations

import functools

import pytest
from support.engine_deploy import Life, live, named_objects

STACK = "byo-p5"
PULUMI_STACK = "pulumi:pulumi:Stack"
# The resources the provider itself makes inside a kustomize directory or a ConfigGroup (a component it
# implements): the offline plan runs no provider, so it records the component and not what is inside.
PROVIDER_COMPONENTS = ("kubernetes:kustomize/v2:Directory", "kubernetes:yaml/v2:ConfigGroup")


def _longer_pods_ready_timeout(scheduling: dict) -> dict:
    return {**scheduling, "podsReadyTimeoutMinutes": 25}


@functools.cache
def life() -> Life:
    return live(STACK, ("trainstack:scheduling", _longer_pods_ready_timeout))


@pytest.fixture(scope="module")
def deployed() -> Life:
    return life()


def _name(urn: str) -> str:
    return urn.rsplit("::", 1)[-1]


def test_preview_plans_every_resource_of_the_offline_plan_for_creation(deployed):
    planned = [r for r in deployed.plan.resources if r.type != PULUMI_STACK]
    assert deployed.outcomes["preview"].counts.get("create") == len(planned) + 1  # and the root stack


def test_up_creates_every_object_the_plan_names_in_the_api_server(deployed):
    objects = {(kind, namespace, name) for _, kind, namespace, name in named_objects(deployed.plan)}
    assert objects and deployed.objects_after["up"] == objects
    assert not deployed.outcomes["up"].failures


def test_the_engine_registers_the_resources_of_the_offline_plan_one_to_one(deployed):
    def key(type_: str, name: str, parent: str | None) -> tuple[str, str, str]:
        return type_, name, _name(parent) if parent else ""

    planned = {key(r.type, r.name, r.parent) for r in deployed.plan.resources}
    components = {r["urn"] for r in deployed.state if r["type"] in PROVIDER_COMPONENTS}
    engine = {key(r["type"], _name(r["urn"]), r.get("parent")) for r in deployed.state
              if (r.get("parent") not in components and not r["type"].startswith("pulumi:providers:"))
              or (r["type"] == "pulumi:providers:kubernetes" and not r["urn"].endswith("::default"))}
    assert engine == planned
    assert components, "the stack's kustomize directory is expanded by the provider"


def test_a_second_up_changes_nothing(deployed):
    outcome = deployed.outcomes["no-op up"]
    assert outcome.changed == []
    assert set(outcome.counts) == {"same"}


def test_a_changed_input_updates_only_what_depends_on_it(deployed):
    changed = deployed.outcomes["changed up"].changed
    assert [(c.type, c.operation) for c in changed] == [("kubernetes:helm.sh/v3:Release", "update")]
    assert _name(changed[0].urn) == f"{STACK}-addons-kueue"


def test_destroy_removes_every_object(deployed):
    assert deployed.objects_after["destroy"] == set()
    assert deployed.outcomes["destroy"].protected == []
