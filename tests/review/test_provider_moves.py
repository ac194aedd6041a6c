"""A change of a provider's configuration that moves the stack is a change of every resource on it.

Invariant (issue 53.1): when the AWS provider a resource is registered with moves (another region, another
account or role), the diff shows that resource replaced, and the gate blocks where one of them holds data.
The generator draws pairs of plan records of a planned stack that differ only there: the region, among the
regions the catalog knows, or the keys that name the caller's identity. The oracle reads the records alone:
which resources name the provider (their ``provider`` option, or a remote component's ``providers``), which
types are global (IAM: pulumi-aws 7 gives it no ``region``, docs/enhanced-region-support.md@d273034c) and
what the resource-type table says a replacement loses; and the engine's rule that a replaced provider
replaces every resource registered with it (pulumi/pulumi step_generator.go, providerChanged).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from support.rendered_jobs import planned_record
from trainstack.analysis import review
from trainstack.catalog import regions, resource_types
from trainstack.names import AWS_NATIVE_PROVIDER, AWS_PROVIDER, KUBERNETES_PROVIDER, PROVIDER_PREFIX
from trainstack.plan import Plan

STACKS = ("dev", "hyperpod-eks")
"""An EKS stack, and one with HyperPod on EKS (the AWS, aws-native and Kubernetes providers, pulumi-eks)."""
IDENTITY = {AWS_PROVIDER: ("profile", "assumeRoles", "accessKey", "sharedConfigFiles"),
            AWS_NATIVE_PROVIDER: ("profile", "roleArn")}
"""Keys of each provider that name the caller, and so may name another account."""
GLOBAL = ("aws:iam/",)
"""The global types trainstack renders: a region move leaves them where they are."""


def role(account: str) -> Any:
    return [{"roleArn": f"arn:aws:iam::{account}:role/deploy"}]


@dataclass(frozen=True)
class ProviderMove:
    """One pair of records: the stack's plan, and the same plan with the provider's ``key`` at ``after``."""

    stack: str
    provider: str
    """The provider's URN."""
    key: str
    before: Any
    """The key's value in the base record (None: not set)."""
    after: Any

    def records(self) -> tuple[dict[str, Any], dict[str, Any]]:
        planned = planned_record(self.stack)
        return _with(planned, self.provider, self.key, self.before), _with(planned, self.provider, self.key, self.after)


@st.composite
def moves(draw: st.DrawFn) -> ProviderMove:
    stack = draw(st.sampled_from(STACKS))
    provider = draw(st.sampled_from([r for r in planned_record(stack)["resources"] if r["type"] in IDENTITY]))
    key = draw(st.sampled_from(("region", *IDENTITY[provider["type"]])))
    if key == "region":
        before = provider["inputs"]["region"]
        after: Any = draw(st.sampled_from([name for name in regions.names() if name != before]))
    else:
        accounts = st.from_regex(r"\A[0-9]{12}\Z")
        value = (accounts.map(role) if key == "assumeRoles" else accounts.map(lambda a: [f"/creds/{a}"])
                 if key == "sharedConfigFiles" else st.from_regex(r"\A[a-z][a-z0-9-]{0,20}\Z"))
        before, after = draw(st.one_of(st.none(), value)), draw(value)
        if before == after:
            before = None
    return ProviderMove(stack, provider["urn"], key, before, after)


def _with(record: dict[str, Any], provider_urn: str, key: str, value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(record)
    for resource in changed["resources"]:
        if resource["urn"] == provider_urn:
            resource["inputs"].pop(key, None)
            if value is not None:
                resource["inputs"][key] = value
    return changed


def registered_with(record: dict[str, Any]) -> set[str]:
    """Its ``provider``; a remote component naming none (pulumi-eks's cluster) registers its children with the
    providers it hands them."""
    options = record.get("options") or {}
    references = [options.get("provider")] if options.get("provider") or not record["remote"] else \
        list((options.get("providers") or {}).values())
    return {reference.rsplit("::", 1)[0] for reference in references if reference}


def moved_by(record: dict[str, Any], provider_urn: str, key: str) -> set[str]:
    """The URNs of the resources registered with the provider that its move (of ``key``) takes with it."""
    provider_type = next(r["type"] for r in record["resources"] if r["urn"] == provider_urn)
    stays = key == "region" and provider_type == AWS_PROVIDER  # global types have no region of their own
    return {r["urn"] for r in record["resources"]
            if (r["custom"] or r["remote"]) and not r["type"].startswith(PROVIDER_PREFIX)
            and provider_urn in registered_with(r) and not (stays and r["type"].startswith(GLOBAL))}


def replaced_with(record: dict[str, Any], provider_urn: str, key: str) -> set[str]:
    """The oracle: what the move replaces, and, to a fixpoint, each Kubernetes provider whose kubeconfig comes from
    a replaced resource (its DiffConfig replaces it for a kubeconfig known only at deploy) with all on it."""
    replaced = moved_by(record, provider_urn, key)
    grown = True
    while grown:
        followed = {r["urn"] for r in record["resources"] if r["type"] == KUBERNETES_PROVIDER
                    and set((r.get("propertyDependencies") or {}).get("kubeconfig") or []) & replaced} - replaced
        replaced |= followed | {urn for provider in followed for urn in moved_by(record, provider, "")}
        grown = bool(followed)
    return replaced


@settings(max_examples=15)
@given(moves())
def test_a_provider_that_moves_shows_each_of_its_resources_replaced_and_the_gate_blocks_on_data(move):
    base, head = move.records()
    judged = review(Plan.from_dict(base), Plan.from_dict(head))
    replaced = {c.urn for c in judged.diff.changes if c.action == "replace"}
    expected = replaced_with(head, move.provider, move.key)
    assert sorted(expected - replaced) == []
    assert [c.urn for c in judged.diff.changes if c.action in ("create", "delete")] == []
    losses = {f.urn for f in judged.findings if f.kind == "data-loss"}
    blocking = {f.urn for f in judged.blocking if f.kind == "data-loss"}
    for resource in head["resources"]:
        if resource["urn"] in expected and resource_types.loses(resource["type"]):
            assert resource["urn"] in (losses if resource["options"]["retainOnDelete"] else blocking), resource["urn"]
    assert not judged.passed
