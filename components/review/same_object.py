"""A Kubernetes object the head gives another URN than the base: a change the engine cannot apply.

Pulumi matches a resource with the state by its URN, then by the aliases it declares; an old resource that no
new one claims is deleted after the program has registered everything (pulumi/pulumi v3.259.0
pkg/resource/deploy/step_generator.go, ``getOldResource``: "Check the URN first, then aliases"). So an object
whose URN is new is created while the resource of its old URN still exists, and that one is deleted at the end.
Where both URNs name one object of the API server (the same API group, kind, namespace and name), the create finds
it there. The Kubernetes provider creates by server-side apply, which takes the object over instead of refusing it
(pulumi-kubernetes provider/pkg/await/await.go @ f47bc2d6f199, ``Creation``: "we currently always upsert the
object"): a field the old resource's field manager holds with another value stops ``pulumi up`` half way (a
server-side apply conflict); otherwise ``pulumi up`` goes on and the old resource's delete at the end deletes the
object the new one now manages. It reports success, and the object is gone. tests/deploy/test_renames.py sees both
with the real engine: a team's Role and RoleBinding stop a rename on their team label and subjects, and a namespace
under another Pulumi name is deleted with everything in it. Either way the gate blocks.

A ConfigGroup's objects are registered by the provider, as children of the group, each named
``<resourcePrefix>:<namespace>/<name>`` (``<resourcePrefix>:<name>`` when cluster-scoped), the prefix the group's
own name unless it sets one, and typed ``kubernetes:<apiVersion>:<kind>`` with ``v1`` as ``core/v1``
(provider/pkg/provider/yaml/v2 configgroup.go and yaml.go, sdk/go/kubernetes/yaml/v2 kinds.go, same commit). The
offline plan records the group, not them, so their URNs are made here by that rule. They have no aliases: the
engine hands a remote component's aliases to Construct in a field the pinned provider's Go SDK (v3.215.0) does not
read (pulumi/pulumi#21050, v3.217.0), so not even the group's own alias reaches them. A kustomize Directory's
objects are read from its files by the provider and are not in the record: not judged here.

What each rename the stack file allows does, and why (tests/review/test_same_object.py plans them):

- a team's name (``scheduling.teams[].name``), its namespace kept: applied. Its ConfigGroup is named by the
  namespace (tenancy/teams.py), so its Role, RoleBinding, NetworkPolicy, ResourceQuota and LimitRange keep their
  URNs and are updated in place; its ServiceAccount, queues and Pod Identity role are named by the team and are new
  objects, made beside the old ones, which go.
- a team's namespace: applied for its objects, its claims and the namespace, all new objects; blocked for its FSx
  volume, which is named by the team's directory (``teams/<team>``, so the same object) under a Pulumi name that
  follows the namespace (storage/lustre_eks.py); naming it by the directory would itself move the volume of every
  deployed stack.
- ``fsx.namespace`` (``existingCluster.fileSystem.namespace``) moved to another job namespace, and FSx added to or
  removed from a stack with teams: blocked. The first job namespace (``config.job_namespaces``: the FSx claim's)
  keeps the names its namespace, volume and claim had before there were teams (``<fsx>-namespace``, ``-pv``,
  ``-pvc``; a dataset's volume and claim without a suffix), and a team's namespace moves between the FSx claims and
  Kueue's objects: the same objects under other names and parents.
  An alias would have to name the namespace that came first in the deployed stack, which the program cannot know
  (the base's configuration is not its input), and a wrong alias takes over another namespace's objects.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any, Optional

from ..names import ROOT_STACK, YAML_CONFIG_GROUP
from .diff import PlanDiff
from .finding import Finding

KUBERNETES = "kubernetes:"
SHOWN = 5
"""Objects named in a finding's title before "and N more"."""
ASIDE = "-renaming"
"""What a resource's name is given for a moment when two resources trade names in the state."""

Identity = tuple[str, str, str, str]
"""(API group, kind, namespace, name): what the API server knows an object by; "" for the core group and for a
cluster-scoped object's namespace. The version is not part of it: the API server serves one object at every version
of its group."""


@dataclass(frozen=True)
class Registration:
    """One Kubernetes object as the engine registers it: its URN and parent (the offline plan's), and the resource
    of the record that renders it (itself, or its ConfigGroup)."""

    urn: str
    parent: Optional[str]
    holder: dict[str, Any]
    aliases: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.urn.rsplit("::", 1)[-1]


@dataclass(frozen=True)
class Move:
    """An object the base has at ``base`` that the head creates at ``head``, a URN the engine does not match."""

    identity: Identity
    base: Registration
    head: Registration

    @property
    def said(self) -> str:
        """``Role llm/trainstack-team``."""
        _, kind, namespace, name = self.identity
        return f"{kind} {namespace + '/' if namespace else ''}{name}"


