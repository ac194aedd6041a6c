"""Kueue's reasons for not reserving quota for a Workload, said as a team would ask: how many nodes it wants, how
many it can have now and why not more (whose guarantee holds them, what borrowing allows), what would admit it, and
the command. Quota here; topology in ``pending_topology``; its queue in ``pending_admission``; Kueue's message
pieces in ``pending_kueue``."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

from ..names import NODE_GROUP_LABEL
from .finding import Finding, Section
from .pending_admission import queue_blocked
from .pending_jobs import Job
from .pending_kueue import Never, Pending, read_pending
from .pending_queues import Group, Queues, Stack, Team, pods_that_fit
from .pending_queues import number as _n
from .pending_topology import no_room

if TYPE_CHECKING:
    from .pending_read import Read

SECTION: Section = "pending"


def not_admitted(stack: Stack, queues: Queues, job: Job, jobs: list[Job], read: Read) -> list[Finding]:
    """Why Kueue has not reserved quota for ``job`` (its ``QuotaReserved`` message, read back)."""
    message = str((job.conditions.get("QuotaReserved") or {}).get("message") or "")
    pending = read_pending(message)
    if not pending.decisive:
        # The last attempt looked only where the pods cannot go: the last reason that says what holds it back.
        history = read.history.get((job.namespace, job.workload), [])
        pending = next((said for said in map(read_pending, history) if said.decisive), pending)
    if pending.queue is not None:
        return [queue_blocked(stack, job, pending.queue, read)]
    if pending.never:
        return [_never(stack, queues, job, pending.never)]
    found = [_short(stack, queues, job, jobs, pending)] if pending.short else []
    found += [no_room(stack, job, room, read) for room in pending.no_room]
    if not found and pending.unmatched:
        found.append(_unmatched(stack, job, pending, read))
    if not found and message:
        found.append(Finding(SECTION, job.subject, f"admitted by {_queue_words(stack, job)}",
                             f"not admitted; Kueue says: {message}", f"read Kueue's whole account: {job.describe()}"))
    elif not found:
        found.append(Finding(SECTION, job.subject, f"admitted by {_queue_words(stack, job)}",
                             "not admitted, and Kueue has not said why: it has not tried to admit it yet",
                             "a Workload made seconds ago waits for Kueue's next attempt; else see that Kueue runs: "
                             "kubectl -n kueue-system get pods"))
    return found


def _queue_words(stack: Stack, job: Job) -> str:
    team = stack.teams.get(job.cluster_queue or "")
    return f"team {team.name}'s queue (ClusterQueue {team.cluster_queue})" if team else \
        f"ClusterQueue {job.cluster_queue or '(none)'}"


def _flavor_group(stack: Stack, job: Job, flavor: str) -> Group | None:
    return stack.groups.get(flavor) or stack.groups.get(next(
        (p.node_selector.get(NODE_GROUP_LABEL, "") for p in job.pod_sets), ""))


def _short(stack: Stack, queues: Queues, job: Job, jobs: list[Job], pending: Pending) -> Finding:
    """Quota that may come free: what it asks, what is free to its queue now, whose use holds the rest."""
    flavor = pending.short[0].flavor
    group, team, queue = _flavor_group(stack, job, flavor), stack.teams.get(job.cluster_queue or ""), job.cluster_queue
    asked = job.requested()
    use = queues.use(queue or "", flavor)
    if group is None or use is None:
        needed = ", ".join(f"{_n(s.needed)} {s.resource}" for s in pending.short)
        return Finding(SECTION, job.subject, f"admitted by {_queue_words(stack, job)}",
                       f"waiting for quota on flavor {flavor}: {needed} more needed ({pending.message})",
                       job.describe())
    free = {r: queues.free_to(use.queue, flavor, r) for r in group.per_node}
    per_pod = {r: asked.get(r, Fraction(0)) / max(job.pods, 1) for r in group.per_node}
    fit = pods_that_fit(free, per_pod)
    more = max(math.ceil(group.nodes(s.resource, s.needed)) for s in pending.short)
    acc = group.accelerator
    actual = (f"waiting for quota on {group.name}: it asks for "
              f"{group.words(group.nodes(acc, asked.get(acc, Fraction(0))))}; "
              f"{_n(group.nodes(acc, free[acc]))} are free to its queue now, so {more} more "
              f"node{'s are' if more != 1 else ' is'} needed (Kueue: "
              f"{', '.join(f'{_n(s.needed)} {s.resource}' for s in pending.short)} more). "
              f"{_holders(group, queues, use.queue, flavor, team)}")
    return Finding(SECTION, job.subject, _reach_words(group, queues, use.queue, flavor, team),
                   actual, _short_fix(stack, group, job, team, fit, _borrowers(jobs, queues, job, flavor, group)))


def _holders(group: Group, queues: Queues, queue: str, flavor: str, team: Team | None) -> str:
    """Who holds the flavor's nodes in the queue's cohort: each team's reservation, the part borrowed, what is free."""
    use = queues.use(queue, flavor)
    acc = group.accelerator
    if use is None or use.cohort is None:
        return ""
    members = queues.members(use.cohort, flavor)
    total = queues.capacity(use.cohort, flavor, acc)
    held = [f"{m.queue} {_n(group.nodes(acc, m.reserved.get(acc, Fraction(0))))}"
            + (f" ({_n(group.nodes(acc, m.borrowed[acc]))} borrowed)" if m.borrowed.get(acc) else "")
            for m in members]
    free = total - sum((m.reserved.get(acc, Fraction(0)) for m in members), Fraction(0))
    guarantee = (f"Team {team.name}'s guarantee is {_n(group.nodes(acc, use.nominal.get(acc, Fraction(0))))} "
                 f"nodes, {_n(group.nodes(acc, use.reserved.get(acc, Fraction(0))))} in use; ") if team else ""
    return (f"{guarantee}of cohort {use.cohort}'s {_n(group.nodes(acc, total))} {group.name} nodes, "
            f"{', '.join(held)} are held and {_n(group.nodes(acc, free))} free")


