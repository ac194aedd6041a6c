"""What a change risks, in a reviewer's words, and whether it may merge.

- Data loss: a stateful resource (a file system, a bucket, an image repository, a cluster,
  a KMS key) replaced or deleted loses what it holds. It blocks the merge unless the pull
  request approves that resource by URN (``--approve-replace URN``); there is no global switch.
  An approval that matches nothing to approve is refused (``ApprovalError``), naming the URNs
  that could be approved: a mistyped URN must not look like an accepted risk.
- Unknown: a changed input of a resource that holds data or that running things stand on,
  which no replacement fact classifies, may replace it ("unknown: may replace"): it blocks,
  approved the same way, until the fact is added with its source.
- Protection: a protected resource replaced or deleted stops ``pulumi up``; the finding says
  how to proceed.
- Node rolls: a node group deleted (a rename is a delete and a create), replaced, or updated to a
  new version or launch template, loses its nodes and the jobs on them; the finding counts them
  and estimates the time at the group's ``updateConfig`` pace. HyperPod instance groups removed,
  shrunk or given a new instance type lose theirs (``disruption``).
- Network: a network resource replaced or deleted under running things names them; the VPC of a
  running cluster or file system blocks like data loss; a subnet replaced into a range the VPC
  still uses is refused by EC2 and blocks (``disruption``).
- Ignored: an input the resource's ``ignoreChanges`` names is said to be ignored (Pulumi leaves
  the running resource as it is), and the cost deltas leave it out.
- Kubernetes versions: EKS upgrades one minor version at a time, and rolls a control plane back one minor
  only, within 7 days of the upgrade and above node groups already back; what EKS would refuse is refused here
  (``kubernetes_version``).
- Policies: a newly failing mandatory policy blocks; advisory ones and fixes are reported.
- Purchases: creating or replacing a resource that buys something for good (a Capacity Block) blocks until the
  pull request approves it by URN; a change of a resource type the table does not know blocks the same way
  (``unclassified``).
- Access: a change that widens a team's access (a new member or viewer, a wider group, a Role or IAM policy
  that grants more, a looser Pod Security level, a NetworkPolicy removed or widened) is a security change: a
  warning the gate shows by name (``widening``).
- Same object, new URN: a Kubernetes object the head registers under a URN the engine does not match with the
  base's (a rename of what names it) is created before the old resource is deleted, and both are one object in the
  API server: ``pulumi up`` stops half way, or deletes the object at the end. It blocks, with the state renames
  that make the change apply (``same_object``).
- Reserved capacity: a group that keeps its reservation, block or training plan under another instance type blocks
  (nothing launches in it, and it keeps billing); one let go of is a warning that it still bills (``held_capacity``).
"""

from __future__ import annotations

import math
from typing import Any

from ..catalog import resource_types
from ..names import EKS_COMPONENT_CLUSTER, LAUNCH_TEMPLATE, NODE_GROUP, VPC
from . import kubernetes_version
from .diff import IgnoredChange, PlanDiff, ResourceChange
from .disruption import (
    Dependents,
    instance_group_losses,
    named,
    network_noun,
    network_replacements,
    overlapping_subnets,
    running_before,
)
from .finding import Finding, Kind

ENGINE_PREFIX = "pulumi:"
ROLLING_INPUTS = ("version", "releaseVersion", "launchTemplate.version")
"""Node group inputs updated through UpdateNodegroupVersion, which replaces every node."""


class ApprovalError(ValueError):
    """An ``--approve-replace`` URN that matches nothing this diff asks to approve (one line, the fix in it)."""