def registrations(record: dict[str, Any]) -> dict[Identity, Registration]:
    """Every Kubernetes object of a record, by identity: each Kubernetes resource with a ``metadata.name``, and
    each object of a ConfigGroup at the URN the provider gives it."""
    found: dict[Identity, Registration] = {}
    for resource in record["resources"]:
        inputs = resource.get("inputs") or {}
        if resource["type"] == YAML_CONFIG_GROUP:
            prefix = inputs.get("resourcePrefix") or resource["name"]
            for item in inputs.get("objs") or []:
                identity = _identity(item.get("apiVersion"), item.get("kind"), item.get("metadata"))
                if identity is not None:
                    name = f"{prefix}:{identity[2] + '/' if identity[2] else ''}{identity[3]}"
                    child_type = f"{KUBERNETES}{_module(str(item['apiVersion']))}:{item['kind']}"
                    urn = f"{resource['urn'].rsplit('::', 1)[0]}${child_type}::{name}"
                    found.setdefault(identity, Registration(urn, resource["urn"], resource))
        elif resource.get("custom") and resource["type"].startswith(KUBERNETES):
            _, module, kind = resource["type"].split(":", 2)
            identity = _identity(module, kind, inputs.get("metadata"))
            if identity is not None:
                aliases = tuple(str(a) for a in (resource.get("options") or {}).get("aliases") or [])
                found.setdefault(identity, Registration(resource["urn"], resource.get("parent"), resource, aliases))
    return found


def _module(api_version: str) -> str:
    """The type token's module of an apiVersion: the core group's ``v1`` is ``core/v1``."""
    return api_version if "/" in api_version else f"core/{api_version}"


def _identity(api_version: Any, kind: Any, metadata: Any) -> Optional[Identity]:
    if not (isinstance(api_version, str) and isinstance(kind, str) and isinstance(metadata, dict)
            and isinstance(metadata.get("name"), str)):
        return None  # a Helm release, or a name known only at deploy: no object to match
    group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
    return ("" if group == "core" else group, kind, str(metadata.get("namespace") or ""), metadata["name"])


def moves(base: dict[str, Any], head: dict[str, Any]) -> list[Move]:
    """Each object both records hold whose head resource the engine will not match with the base's: its URN and
    aliases name no old resource, or another one (the URN first, then the aliases, as the engine looks)."""
    before, after = registrations(base), registrations(head)
    olds = {r["urn"] for r in base["resources"]} | {r.urn for r in before.values()}
    found = []
    for identity, now in sorted(after.items()):
        was = before.get(identity)
        if was is None:
            continue
        matched = next((urn for urn in (now.urn, *now.aliases) if urn in olds), None)
        if matched != was.urn:
            found.append(Move(identity, was, now))
    return found


# -- the fix ---------------------------------------------------------------------------------------------------
class EngineUrns:
    """The URNs the engine gives what the offline plan registered in ``record``. The plan's mock monitor qualifies
    a type by its parent's type alone and names the root stack (pulumi sdk/python/lib/pulumi/runtime/mocks.py,
    ``make_urn``); the engine qualifies it by every ancestor's type, the root stack left out (pulumi/pulumi
    sdk/go/common/resource/urn.go ``NewURN``, given the parent's ``QualifiedType``)."""

    def __init__(self, record: dict[str, Any]):
        self.by_urn = {r["urn"]: r for r in record["resources"]}

    def __call__(self, urn: str, parent: Optional[str]) -> str:
        """The engine's URN of what the plan registered at ``urn`` under ``parent``."""
        head, name = urn.rsplit("::", 1)
        prefix, qualified = head.rsplit("::", 1)
        chain = [qualified.rsplit("$", 1)[-1]]
        ancestor = self.by_urn.get(parent or "")
        while ancestor is not None:
            if ancestor["type"] != ROOT_STACK:
                chain.append(ancestor["type"])
            ancestor = self.by_urn.get(ancestor.get("parent") or "")
        return f"{prefix}::{'$'.join(reversed(chain))}::{name}"

    def component(self, resource: dict[str, Any]) -> dict[str, Any]:
        """The nearest of ``resource`` and its ancestors that is not a Kubernetes resource (trainstack's component:
        the key of the stack file behind it), or the outermost Kubernetes one."""
        while resource["type"].startswith(KUBERNETES) and resource.get("parent") in self.by_urn:
            resource = self.by_urn[resource["parent"]]
        return resource


def engine_urn(record: dict[str, Any], urn: str, parent: Optional[str]) -> str:
    return EngineUrns(record)(urn, parent)


