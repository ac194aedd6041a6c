"""Karpenter's NodePools as node groups the scheduling models can judge.

A pool's nodes are the EC2NodeClass and NodePool a Karpenter group renders
(nodegroups/karpenter_pool.py): the one instance type its ``node.kubernetes.io/instance-type``
requirement allows, its zone, the template's labels and taints, the kubelet's maxPods from the
node class and the efa-only ``networkInterfaces`` it lays out (none on an elastic pool).
Karpenter launches a node only for pods that fit the instance type once its overhead is taken
off (aws/karpenter-provider-aws v1.14.1, ``pkg/providers/instancetype/types.go``, kube-reserved
by the same ranges nodeadm uses), so a pod is judged against the running node
(``cluster_autoscaler.running_node``); there is no template node at zero: Karpenter imagines none from ASG tags.
"""

from __future__ import annotations

from typing import Any

from .. import catalog
from ..catalog.efa_layout import EFA_INTERFACE_TYPES
from ..names import INSTANCE_TYPE_LABEL, KARPENTER_NODE_CLASS, KARPENTER_NODE_POOL, NODE_GROUP_LABEL, ZONE_LABEL
from ..policy.model import Stack
from .groups import ManagedGroup
from .scheduling import Taint


def _requirement(spec: dict[str, Any], key: str) -> str | None:
    values = [r.get("values") or [] for r in spec.get("requirements") or []
              if r.get("key") == key and r.get("operator") == "In"]
    return str(values[0][0]) if values and len(values[0]) == 1 else None


def pool_groups(stack: Stack) -> list[ManagedGroup]:
    """Each NodePool of one accelerated instance type, as a group (``min_size`` 0: pools start empty)."""
    classes = {str(r.props.get("metadata", {}).get("name")): r for r in stack.of_type(KARPENTER_NODE_CLASS)}
    groups = []
    for pool in stack.of_type(KARPENTER_NODE_POOL):
        template = pool.props.get("spec", {}).get("template", {})
        spec = template.get("spec", {})
        instance = catalog.find(_requirement(spec, INSTANCE_TYPE_LABEL) or "")
        if instance is None or instance.accelerator is None:
            continue
        labels = dict((template.get("metadata") or {}).get("labels") or {})
        node_class = classes.get(str((spec.get("nodeClassRef") or {}).get("name")))
        class_spec = node_class.props.get("spec", {}) if node_class else {}
        kubelet = class_spec.get("kubelet") or {}
        # EFA interfaces are the node class's efa-only networkInterfaces (nodegroups/karpenter_capacity.py).
        efa = sum(1 for i in class_spec.get("networkInterfaces") or [] if i.get("interfaceType") in EFA_INTERFACE_TYPES)
        groups.append(ManagedGroup(
            resource=pool, name=labels.get(NODE_GROUP_LABEL, pool.name), instance=instance, min_size=0, labels=labels,
            taints=[Taint(t["key"], t.get("value") or "", t["effect"]) for t in spec.get("taints") or []],
            asg_tags={}, zone=_requirement(spec, ZONE_LABEL),
            max_pods=kubelet.get("maxPods"), efa_interfaces=efa))
    return groups
