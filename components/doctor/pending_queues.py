"""The stack's queues as doctor reasons about them: what the plan says each team was given (its guarantee on each
node group, whether it borrows, the group's sizes and what one node counts for in Kueue's quota), and what the
live ClusterQueues and Cohorts hold now (each queue's nominal quota, borrowing limit and usage per flavor).

On a trainstack stack a team is a ClusterQueue (and a LocalQueue of the same name in the team's namespace), a node
group is a ResourceFlavor of the group's name, and one node counts as its accelerators and EFA interfaces
(addons/kueue.py ``group_quota``); the teams of one cohort share what no team is guaranteed. Kueue's fields:
kubernetes-sigs/kueue v0.19.2 ``apis/kueue/v1beta2/clusterqueue_types.go`` (``nominalQuota``, ``borrowingLimit``;
``status.flavorsReservation``: per flavor and resource the ``total`` reserved and the part ``borrowed``) and
``cohort_types.go`` (a Cohort's own ``resourceGroups``, the capacity it holds for its members)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..catalog import EFA_RESOURCE
from ..kube.quantity import quantity
from ..outputs import parse_outputs
from ..plan import Plan
from .groups import planned_groups


@dataclass(frozen=True)
class Team:
    name: str
    namespace: str
    cluster_queue: str
    cohort: str
    borrowing: bool
    guaranteed: dict[str, int]
    """Nodes of each group guaranteed to the team, as the plan says."""


@dataclass(frozen=True)
class Group:
    """A node group as a flavor: what one of its nodes counts for, and its sizes in the plan."""

    name: str
    per_node: dict[str, int]
    """Kueue's quota resources one node holds: its accelerators, and its EFA interfaces on EFA groups."""
    kind: str
    desired: int
    maximum: int
    reserved: bool
    """Its capacity is a reservation or a Capacity Block: maxSize is what was bought."""

    @property
    def accelerator(self) -> str:
        return next(iter(self.per_node))

    def nodes(self, resource: str, amount: Fraction) -> Fraction:
        return amount / self.per_node[resource] if self.per_node.get(resource) else Fraction(0)

    def words(self, nodes: Fraction | int) -> str:
        """``2 nodes (16 nvidia.com/gpu, 64 vpc.amazonaws.com/efa)``."""
        held = ", ".join(f"{number(nodes * n)} {r}" for r, n in self.per_node.items())
        return f"{number(nodes)} node{'' if nodes == 1 else 's'} ({held})"


@dataclass(frozen=True)
class Stack:
    """What the plan record says of the stack's queues and groups."""

    name: str
    stack_file: str
    teams: dict[str, Team]
    """By ClusterQueue name."""
    groups: dict[str, Group]
    """By flavor name (the group's name)."""
    pods_ready_minutes: int | None


def stack_of(plan: Plan) -> Stack:
    outputs = parse_outputs(plan.outputs)
    scheduling = outputs.scheduling
    teams = {} if scheduling is None else {
        queue.cluster_queue: Team(name, queue.namespace, queue.cluster_queue, queue.cohort, queue.borrowing,
                                  {group: quota.guaranteed_nodes for group, quota in queue.quotas.items()})
        for name, queue in scheduling.queues.items()}
    groups = {}
    for planned in planned_groups(plan):
        target = outputs.accelerated_groups.get(planned.name)
        if target is None:
            continue
        per_node = {target.accelerator_resource: target.accelerators_per_node}
        if target.efa_interfaces_per_node:
            per_node[EFA_RESOURCE] = target.efa_interfaces_per_node
        groups[planned.name] = Group(planned.name, per_node, planned.kind, planned.desired, planned.maximum,
                                     target.capacity_type != "none")
    return Stack(plan.stack, plan.stack_file or f"the stack file of {plan.stack}", teams, groups,
                 scheduling.pods_ready_timeout_minutes if scheduling is not None else None)


@dataclass(frozen=True)
class Use:
    """One ClusterQueue on one flavor, per resource: nominal quota, borrowing limit (None: no limit), reserved now
    and the part of that borrowed."""

    queue: str
    cohort: str | None
    nominal: dict[str, Fraction] = field(default_factory=dict)
    borrowing_limit: dict[str, Fraction | None] = field(default_factory=dict)
    reserved: dict[str, Fraction] = field(default_factory=dict)
    borrowed: dict[str, Fraction] = field(default_factory=dict)