def assess(diff: PlanDiff, approvals: frozenset[str] = frozenset()) -> list[Finding]:
    findings: list[Finding] = []
    asked: set[str] = set()
    """The URNs of the findings that ask for an approval, approved or not."""
    graph = Dependents(diff.head, diff.base)
    running = running_before(diff)
    for change in diff.changes:
        findings += _purchase_or_unclassified(change, approvals, asked)
        if change.action in ("replace", "delete"):
            findings += _loss_and_protection(change, approvals, asked)
        if change.type == EKS_COMPONENT_CLUSTER:
            findings += kubernetes_version.findings(change, diff)
        findings += [Finding("instance-group", "warning", change.urn, f"{change.name}: {loss}, jobs on them are killed",
                             "SageMaker's UpdateCluster deletes instance groups (InstanceGroupsToDelete) and removes "
                             "instances to meet a lower count. Checkpoint and stop the jobs on this group first.")
                     for loss in instance_group_losses(change)]
        unsure = change.provider_decides or change.unknown
        standing = [r for r in graph.running_on(change.urn) if r["urn"] in running] if unsure else []
        for item in change.unknown:
            findings.append(_unknown(change, item.path, standing, approvals, asked))
        for item in change.provider_decides:
            findings.append(Finding("provider-decides", "note", change.urn,
                                    f"{change.name}: whether `{item.path}` updates in place or replaces: "
                                    "the provider decides", item.reason
                                    + (f". Standing on {change.name}: {named(standing)}" if standing else "")))
    findings += _node_rolls(diff)
    findings += _network(diff, graph, approvals, asked)
    findings += [_ignored(item) for item in diff.ignored]
    for failure in diff.new_failures:
        blocking = failure.enforcement == "mandatory"
        findings.append(Finding("policy", "blocking" if blocking else "warning", failure.urn,
                                f"policy `{failure.rule}` ({failure.enforcement}) newly fails", failure.message))
    for failure in diff.fixed_failures:
        findings.append(Finding("policy", "note", failure.urn, f"policy `{failure.rule}` is fixed", failure.message))
    from .cost import cost_sections, monthly_increase_finding, monthly_total
    from .held_capacity import findings as held_capacity_findings

    sections = cost_sections(diff)
    over = monthly_increase_finding(diff, monthly_total(sections, "head", "desired"),
                                    monthly_total(sections, "base", "desired"))
    findings += [over] if over else []
    findings += held_capacity_findings(diff, sections["base"])
    from .same_object import findings as same_object_findings
    from .widening import findings as access_widenings

    findings += same_object_findings(diff)
    findings += access_widenings(diff)
    _refuse_unmatched(approvals - asked, asked)
    return findings


def _refuse_unmatched(unmatched: frozenset[str], asked: set[str]) -> None:
    """Every approval must match a finding that asks for one; a stray URN is an error, never ignored."""
    if not unmatched:
        return
    could = ("; the URNs this diff could approve: " + ", ".join(sorted(asked))) if asked else \
        "; this diff has nothing to approve"
    raise ApprovalError(f"--approve-replace {', '.join(sorted(unmatched))}: matches no replacement, deletion or "
                        f"unknown change that needs approval in this diff{could}. Remove it, or copy the URN "
                        "from the blocking finding")


def blocking(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == "blocking"]


def security(findings: list[Finding]) -> list[Finding]:
    """The findings that widen a team's access: the gate shows them whether or not it passes."""
    return [f for f in findings if f.kind == "access"]


def _loss_and_protection(change: ResourceChange, approvals: frozenset[str], asked: set[str]) -> list[Finding]:
    findings = []
    verb = "replaced" if change.action == "replace" else "deleted"
    lost = resource_types.loses(change.type)
    retained = bool(change.option("retainOnDelete"))
    why = ", ".join(f"`{c.path}`" for c in change.replaced_by) if change.action == "replace" else ""
    if lost and not retained:
        findings.append(_approvable("data-loss", change, f"{change.name} is {verb}: data loss",
                                    f"Loses {lost}." + (f" Replaced because of {why}." if why else ""),
                                    approvals, asked))
    elif lost and retained:
        findings.append(Finding("data-loss", "note", change.urn, f"{change.name} is {verb}, but retained",
                                "retainOnDelete keeps the cloud resource; Pulumi stops managing it."))
    if change.option("protect"):
        steps = ("set its protect option off in one `pulumi up` (for trainstack storage `fsx.protect: false` or "
                 "`checkpointBucket.protect: false`), then apply this change; or revert the change")
        findings.append(Finding(
            "protected", "warning", change.urn, f"{change.name} is protected: `pulumi up` stops here",
            f"Pulumi refuses to {'replace' if change.action == 'replace' else 'delete'} a protected resource. "
            f"To proceed: {steps}."))
    return findings


def assess_change(change: ResourceChange, approvals: frozenset[str] = frozenset()) -> list[Finding]:
    """What the gate says of one change by its type alone: a purchase, or a type it cannot classify."""
    return _purchase_or_unclassified(change, approvals, set())


