"""What a change does to the things that run: clusters, node groups, file systems, HyperPod clusters.

Judged from what the change does (deleted, replaced, its instance groups shrunk) and from what
stands on the changed resource, not from a list of dangerous resource types:

- What stands on a resource is read from the head's dependency graph: every resource whose
  inputs (``propertyDependencies``) or ``dependsOn`` name it, followed to the end. A route table
  association ties a subnet to its route table, so what stands on the subnet stands on the table
  (and on the NAT gateway its routes lead to) too. Of those, the running things are named.
- A network resource replaced or deleted under a running cluster, file system or HyperPod
  cluster is a warning naming them; the VPC of a running cluster blocks like data loss (approved
  the same way, by URN): EKS keeps a cluster in the VPC it was created in (new cluster subnets
  must be in its VPC and zones, docs.aws.amazon.com/eks/latest/userguide/network_reqs.html), a
  file system and a HyperPod cluster cannot move either (their subnets are create-only:
  ``replacement`` in ``catalog/resource_types.py``), so a new VPC means new ones, empty.
- A subnet replaced by one whose range overlaps a subnet the VPC still has is refused by EC2
  ("the CIDR blocks of the subnets in a VPC cannot overlap": Amazon VPC User Guide, "Subnet CIDR
  blocks"; CreateSubnet fails with InvalidSubnet.Conflict), and Pulumi creates a replacement
  before it deletes the old one (docs: resource option ``deleteBeforeReplace``), so the old
  range is still there: ``pulumi up`` would stop half way. It blocks.
- A HyperPod instance group removed (a rename is a removal and an addition), shrunk or given
  another instance type loses instances and the jobs on them: SageMaker's UpdateCluster deletes
  the groups it is told to (``InstanceGroupsToDelete``, botocore sagemaker 2017-07-24
  service-2.json) and removes instances to meet a lower ``InstanceCount``.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any, Optional

from ..catalog import resource_types
from ..names import HYPERPOD_CLUSTER, ROUTE_TABLE_ASSOCIATION, SUBNET
from .diff import PlanDiff, ResourceChange


def running_noun(type_token: str) -> Optional[str]:
    """What a reviewer calls a resource that runs jobs or holds their data (its ``runs``), else None."""
    row = resource_types.find(type_token)
    return row.runs if row else None


def network_noun(type_token: str) -> Optional[str]:
    """What a reviewer calls a network resource, judged by what runs on it when replaced; None otherwise."""
    row = resource_types.find(type_token)
    return row.network if row else None


class Dependents:
    """Who stands on whom in one record: the reverse of its dependency graph, followed transitively."""

    def __init__(self, *records: dict[str, Any]):
        self.by_urn: dict[str, dict[str, Any]] = {}
        self._on: dict[str, set[str]] = {}
        for record in records:
            for resource in record["resources"]:
                self.by_urn.setdefault(resource["urn"], resource)
                for source in _sources(resource):
                    self._on.setdefault(source, set()).add(resource["urn"])
                if resource["type"] == ROUTE_TABLE_ASSOCIATION:
                    deps = resource.get("propertyDependencies") or {}
                    for table in deps.get("routeTableId") or []:
                        for subnet in deps.get("subnetId") or []:
                            self._on.setdefault(table, set()).add(subnet)

    def of(self, urn: str) -> set[str]:
        """Every URN that stands on ``urn``, directly or through others."""
        found: set[str] = set()
        pending = [urn]
        while pending:
            for dependent in self._on.get(pending.pop(), ()):
                if dependent not in found and dependent != urn:
                    found.add(dependent)
                    pending.append(dependent)
        return found

    def running_on(self, urn: str, exclude: Iterable[str] = ()) -> list[dict[str, Any]]:
        """The running things standing on ``urn`` (``running_noun``), by name."""
        skip = set(exclude)
        chosen = [self.by_urn[u] for u in self.of(urn) if u not in skip and running_noun(self.by_urn[u]["type"])]
        return sorted(chosen, key=lambda r: r["name"])


def _sources(resource: dict[str, Any]) -> set[str]:
    options = resource.get("options") or {}
    sources = {u for urns in (resource.get("propertyDependencies") or {}).values() for u in urns}
    return sources | set(options.get("dependsOn") or []) | set(resource.get("dependencies") or [])


def named(resources: list[dict[str, Any]]) -> str:
    """``dev-eks (EKS cluster), dev-eks-gpu (node group)``."""
    return ", ".join(f"{r['name']} ({running_noun(r['type'])})" for r in resources)


def running_before(diff: PlanDiff) -> set[str]:
    """URNs of resources the base has and the head keeps (not created by this change)."""
    created = {c.urn for c in diff.changes if c.action == "create"}
    return {r["urn"] for r in diff.base["resources"]} - created


# -- network ------------------------------------------------------------------------------
def network_replacements(diff: PlanDiff, graph: Dependents) -> list[tuple[ResourceChange, list[dict[str, Any]]]]:
    """Each network resource replaced or deleted, with the running things standing on it (those the
    base has and the head keeps: one deleted by the same change has its own finding), skipping the ones
    nothing running stands on."""
    running = running_before(diff) - {c.urn for c in diff.changes if c.action == "delete"}
    found = []
    for change in diff.changes:
        if network_noun(change.type) and change.action in ("replace", "delete"):
            standing = [r for r in graph.running_on(change.urn) if r["urn"] in running]
            if standing:
                found.append((change, standing))
    return found


def overlapping_subnets(diff: PlanDiff) -> list[tuple[ResourceChange, str, list[str]]]:
    """Subnets replaced, create before delete, into a range that overlaps a subnet still in the same VPC:
    (the change, its new range, the names and ranges it overlaps)."""
    found = []
    base_subnets = [r for r in diff.base["resources"] if r["type"] == SUBNET]
    for change in diff.changes:
        if change.type != SUBNET or change.action != "replace" or change.option("deleteBeforeReplace", "head"):
            continue
        if any(c.path == "vpcId" for c in change.inputs):
            continue  # into a new VPC: nothing of the old one is in the way
        new = _network((change.head or {}).get("inputs", {}).get("cidrBlock"))
        vpc = (change.base or {}).get("inputs", {}).get("vpcId")
        if new is None:
            continue
        clashes = [f"{r['name']} {r['inputs']['cidrBlock']}" for r in base_subnets
                   if (r.get("inputs") or {}).get("vpcId") == vpc
                   and (old := _network((r.get("inputs") or {}).get("cidrBlock"))) is not None and new.overlaps(old)]
        if clashes:
            found.append((change, str(new), clashes))
    return found


def _network(value: Any) -> Optional[ipaddress.IPv4Network]:
    try:
        return ipaddress.IPv4Network(str(value))
    except ValueError:
        return None


# -- HyperPod instance groups ---------------------------------------------------------------
def instance_group_losses(change: ResourceChange) -> list[str]:
    """What an in-place update of a HyperPod cluster takes from its instance groups, one sentence each."""
    if change.type != HYPERPOD_CLUSTER or change.action != "update":
        return []
    before = _groups(change.base)
    after = _groups(change.head)
    losses = []
    for name, group in before.items():
        count, kind = group.get("instanceCount", 0), group.get("instanceType")
        if not count:
            continue  # a group with no instance loses none: no job is said to be killed
        now = after.get(name)
        if now is None:
            added = sorted(set(after) - set(before))
            losses.append(f"instance group {name} ({count} x {kind}) is removed: its instances are deleted"
                          + (f" (a new group is not a rename: {', '.join(added)} starts empty)" if added else ""))
        elif now.get("instanceType") != kind:
            losses.append(f"instance group {name} changes from {kind} to {now.get('instanceType')}: every one of "
                          f"its {count} instances is a new instance")
        elif (now.get("instanceCount") or 0) < count:
            losses.append(f"instance group {name} shrinks from {count} to {now.get('instanceCount')} instances: "
                          f"{count - (now.get('instanceCount') or 0)} are removed")
    return losses


def _groups(record: Optional[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    groups = ((record or {}).get("inputs") or {}).get("instanceGroups") or []
    return {g["instanceGroupName"]: g for g in groups if isinstance(g, dict) and g.get("instanceGroupName")}