class Queues:
    """The live ClusterQueues and Cohorts: who holds what of each flavor, and what a queue could use now."""

    def __init__(self, cluster_queues: Iterable[dict[str, Any]], cohorts: Iterable[dict[str, Any]]):
        self._uses: dict[tuple[str, str], Use] = {}
        self._cohort_own: dict[tuple[str, str], dict[str, Fraction]] = {}
        for cq in cluster_queues:
            for flavor, nominal, limits in _flavor_quotas(cq.get("spec") or {}):
                use = Use(cq["metadata"]["name"], (cq.get("spec") or {}).get("cohortName"), nominal, limits)
                self._uses[(use.queue, flavor)] = use
            for usage in (cq.get("status") or {}).get("flavorsReservation") or []:
                reserving = self._uses.get((cq["metadata"]["name"], usage["name"]))
                if reserving is None:
                    continue
                for resource in usage.get("resources") or []:
                    reserving.reserved[resource["name"]] = quantity(resource.get("total") or 0)
                    reserving.borrowed[resource["name"]] = quantity(resource.get("borrowed") or 0)
        for cohort in cohorts:
            for flavor, nominal, _ in _flavor_quotas(cohort.get("spec") or {}):
                self._cohort_own[(cohort["metadata"]["name"], flavor)] = nominal

    def use(self, queue: str, flavor: str) -> Use | None:
        return self._uses.get((queue, flavor))

    def members(self, cohort: str, flavor: str) -> list[Use]:
        return [use for (_, f), use in sorted(self._uses.items()) if f == flavor and use.cohort == cohort]

    def capacity(self, cohort: str, flavor: str, resource: str) -> Fraction:
        """All the cohort's members are guaranteed of ``resource`` on ``flavor``, and what the cohort holds itself."""
        own = self._cohort_own.get((cohort, flavor), {}).get(resource, Fraction(0))
        return own + sum((u.nominal.get(resource, Fraction(0)) for u in self.members(cohort, flavor)), Fraction(0))

    def free_to(self, queue: str, flavor: str, resource: str) -> Fraction:
        """What ``queue`` could be given of ``resource`` on ``flavor`` now: its unused nominal quota and, borrowing,
        what its cohort has unused, up to its borrowing limit (a flat cohort, as trainstack makes them)."""
        use = self.use(queue, flavor)
        if use is None:
            return Fraction(0)
        own_left = use.nominal.get(resource, Fraction(0)) - use.reserved.get(resource, Fraction(0))
        if use.cohort is None:
            return max(Fraction(0), own_left)
        members = self.members(use.cohort, flavor)
        unused = self.capacity(use.cohort, flavor, resource) - sum(
            (u.reserved.get(resource, Fraction(0)) for u in members), Fraction(0))
        limit = use.borrowing_limit.get(resource)
        reach = unused if limit is None else min(unused, own_left + limit)
        return max(Fraction(0), reach)

    def reach(self, queue: str, flavor: str, resource: str) -> Fraction:
        """The most ``queue`` could ever hold of ``resource`` on ``flavor``: its nominal quota and all it may borrow."""
        use = self.use(queue, flavor)
        if use is None:
            return Fraction(0)
        nominal = use.nominal.get(resource, Fraction(0))
        if use.cohort is None:
            return nominal
        limit = use.borrowing_limit.get(resource)
        cohort = self.capacity(use.cohort, flavor, resource)
        return cohort if limit is None else min(cohort, nominal + limit)


def _flavor_quotas(spec: dict[str, Any]) -> list[tuple[str, dict[str, Fraction], dict[str, Fraction | None]]]:
    found = []
    for group in spec.get("resourceGroups") or []:
        for flavor in group.get("flavors") or []:
            nominal = {r["name"]: quantity(r.get("nominalQuota", 0)) for r in flavor.get("resources") or []}
            limits = {r["name"]: quantity(r["borrowingLimit"]) if r.get("borrowingLimit") is not None else None
                      for r in flavor.get("resources") or []}
            found.append((flavor["name"], nominal, limits))
    return found


def pods_that_fit(free: dict[str, Fraction], per_pod: dict[str, Fraction]) -> int:
    """How many pods of ``per_pod`` the ``free`` amounts hold (only the resources the pods ask for)."""
    asked = [(free.get(r, Fraction(0)), amount) for r, amount in per_pod.items() if amount > 0]
    return min((math.floor(have / amount) for have, amount in asked), default=0)


def number(value: Fraction | int) -> str:
    """A count as a person writes it: ``4``, ``2.5``."""
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"