def _purchase_or_unclassified(change: ResourceChange, approvals: frozenset[str], asked: set[str]) -> list[Finding]:
    """A create or replacement that buys something for good (the resource-type table's ``purchase``) blocks until
    approved by URN; so does any change of a type the table has no row for, whose effects nothing here knows."""
    bought = resource_types.purchase(change.type)
    if bought and change.action in ("create", "replace"):
        return [_approvable("purchase", change, f"{change.name} buys {bought}",
                            "A purchase cannot be undone by reverting the change: the plan's warning says the fee "
                            "and the dates.", approvals, asked)]
    # The engine's own resources (providers, the stack) are Pulumi's, not the library's types.
    if resource_types.find(change.type) is None and not change.type.startswith(ENGINE_PREFIX):
        return [_approvable("unclassified", change, f"{change.name}: {change.type} is not in the resource-type table",
                            "Nothing says what creating, changing or deleting it does. Add its row to "
                            "`catalog/resource_types.py` with its sources.", approvals, asked)]
    return []


def _approvable(kind: Kind, change: ResourceChange, title: str, detail: str, approvals: frozenset[str],
                asked: set[str]) -> Finding:
    """A finding that blocks the merge unless the pull request approves this resource by URN."""
    asked.add(change.urn)
    if change.urn in approvals:
        return Finding(kind, "warning", change.urn, f"{title} (approved)", detail)
    return Finding(kind, "blocking", change.urn, title,
                   f"{detail} If intended, approve it: `--approve-replace {change.urn}` (in the pull request "
                   f"description: `trainstack-approve-replace: {change.urn}`)")


def _unknown(change: ResourceChange, path: str, standing: list[dict[str, Any]], approvals: frozenset[str],
             asked: set[str]) -> Finding:
    """A change of a guarded resource that no fact classifies: it may replace it, so it blocks like one."""
    row = resource_types.find(change.type)
    lost = row.loses if row else None
    read = f" (its facts were read from {row.replacement.source})" if row and row.replacement else ""
    return _approvable(
        "unknown-replacement", change, f"{change.name}: `{path}` is unknown: may replace",
        f"No replacement fact of {change.type} names `{path}`{read}. If AWS cannot change it in place, "
        f"{change.name} is replaced" + (f", losing {lost}" if lost else "")
        + (f" (standing on it: {named(standing)})" if standing else "")
        + ". Add the fact with its source to `catalog/resource_types.py`, or revert the change.",
        approvals, asked)


def _network(diff: PlanDiff, graph: Dependents, approvals: frozenset[str], asked: set[str]) -> list[Finding]:
    findings = []
    for change, standing in network_replacements(diff, graph):
        verb = "replaced" if change.action == "replace" else "deleted"
        holders = [r for r in standing if r["type"] != NODE_GROUP]
        if change.type == VPC and holders:
            fate = ("they are rebuilt, empty, in the new VPC, with everything that runs on them"
                    if change.action == "replace" else "they cannot stay once it is gone")
            findings.append(_approvable(
                "network", change, f"{change.name}: the VPC of running {named(holders)} is {verb}",
                "EKS keeps a cluster in the VPC it was created in, and a file system's or HyperPod cluster's subnets "
                f"cannot change: {fate}. Standing on it: {named(standing)}.", approvals, asked))
            continue
        # A replacement is built before the old one goes; a deletion builds nothing in its place.
        after = ("Pulumi builds a new one before it deletes this one; what refers to it follows only as its own "
                 "change says (see the resource changes), and traffic through it is cut until then"
                 if change.action == "replace" else
                 "Nothing takes its place: what refers to it keeps referring to a resource that is gone unless its "
                 "own change says otherwise (see the resource changes), and what it carried stops")
        findings.append(Finding(
            "network", "warning", change.urn, f"{change.name}: a {_noun(change)} under running things is {verb}",
            f"Standing on it: {named(standing)}. {after}."))
    for change, cidr, clashes in overlapping_subnets(diff):
        findings.append(Finding(
            "rejected", "blocking", change.urn, f"{change.name}: the new subnet {cidr} overlaps {', '.join(clashes)}",
            "Pulumi creates the replacement before it deletes the old subnet, and EC2 refuses a subnet whose range "
            "overlaps one the VPC still has (InvalidSubnet.Conflict): `pulumi up` would stop half way. Keep the "
            "subnet sizes, or add the new subnets in ranges the VPC does not use yet and move to them."))
    return findings


