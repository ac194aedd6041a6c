"""A change that widens a team's access is a security change: the gate names each one.

Both records are read as ``review/access.py`` reads them, and the head is compared with the base by what it
grants, not by its text: a grant of the head that no grant of the base covers is a widening. So a member added,
a member put in a wider group, a Role given another verb or resource, a binding of a team's group outside its
namespace or cluster-wide, an IAM statement with another action or a wider resource (a checkpoint prefix widened,
a dataset given to one more team), a Pod Security level loosened and a NetworkPolicy removed or admitting another
peer are each named; a change that only narrows (a member removed, a verb dropped, a prefix narrowed) is not.

Each is a warning the gate shows (``Gate: passed, with N security changes``), not a block: adding a member is
what ``scheduling.teams[].members`` is for, and a reviewer is asked to read it, not to approve a URN.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Optional

from .access import PSA_LEVELS, Allow, Grant, StackAccess, TeamAccess, covered, grants_said, read_access
from .diff import PlanDiff
from .finding import Finding

SHOWN = 4
"""Grants listed in a finding before "and N more"."""


def findings(diff: PlanDiff) -> list[Finding]:
    """Every widening of a team's access from the base to the head; none where neither record has teams."""
    head = read_access(diff.head_plan)
    if head is None:
        return []
    base = read_access(diff.base_plan) or StackAccess(teams={}, entries={}, grants={})
    return [*_principals(base, head), *_groups(base, head), *_teams(base, head)]


def _finding(urn: Optional[str], title: str, detail: str) -> Finding:
    return Finding("access", "warning", urn, f"security: {title}", detail)


def _principals(base: StackAccess, head: StackAccess) -> Iterator[Finding]:
    """A principal new to the Teams' access entries, or one put in a group that grants it more."""
    for principal, groups in sorted(head.entries.items()):
        gained = sorted(g for g in head.of_principal(principal) if not covered(g, base.of_principal(principal)))
        urn = head.urns.get(f"entry:{principal}")
        who = _who(head, principal)
        if principal not in base.entries:
            yield _finding(urn, f"{principal} is given access as {who}",
                           f"Its EKS access entry puts it in {', '.join(groups)}, which may {_listed(gained)}.")
        elif set(groups) != set(base.entries[principal]) and gained:
            yield _finding(urn, f"{principal} is moved to a wider group ({', '.join(base.entries[principal])} -> "
                                f"{', '.join(groups)})", f"It gains: {_listed(gained)}.")


def _groups(base: StackAccess, head: StackAccess) -> Iterator[Finding]:
    """A group of a team or of the Teams' access entries that may do more: a Role or ClusterRole given more
    resources or verbs, or the group bound in another namespace or cluster-wide."""
    named = {g for team in head.teams.values() for g in team.groups} | {g for gs in head.entries.values() for g in gs}
    base_groups = {g for team in base.teams.values() for g in team.groups} | {
        g for gs in base.entries.values() for g in gs}
    for group in sorted(named & base_groups):
        gained = sorted(g for g in head.grants.get(group, frozenset()) if not covered(g, base.grants.get(group, ())))
        if not gained:
            continue
        team = next((t for t in head.teams.values() if group in t.groups), None)
        outside = sorted({g.scope for g in gained if team is None or g.scope != team.namespace})
        where = (f"; bound outside its namespace {team.namespace}: "
                 + ", ".join("cluster-wide" if s == "*" else s for s in outside)) if team and outside else ""
        holders = [p for p, gs in sorted(head.entries.items()) if group in gs]
        yield _finding(head.urns.get(f"team:{team.team}") if team else None,
                       f"group {group} may do more" + (f" (team {team.team}{where})" if team else ""),
                       f"It gains: {_listed(gained)}. Every principal in the group gains it: "
                       f"{', '.join(holders) or 'none with an access entry in this stack'}.")


def _teams(base: StackAccess, head: StackAccess) -> Iterator[Finding]:
    for name, team in sorted(head.teams.items()):
        before = base.teams.get(name)
        if before is None:
            continue  # a new team: its members are named above, each as given access
        yield from _data(head, team, before)
        yield from _pod_security(head, team, before)
        yield from _network(head, team, before)


def _data(head: StackAccess, team: TeamAccess, before: TeamAccess) -> Iterator[Finding]:
    gained = sorted(a for a in team.allows if not covered(a, before.allows))
    if gained:
        reached = sorted({d["name"] for d in head.datasets for a in gained if _in_dataset(a, d)})
        said = f" (datasets newly reached: {', '.join(reached)})" if reached else ""
        yield _finding(head.urns.get(f"policy:{team.team}"),
                       f"team {team.team}'s pods may do more in AWS{said}",
                       f"Its Pod Identity role{'s' if len(team.roles) != 1 else ''} ({', '.join(team.roles)}) "
                       f"gain{'s' if len(team.roles) == 1 else ''}: {_listed(gained)}.")


def _pod_security(head: StackAccess, team: TeamAccess, before: TeamAccess) -> Iterator[Finding]:
    if team.pod_security is None or before.pod_security is None:
        return
    if _rank(team.pod_security) < _rank(before.pod_security):
        yield _finding(head.urns.get(f"namespace:{team.namespace}"),
                       f"namespace {team.namespace} (team {team.team}) enforces Pod Security {team.pod_security}, "
                       f"looser than {before.pod_security}",
                       "Pod Security admission lets in pods the stricter level refused (Kubernetes docs, Pod "
                       "Security Standards).")


def _network(head: StackAccess, team: TeamAccess, before: TeamAccess) -> Iterator[Finding]:
    if before.ingress is None:
        return  # it was open to every pod already
    urn = head.urns.get(f"team:{team.team}")
    if team.ingress is None:
        yield _finding(urn, f"namespace {team.namespace} (team {team.team}) is open to every pod of the cluster",
                       "No NetworkPolicy selects all of its pods for ingress any more: pods no policy selects "
                       "accept connections from anywhere (Kubernetes docs, Network Policies).")
        return
    admitted = sorted(team.ingress - before.ingress)
    if admitted:
        yield _finding(urn, f"namespace {team.namespace} (team {team.team}) admits more ingress",
                       f"Its NetworkPolicies newly admit: {'; '.join(admitted)}.")


def _rank(level: str) -> int:
    return PSA_LEVELS.index(level) if level in PSA_LEVELS else 0


def _who(access: StackAccess, principal: str) -> str:
    teams = [t.team for t in access.teams.values() if principal in t.members]
    return (f"a member of team {', '.join(teams)}" if teams else "a viewer")


def _in_dataset(allow: Allow, dataset: dict[str, object]) -> bool:
    bucket = f"arn:aws:s3:::{dataset.get('bucket')}"
    return allow.resource == bucket or allow.resource.startswith(f"{bucket}/")


def _listed(items: list[Grant] | list[Allow]) -> str:
    """What is gained, in words: Kubernetes grants by scope and verbs, IAM statements one by one."""
    said = grants_said(i for i in items if isinstance(i, Grant)) + [i.said for i in items if isinstance(i, Allow)]
    if not said:
        return "nothing its groups did not already grant it"
    return "; ".join(said[:SHOWN]) + (f"; and {len(said) - SHOWN} more" if len(said) > SHOWN else "")
