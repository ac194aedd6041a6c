"""The stack's node and pod counts, for the control plane's recommended tier (estimate/control_plane.py says the rule
and the tiers' sources).

Nodes come from the configuration (every accelerated group at its maxSize, the system nodes at theirs); the
DaemonSets each node runs come from what the plan registers: the EKS add-ons that run one pod per node, and per
accelerated group its device plugin (or DRA driver) and, with EFA, the EFA plugin (or aws-dranet).
"""

from __future__ import annotations

from typing import Optional

from ..config import NodeGroupConfig, StackConfig
from ..estimate.control_plane import ControlPlaneSizing, recommend
from ..names import EKS_ADDON
from ..plan import Plan

PER_NODE_ADDONS = frozenset({"vpc-cni", "kube-proxy", "eks-pod-identity-agent", "eks-node-monitoring-agent"})
"""EKS add-ons that run as a DaemonSet, one pod on every node: vpc-cni (aws-node), kube-proxy, the Pod Identity
agent and the node monitoring agent (EKS User Guide: managing-vpc-cni, managing-kube-proxy, pod-id-agent-setup,
node-health; read 2026-11-28). CoreDNS is a Deployment and is not counted."""


def per_node_addons(plan: Plan) -> int:
    """How many of the per-node EKS add-ons the plan installs."""
    return len({r.inputs.get("addonName") for r in plan.resources
                if r.type == EKS_ADDON and r.inputs.get("addonName") in PER_NODE_ADDONS})


def group_daemons(group: NodeGroupConfig) -> int:
    """The DaemonSets trainstack adds on an accelerated group's nodes: its device plugin (NVIDIA or Neuron) or, on a
    DRA group, its DRA driver's kubelet plugin; and on an EFA group the EFA device plugin or aws-dranet
    (cluster/eks_cluster.py, _device_plugins and _dra_drivers)."""
    return 1 + (1 if group.efa_enabled else 0)


def control_plane_sizing(plan: Plan, config: Optional[StackConfig]) -> Optional[ControlPlaneSizing]:
    """The stack's control plane sizing; None where trainstack makes no EKS cluster, and None where there is nothing
    to say (no tier set and standard mode suffices), so the records of those stacks are unchanged."""
    if config is None or config.eks is None or (sizes := config.system_node_sizes) is None:
        return None
    addons = per_node_addons(plan)
    system = sizes.max_size
    launcher = 1  # the launchers run one pod per node (launch/placement.py: whole-node pods)
    pods = system * addons + sum(g.max_size * (launcher + addons + group_daemons(g)) for g in config.node_groups)
    sizing = ControlPlaneSizing(nodes=system + sum(g.max_size for g in config.node_groups), burst_pods=pods,
                                configured=config.eks.control_plane_tier, recommended=recommend(pods))
    if sizing.configured is None and sizing.recommended.name == "standard":
        return None
    return sizing