def _noun(change: ResourceChange) -> str:
    return str(network_noun(change.type))


def _ignored(item: IgnoredChange) -> Finding:
    return Finding("ignored", "note", item.urn,
                   f"{item.name}: `{item.path}` {item.before} -> {item.after} is ignored",
                   "The resource's ignoreChanges names it: Pulumi leaves the running resource as it is (a node "
                   "group's size belongs to the autoscaler), so the cost deltas leave it out. A resource created "
                   "anew starts at the new value.")


def _node_rolls(diff: PlanDiff) -> list[Finding]:
    templates = {c.urn: c for c in diff.changes if c.type == LAUNCH_TEMPLATE and c.action in ("update", "replace")}
    by_urn = {c.urn: c for c in diff.changes}
    findings = []
    for record in diff.head["resources"]:
        if record["type"] != NODE_GROUP:
            continue
        change = by_urn.get(record["urn"])
        if change is not None and change.action in ("create", "delete"):
            continue
        template_urns = [u for u in (record.get("propertyDependencies") or {}).get("launchTemplate", [])
                         if u in templates]
        rolling = [c.path for c in (change.inputs if change else []) if c.path in ROLLING_INPUTS]
        if change is not None and change.action == "replace":
            findings.append(_roll(change.base or record, "replaced",
                                  ", ".join(dict.fromkeys(f"`{c.path}`" for c in change.replaced_by))
                                  + " cannot change in place"))
        elif template_urns or rolling:
            causes = [f"its launch template {templates[u].name} changed (a new version)" for u in template_urns]
            causes += [f"`{path}` changed" for path in rolling]
            findings.append(_roll(change.base if change and change.base else record, "rolled", "; ".join(causes)))
    created = [c.name for c in diff.changes if c.type == NODE_GROUP and c.action == "create"]
    for change in diff.changes:
        if change.type == NODE_GROUP and change.action == "delete" and change.base is not None:
            cause = "the group is no longer in the stack"
            if created:
                cause += (f" ({', '.join(created)} {'is' if len(created) == 1 else 'are'} created beside it: a "
                          "renamed group is a new group, and its nodes start from nothing)")
            findings.append(_roll(change.base, "deleted", cause))
    return findings


def _roll(group: dict[str, Any], how: str, cause: str) -> Finding:
    inputs = group.get("inputs") or {}
    scaling = inputs.get("scalingConfig") or {}
    desired, maximum = int(scaling.get("desiredSize") or 0), int(scaling.get("maxSize") or 0)
    per_batch = resource_types.node_group_minutes(inputs)  # a batch: new nodes launched and joined
    update = inputs.get("updateConfig") or {}
    if how == "replaced":
        pace = (f"a new group is created (about {per_batch:g} min), then the old one is deleted with all its "
                "nodes at once")
        minutes = per_batch
    elif how == "deleted":
        pace = "the group is deleted with all its nodes at once"
        minutes = per_batch
    else:
        unavailable = resource_types.update_batch(update, desired)
        batches = math.ceil(desired / unavailable) if desired else 0
        minutes = resource_types.node_group_roll_minutes(inputs, desired)
        pace = (f"{batches} batch{'es' if batches != 1 else ''} of at most {unavailable} node"
                f"{'s' if unavailable != 1 else ''} (updateConfig), about {per_batch:g} min each to launch, join and "
                "drain")
    nodes = f"{desired} node{'s' if desired != 1 else ''}"
    # With no node at desired size nothing is known to run there: no job is said to be killed.
    title = f"{group['name']}: {nodes} {how}, jobs on them are killed" if desired else \
        f"{group['name']}: {how}, with no node at desired size"
    advice = "Checkpoint and stop the jobs on this group first." if desired else \
        "Check the group's running nodes first: any the autoscaler started are " + how + " too."
    return Finding(
        "node-roll", "warning", group["urn"], title,
        f"Because {cause}. {nodes} at desired size (up to {maximum} at max size; "
        f"the autoscaler may have changed the count). Estimated {minutes:g} min: {pace} "
        f"(an estimate, from typical launch times). {advice}")