def _renamed(move: Move, base: EngineUrns, head: EngineUrns) -> dict[str, str]:
    """The engine's URNs a move renames, base -> head: the object's, and its ConfigGroup's where that is renamed."""
    was, now = move.base.holder, move.head.holder
    pairs = {base(move.base.urn, move.base.parent): head(move.head.urn, move.head.parent)}
    if was["type"] == YAML_CONFIG_GROUP and was["urn"] != now["urn"]:
        pairs[base(was["urn"], was.get("parent"))] = head(now["urn"], now.get("parent"))
    return pairs


def state_renames(diff: PlanDiff, found: list[Move]) -> Optional[list[tuple[str, str]]]:
    """``pulumi state rename`` steps, (URN in the deployed state, new name), that give each moved object its new
    URN, and a moved object's ConfigGroup its new name (so that the objects keep their parent), in an order in which
    each new name is free when it is taken; None where a rename cannot do it: a URN that changes in more than its
    name (a parent or type of another kind), or a new name another resource of the state keeps. The command
    changes only the name part of a URN, refuses one the state already has, and carries a renamed resource's
    children with it (pulumi/pulumi v3.259.0 pkg/cmd/pulumi/state/state_rename.go)."""
    base, head = EngineUrns(diff.base), EngineUrns(diff.head)
    pairs = {old: new for move in found for old, new in _renamed(move, base, head).items()}
    olds = {base(r["urn"], r.get("parent")) for r in diff.base["resources"]}
    if any(old.rsplit("::", 1)[0] != new.rsplit("::", 1)[0] or (new in olds and new not in pairs)
           for old, new in pairs.items()):
        return None
    order: list[tuple[str, str]] = []
    pending = dict(pairs)
    while pending:
        free = sorted(old for old, new in pending.items() if new not in pending)
        if not free:  # names that swap: one steps aside first
            old = min(pending)
            aside = f"{old}{ASIDE}"
            order.append((old, aside.rsplit("::", 1)[-1]))
            pending[aside] = pending.pop(old)
            continue
        order += [(old, pending.pop(old).rsplit("::", 1)[-1]) for old in free]
    return order


# -- the finding -----------------------------------------------------------------------------------------------
def findings(diff: PlanDiff) -> list[Finding]:
    """One blocking finding per component of the head whose objects moved (the Teams, the file system, the add-ons:
    the key of the stack file behind them), naming each object, the resource of the base that holds it, and the
    fix."""
    found = moves(diff.base, diff.head)
    if not found:
        return []
    renames = state_renames(diff, found)
    base, head = EngineUrns(diff.base), EngineUrns(diff.head)
    groups: dict[str, list[Move]] = {}
    for move in found:
        groups.setdefault(head.component(move.head.holder)["urn"], []).append(move)
    result = []
    for urn, moved in sorted(groups.items()):
        one = len(moved) == 1
        shown = ", ".join(m.said for m in moved[:SHOWN]) + (f" and {len(moved) - SHOWN} more" if len(moved) > SHOWN
                                                              else "")
        result.append(Finding(
            "rejected", "blocking", urn,
            f"{urn.rsplit('::', 1)[-1]}: {shown} {'is' if one else 'are'} already in the cluster under "
            f"{'another URN' if one else 'other URNs'}",
            "; ".join(f"{m.said}: {m.base.name} in the base, {m.head.name} in the head" for m in moved)
            + ". Pulumi creates a resource whose URN is new before it deletes the one of the old URN, at the end of "
            "`pulumi up`, and both name one object of the API server: the Kubernetes provider's create is a "
            "server-side apply that takes the object over, so `pulumi up` stops half way on a field the old "
            "resource's manager holds, or succeeds and then deletes the object with the old resource. Revert the "
            "change that renames " + ("it" if one else "them") + "; " + _fix(moved, renames, base, head) + "."))
    return result


def _fix(moved: list[Move], renames: Optional[list[tuple[str, str]]], base: EngineUrns, head: EngineUrns) -> str:
    if renames is None:
        return ("or, to keep it, give each object its new URN in the stack's state before `pulumi up` (`pulumi stack "
                "export`, set the URN, and the parent of the objects of a ConfigGroup, then `pulumi stack import`): "
                "`pulumi state rename` changes only a URN's name, and these change more, or take a name the state "
                "keeps for another resource")
    mine = {old for move in moved for old in _renamed(move, base, head)}
    steps = [(old, new) for old, new in renames if old.removesuffix(ASIDE) in mine]
    return ("or, to keep it, give each object its new URN in the stack's state before `pulumi up`, in this order, and "
            "the engine updates it in place: "
            + "; ".join(f"`pulumi state rename {shlex.quote(old)} {shlex.quote(new)}`" for old, new in steps))
