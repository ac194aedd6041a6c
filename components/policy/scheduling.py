"""Scheduling rules over the Kueue objects a stack creates: every queue can be given capacity,
and every topology a flavor names can be satisfied by the nodes of its group; and one
autoscaler per node group: no Karpenter NodePool makes nodes of a managed node group, which
the Cluster Autoscaler scales.

Kueue's objects are recorded as ``kubernetes:kueue.x-k8s.io/<version>:<Kind>`` custom resources
with ``metadata`` and ``spec`` (kubernetes-sigs/kueue v0.19.2, apis/kueue/v1beta2).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Optional

from ..catalog.network_topology import network_node_labels
from ..names import HOSTNAME_LABEL, KARPENTER_API_PREFIX, KUEUE_API_PREFIX, NODE_GROUP, NODE_GROUP_LABEL
from .model import Resource, Rule, Stack, Violation


def _kueue(stack: Stack, kind: str) -> dict[str, Resource]:
    return {str(r.props.get("metadata", {}).get("name")): r for r in stack.resources
            if r.type.startswith(KUEUE_API_PREFIX) and r.type.endswith(f":{kind}")}


def _quota(resource: Resource) -> tuple[int, bool]:
    """(nominal quota summed over every flavor and resource, whether any of it may be borrowed beyond)."""
    total, may_borrow = 0, False
    for group in resource.props.get("spec", {}).get("resourceGroups") or []:
        for flavor in group.get("flavors") or []:
            for entry in flavor.get("resources") or []:
                total += _quantity(entry.get("nominalQuota"))
                may_borrow = may_borrow or _quantity(entry.get("borrowingLimit"), default=1) > 0
    return total, may_borrow


def _quantity(value: Any, default: int = 0) -> int:
    try:
        return int(str(value)) if value is not None else default
    except ValueError:
        return default  # a quantity with a unit (memory): counted as present, not summed


def queues_have_quota(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    cluster_queues, cohorts = _kueue(stack, "ClusterQueue"), _kueue(stack, "Cohort")
    for name, local in _kueue(stack, "LocalQueue").items():
        target = str(local.props.get("spec", {}).get("clusterQueue"))
        queue = cluster_queues.get(target)
        if queue is None:
            yield Violation(local.urn, f"LocalQueue {name} feeds ClusterQueue {target}, which the stack does not "
                                       "create: its jobs would never be admitted. Create the ClusterQueue or point "
                                       "the LocalQueue at one that exists.")
            continue
        own, may_borrow = _quota(queue)
        cohort = queue.props.get("spec", {}).get("cohortName")
        lenders = [r for r in [cohorts.get(str(cohort)), *(q for n, q in cluster_queues.items()
                                                            if n != target and q.props.get("spec", {}).get(
                                                                "cohortName") == cohort)] if r is not None]
        shared = sum(_quota(r)[0] for r in lenders) if cohort and may_borrow else 0
        if own == 0 and shared == 0:
            yield Violation(local.urn, f"LocalQueue {name} feeds ClusterQueue {target}, which has no quota of its "
                                       "own and nothing to borrow: every job in it would wait for ever. Give the "
                                       "team guaranteed nodes, or let it borrow in a cohort that has capacity.")


def topology_satisfiable(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    topologies = _kueue(stack, "Topology")
    groups = {str((g.props.get("labels") or {}).get(NODE_GROUP_LABEL)): g for g in stack.of_type(NODE_GROUP)}
    for name, flavor in _kueue(stack, "ResourceFlavor").items():
        spec = flavor.props.get("spec", {})
        topology_name = spec.get("topologyName")
        if not topology_name:
            continue
        topology = topologies.get(str(topology_name))
        if topology is None:
            yield Violation(flavor.urn, f"ResourceFlavor {name} names Topology {topology_name}, which the stack does "
                                        "not create. Create it, or remove topologyName.")
            continue
        group = groups.get(str((spec.get("nodeLabels") or {}).get(NODE_GROUP_LABEL)))
        instance_type = _instance_type(group)
        if instance_type is None:
            continue
        levels = [str(level.get("nodeLabel")) for level in topology.props.get("spec", {}).get("levels") or []]
        missing = [label for label in levels if label != HOSTNAME_LABEL
                   and label not in network_node_labels(instance_type)]
        if missing:
            yield Violation(flavor.urn, f"ResourceFlavor {name} places {instance_type} nodes by Topology "
                                        f"{topology_name}, but EKS labels {instance_type} nodes with no "
                                        f"{', '.join(missing)} (EC2 instance topology): jobs asking for it would "
                                        "never fit. Remove topologyName from the flavor (set "
                                        "scheduling.topologyAware: false) or use a type EC2 describes.")


def one_autoscaler_per_group(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    groups = {str((g.props.get("labels") or {}).get(NODE_GROUP_LABEL)): g for g in stack.of_type(NODE_GROUP)}
    for pool in stack.resources:
        if not pool.type.startswith(KARPENTER_API_PREFIX) or not pool.type.endswith(":NodePool"):
            continue
        template = pool.props.get("spec", {}).get("template", {})
        claimed = {str(v) for v in [(template.get("metadata", {}).get("labels") or {}).get(NODE_GROUP_LABEL)] if v}
        for requirement in template.get("spec", {}).get("requirements") or []:
            if requirement.get("key") == NODE_GROUP_LABEL and requirement.get("operator") == "In":
                claimed |= {str(v) for v in requirement.get("values") or []}
        for name in sorted(claimed & set(groups)):
            yield Violation(pool.urn, f"Karpenter NodePool {pool.props.get('metadata', {}).get('name', pool.name)} "
                                      f"makes nodes of node group '{name}' ({NODE_GROUP_LABEL}={name}), which the "
                                      "Cluster Autoscaler already scales: both would add nodes for the same pending "
                                      "pods. Give the pool its own label, or remove the group.")


def _instance_type(group: Optional[Resource]) -> Optional[str]:
    types = (group.props.get("instanceTypes") or []) if group is not None else []
    return str(types[0]) if len(types) == 1 else None


RULES = [
    Rule("kueue-queues-have-quota", "Every Kueue LocalQueue feeds a ClusterQueue that has quota of its own or may "
         "borrow from a cohort that has some.", "mandatory", queues_have_quota, area="training",
         source="Kueue v0.19.2 concepts (ClusterQueue nominalQuota, borrowingLimit, cohorts): a workload is "
         "admitted only within quota, so a queue with none admits nothing"),
    Rule("kueue-topology-satisfiable", "A ResourceFlavor's Topology uses only network labels EKS puts on its "
         "group's instance type.", "mandatory", topology_satisfiable, area="training",
         source="EC2 User Guide, Prerequisites for Amazon EC2 topology (instance types); EKS User Guide, "
         "ml-workload-topology (topology.k8s.aws/network-node-layer-N labels)"),
    Rule("one-autoscaler-per-group", "No Karpenter NodePool makes nodes of a managed node group the Cluster "
         "Autoscaler scales.", "mandatory", one_autoscaler_per_group, area="training",
         source="Karpenter v1 NodePool (spec.template labels and requirements become the node's labels); both "
         "autoscalers act on the same unschedulable pods (karpenter.sh, Migrating from Cluster Autoscaler, whose "
         "last step scales the Cluster Autoscaler to zero)"),
]