def _reach_words(group: Group, queues: Queues, queue: str, flavor: str, team: Team | None) -> str:
    use = queues.use(queue, flavor)
    acc = group.accelerator
    reach = _n(group.nodes(acc, queues.reach(queue, flavor, acc)))
    nominal = _n(group.nodes(acc, use.nominal.get(acc, Fraction(0)))) if use else "0"
    whose = f"team {team.name}'s queue (ClusterQueue {queue})" if team else f"ClusterQueue {queue}"
    borrow = (f", the rest borrowed from cohort {use.cohort} while other teams leave it unused"
              if use is not None and use.cohort and reach != nominal else "")
    return f"admitted by {whose}, which may hold up to {reach} {group.name} nodes: {nominal} guaranteed{borrow}"


def _borrowers(jobs: list[Job], queues: Queues, job: Job, flavor: str, group: Group) -> list[str]:
    """The admitted workloads of other queues of the cohort that borrow on ``flavor`` now, with their nodes."""
    use = queues.use(job.cluster_queue or "", flavor)
    if use is None or use.cohort is None:
        return []
    lenders = {m.queue for m in queues.members(use.cohort, flavor) if m.borrowed.get(group.accelerator)}
    acc = group.accelerator
    return [f"{other.namespace}/{other.workload} ({_n(group.nodes(acc, other.requested().get(acc, Fraction(0))))} "
            f"nodes)" for other in jobs
            if other.cluster_queue in lenders - {use.queue} and flavor in other.flavors()]


def _short_fix(stack: Stack, group: Group, job: Job, team: Team | None, fit: int, borrowers: list[str]) -> str:
    ways = []
    if fit > 0:
        ways.append(f"a job of {fit} nodes fits now: {job.resubmit(group.name, team.name if team else None, fit)}")
    if borrowers:
        ways.append(f"wait for the borrowed nodes to come back (held by {', '.join(borrowers)}: "
                    f"kubectl get workloads -A)")
    if team is not None:
        ways.append(f"guarantee team {team.name} more: raise its guaranteedNodes on {group.name} "
                    f"({team.guaranteed.get(group.name, 0)}) in {stack.stack_file}")
    ways.append(_grow(stack, group))
    return "; or ".join(ways)


def _grow(stack: Stack, group: Group) -> str:
    """What more capacity the stack could add to ``group``: the quotas follow its maxSize (addons/kueue.py)."""
    held = " and its capacity reservation's instanceCount" if group.reserved else ""
    return (f"add {group.name} capacity: raise its maxSize ({group.maximum}){held} in {stack.stack_file}, then "
            f"`trainstack plan --stack {stack.name}` shows the queues it gives")


def _never(stack: Stack, queues: Queues, job: Job, never: tuple[Never, ...]) -> Finding:
    """A request above all the queue may ever hold: it would wait for ever."""
    first = never[0]
    group, team = _flavor_group(stack, job, first.flavor), stack.teams.get(job.cluster_queue or "")
    kueue = ", ".join(f"{_n(n.request)} {n.resource} > {_n(n.maximum)}" for n in never)
    if group is None:
        return Finding(SECTION, job.subject, f"at most {_n(first.maximum)} {first.resource} on flavor {first.flavor}",
                       f"never admitted: it asks for more than its queue can ever hold (Kueue: {kueue})",
                       job.describe())
    most = min(math.floor(group.nodes(n.resource, n.maximum)) for n in never)
    asked = group.nodes(group.accelerator, job.requested().get(group.accelerator, Fraction(0)))
    actual = (f"never admitted: it asks for {group.words(asked)}, more than the {group.words(most)} team "
              f"{team.name if team else job.cluster_queue}'s queue can ever hold, its guarantee and all it may "
              f"borrow together (Kueue: {kueue}); Kueue admits a job whole, so it waits for ever")
    fix = (f"ask for at most {most} nodes: {job.resubmit(group.name, team.name if team else None, most)}; or "
           f"{_grow(stack, group)}")
    return Finding(SECTION, job.subject, _reach_words(group, queues, job.cluster_queue or "", first.flavor, team),
                   actual, fix)


def _unmatched(stack: Stack, job: Job, pending: Pending, read: Read) -> Finding:
    """No flavor Kueue tried takes the pods: a taint they do not tolerate, labels they do not select, a topology
    request the flavor cannot serve. Where it tried only flavors the pods do not select, it has not yet said why
    the one they do select will not take them."""
    selected = {f["metadata"]["name"] for f in read.flavors if job.selects(f)}
    said = "; ".join(f"flavor {u.flavor}: {u.why}" for u in pending.unmatched)
    expected = f"a flavor of {_queue_words(stack, job)} that its pods can run on"
    if not any(u.flavor in selected for u in pending.unmatched):
        return Finding(SECTION, job.subject, expected,
                       f"not admitted; Kueue's last attempt looked only at flavors its pods do not select ({said}) "
                       f"and has not said why {', '.join(sorted(selected)) or 'the flavor they select'} will not "
                       "take them", f"{job.describe()} (its events hold each attempt's reason)")
    team = stack.teams.get(job.cluster_queue or "")
    render = f"trainstack launch ... --team {team.name}" if team else "trainstack launch"
    return Finding(SECTION, job.subject, expected, f"no flavor takes its pods: {said}",
                   f"give the pods the group's nodeSelector and tolerations, as {render} renders them; "
                   f"then {job.describe()}")
