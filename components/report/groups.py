"""Which component a recorded resource belongs to: the trainstack component it was built under.

The report reads a plan as a reviewer reads the architecture: network, control plane, each node
group, storage, add-ons, HyperPod, and what sits directly under the stack. Every drawn resource
belongs to exactly one :class:`Component`, the nearest trainstack component above it, so the
overview's counts, costs and times add up to the page's totals.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..catalog import resource_types
from ..names import LAUNCH_TEMPLATE, NODE_GROUP
from ..plan import Plan, ResourceRecord

# Nearest component ancestor wins, so a node group's launch template is "node groups", not "control plane".
ORDER = ("network", "control plane", "node groups", "storage", "add-ons", "HyperPod", "stack")


@dataclass
class Component:
    """One box of the overview: a trainstack component and the drawn resources built under it."""
    key: str
    """Unique on the page: the component's URN, or a node group's URN for a group the cluster builds."""
    part: str
    """Which of ``ORDER`` it is."""
    name: str
    resources: list[ResourceRecord] = field(default_factory=list)

    @property
    def title(self) -> str:
        """``node group fsdp-p5-eks-p5``: what it is, then its name."""
        kind = "node group" if self.part == "node groups" else self.part
        return kind if self.part == "stack" else f"{kind} {self.name}"


def _part(type_token: str) -> str:
    """A component's part of the page (its ``report_part``); "" for any other resource."""
    row = resource_types.find(type_token)
    return row.report_part or "" if row else ""


def part_of(resource: ResourceRecord, by_urn: dict[str, ResourceRecord]) -> str:
    """The part a resource is drawn in; resources directly under the stack (the ECR repository, the
    provider) are "stack"."""
    owner = _owner(resource, by_urn)
    return "stack" if owner is None else _part(owner.type)


def components(plan: Plan) -> list[Component]:
    """The page's components in ``ORDER``, then in record order, each with its drawn resources.

    A node group the cluster component builds itself (the system group) is a node group of its
    own, with the launch template it uses: a reader looking for where the nodes and the money are
    finds every group as one box, and the cost by component counts its instances as node groups."""
    by_urn = {r.urn: r for r in plan.resources}
    drawn = plan.cloud_resources
    own_groups = {r.urn: r for r in drawn if r.type == NODE_GROUP and part_of(r, by_urn) != "node groups"}
    templates = {dependency: group for group in own_groups.values() for dependency in group.dependencies
                 if dependency in by_urn and by_urn[dependency].type == LAUNCH_TEMPLATE
                 and part_of(by_urn[dependency], by_urn) != "node groups"}
    found: dict[str, Component] = {}
    for resource in drawn:
        group = own_groups.get(resource.urn) or templates.get(resource.urn)
        owner = _owner(resource, by_urn)
        if group is not None:
            key, part, name = group.urn, "node groups", group.name
        elif owner is None:
            key, part, name = "stack", "stack", plan.stack
        else:
            key, part, name = owner.urn, _part(owner.type), owner.name
        found.setdefault(key, Component(key, part, name)).resources.append(resource)
    return sorted(found.values(), key=lambda c: ORDER.index(c.part))  # stable: record order within a part


def _owner(resource: ResourceRecord, by_urn: dict[str, ResourceRecord]) -> ResourceRecord | None:
    parent = resource.parent
    while parent is not None and parent in by_urn:
        ancestor = by_urn[parent]
        if _part(ancestor.type):
            return ancestor
        parent = ancestor.parent
    return None





def short_type(type_token: str) -> str:
    """``aws:eks/nodeGroup:NodeGroup`` -> ``eks NodeGroup``: enough to read on a small box."""
    package, _, rest = type_token.partition(":")
    module, _, kind = rest.partition(":")
    return f"{module.split('/')[0] if module != 'index' else package} {kind}"


def marks(resource: ResourceRecord, critical: set[str], changed: dict[str, str]) -> list[str]:
    """What the graph and the resource table say of a resource: protected, stateful, on the
    critical path, and its diff action."""
    stateful = resource_types.loses(resource.type) is not None
    return [mark for mark, on in (("protected", resource.options.protect), ("stateful", stateful),
                                  ("critical path", resource.urn in critical),
                                  (changed.get(resource.urn, ""), resource.urn in changed)) if on]
