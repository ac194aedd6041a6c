"""A Kubernetes object that a rename in the stack file gives a new Pulumi URN is one the engine cannot move: it
creates the new resource first, on the object that is already there, and deletes it with the old resource at the
end (review/same_object.py). Every such rename of the shipped stack kueue-p5 is either rendered so that the URN
stays, or closes the gate naming the object; tests/deploy/test_renames.py asks the real engine."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from support.plan_records import compare, record
from trainstack.review import assess, blocking
from trainstack.review.same_object import engine_urn, moves, state_renames

STACK = "kueue-p5"
CONFIG_GROUP = "kubernetes:yaml/v2:ConfigGroup"


def objects(document: dict[str, Any]) -> dict[tuple[str, str, str, str], tuple[str, ...]]:
    """(API group, kind, namespace, name) -> (URN, aliases...) of every Kubernetes object of a record, the objects of
    a ConfigGroup at the URN the provider gives them: ``<group name>:<namespace>/<name>``, typed by their apiVersion
    (pulumi-kubernetes provider/pkg/provider/yaml/v2 yaml.go and configgroup.go @ f47bc2d6f199). Written here from
    that source, not read from trainstack."""
    found = {}
    for resource in document["resources"]:
        inputs = resource.get("inputs") or {}
        if resource["type"] == CONFIG_GROUP:
            for item in inputs.get("objs") or []:
                meta = item["metadata"]
                version = item["apiVersion"] if "/" in item["apiVersion"] else "core/" + item["apiVersion"]
                where = f"{meta['namespace']}/" if meta.get("namespace") else ""
                name = f"{resource['name']}:{where}{meta['name']}"
                urn = resource["urn"].rsplit("::", 1)[0] + f"$kubernetes:{version}:{item['kind']}::{name}"
                found[(version.rsplit("/", 1)[0], item["kind"], meta.get("namespace", ""), meta["name"])] = (urn,)
        elif resource.get("custom") and resource["type"].startswith("kubernetes:") and "metadata" in inputs:
            _, version, kind = resource["type"].split(":")
            meta = inputs["metadata"]
            found[(version.rsplit("/", 1)[0], kind, meta.get("namespace", ""), meta["name"])] = (
                resource["urn"], *(resource.get("options") or {}).get("aliases", []))
    return found


def team(index: int, **changes: str) -> Callable[[dict], None]:
    return lambda config: config["trainstack:scheduling"]["teams"][index].update(changes)


RENAMES = {
    # (the edit, how many objects it moves: each must close the gate)
    "a team's name": (team(0, name="nlp"), 0),
    "a team's namespace": (team(1, namespace="vision2"), 1),  # the team's FSx volume, named by its directory
    "fsx.namespace moved to the other team's": (lambda c: c["trainstack:fsx"].update(namespace="vision"), 6),
}


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> dict:
    return record(tmp_path_factory.mktemp("base"), STACK)


@pytest.fixture(scope="module")
def heads(tmp_path_factory) -> dict[str, dict]:
    return {label: record(tmp_path_factory.mktemp("head"), STACK, edit) for label, (edit, _) in RENAMES.items()}


def test_renaming_a_team_keeps_the_urn_of_every_object_in_its_namespace_so_the_engine_updates_them(base, heads):
    before, after = objects(base), objects(heads["a team's name"])
    kept = {key: urns[0] for key, urns in before.items() if key[2] == "llm" and key in after}
    # The team's FSx claim too; its ServiceAccount and LocalQueue are named by the team: new objects.
    assert {key[1] for key in kept} == {"Role", "RoleBinding", "NetworkPolicy", "ResourceQuota", "LimitRange",
                                        "PersistentVolumeClaim"}
    assert {key: after[key][0] for key in kept} == kept
    assert not [f for f in assess(compare(base, heads["a team's name"])) if f.kind == "rejected"]


@pytest.mark.parametrize("label", list(RENAMES))
def test_every_object_a_rename_keeps_keeps_its_urn_or_closes_the_gate_naming_it(base, heads, label):
    before, after = objects(base), objects(heads[label])
    olds = {r["urn"] for r in base["resources"]} | {urns[0] for urns in before.values()}
    # The engine matches a resource by its URN, then by its aliases (pulumi/pulumi step_generator.go v3.259.0).
    moved = [key for key in sorted(before.keys() & after.keys())
             if next((u for u in after[key] if u in olds), None) != before[key][0]]
    said = " ".join(f"{f.title}. {f.detail}" for f in blocking(assess(compare(base, heads[label])))
                    if f.kind == "rejected")
    assert [key for key in moved if f"{key[1]} {key[2] + '/' if key[2] else ''}{key[3]}:" not in said] == []
    assert len(moved) == RENAMES[label][1]


def renamed(state: dict[str, Any], steps: list[tuple[str, str]]) -> dict[str, Any]:
    """The state (URN -> what it holds) after each ``pulumi state rename``, which refuses a URN it lacks and a name
    it holds (pulumi/pulumi v3.259.0 pkg/cmd/pulumi/state/state_rename.go)."""
    state = dict(state)
    for old, name in steps:
        new = f"{old.rsplit('::', 1)[0]}::{name}"
        assert old in state and new not in state, (old, name)
        state[new] = state.pop(old)
    return state


def test_the_fix_renames_the_moved_objects_in_the_state_to_their_new_urns_in_an_order_that_frees_each_name(base,
                                                                                                           heads):
    diff = compare(base, heads["fsx.namespace moved to the other team's"])
    found = moves(diff.base, diff.head)
    steps = state_renames(diff, found)
    assert steps is not None
    # The engine's URNs: every ancestor's type, without the root stack.
    assert all(old.startswith(f"urn:pulumi:{STACK}::trainstack::trainstack:index:TrainingStack$"
                              "trainstack:index:LustreFileSystem$kubernetes:core/v1:") for old, _ in steps)
    # The two namespaces trade names: llm's resource leaves `-namespace` before vision's takes it.
    names = [(old.rsplit("::", 1)[-1], new) for old, new in steps]
    assert names.index((f"{STACK}-fsx-namespace", f"{STACK}-fsx-namespace-llm")) < \
        names.index((f"{STACK}-fsx-namespace-vision", f"{STACK}-fsx-namespace"))
    olds = {engine_urn(diff.base, m.base.urn, m.base.parent): m.identity for m in found}
    news = {engine_urn(diff.head, m.head.urn, m.head.parent): m.identity for m in found}
    assert renamed(olds, steps) == news
    (finding,) = [f for f in assess(diff) if f.kind == "rejected"]
    assert "`pulumi state rename 'urn:pulumi:kueue-p5::trainstack::trainstack:index:TrainingStack$" in finding.detail


def configmaps(*names: tuple[str, str]) -> dict:
    """A record of ConfigMaps in ``default``: (Pulumi name, object name) each."""
    resources = [{"urn": f"urn:pulumi:s::p::kubernetes:core/v1:ConfigMap::{pulumi_name}", "type":
                  "kubernetes:core/v1:ConfigMap", "name": pulumi_name, "custom": True,
                  "inputs": {"apiVersion": "v1", "kind": "ConfigMap",
                             "metadata": {"name": name, "namespace": "default"}}} for pulumi_name, name in names]
    return {"formatVersion": 2, "project": "p", "stack": "s", "resources": resources}


def test_two_objects_that_trade_pulumi_names_are_renamed_through_a_name_that_is_free():
    base = configmaps(("a", "first"), ("b", "second"))
    head = configmaps(("a", "second"), ("b", "first"))
    diff = compare(base, head)
    found = moves(diff.base, diff.head)
    assert [m.said for m in found] == ["ConfigMap default/first", "ConfigMap default/second"]
    steps = state_renames(diff, found)
    assert steps is not None
    urn = "urn:pulumi:s::p::kubernetes:core/v1:ConfigMap::"
    assert renamed({urn + "a": "first", urn + "b": "second"}, steps) == {urn + "a": "second", urn + "b": "first"}
    assert {f.kind for f in blocking(assess(diff))} == {"rejected"}
