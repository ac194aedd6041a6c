"""The stack's size, and the add-on settings that must grow with it (issue 55).

A stack's size is what runs when every group is at ``maxSize``: the nodes (system nodes and every accelerated
group) and their pods, counted as the IP budget expects them (config/ip_budget.py): on an accelerated node its
DaemonSet pods and one worker per accelerator, on a system node as many as its kubelet admits (``maxPods``).
The kubelet's ``maxPods`` is no measure on the accelerated nodes: whole-node jobs leave it unused, and a p4de's
250 would make 64 nodes look like a cluster of 16,000 pods.

A stack is *large* beyond 300 nodes or 5,000 pods: the EKS Best Practices Guide, Scalability ("EKS can scale
to large sizes, but you will need to plan how you are going to scale a cluster beyond 300 nodes or 5000 pods",
https://docs.aws.amazon.com/eks/latest/best-practices/scalability.html, read 2026-11-27). Below that every
add-on keeps the settings it had before this module (the records of the shipped stacks are unchanged).

What grows, each with its source beside its rule:

* CoreDNS: EKS's managed autoscaling of the coredns add-on, bounded by the node term of AWS's own formula
  (``coredns_configuration``).
* The VPC CNI: on a large stack ipamd's floor covers what the 16/8 targets were sized to hold, so a node's
  target never moves and ipamd stops calling EC2 after the node starts (``vpc_cni_for``; ADR 0004).
* The controllers' resources (Kueue, JobSet, Trainer, the training and MPI operators, the Cluster Autoscaler):
  config/controller_resources.py.
* The system group's sizes, which hold all of the above: config/system_load.py.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from .vpc_cni import DEFAULT_MINIMUM_IP_TARGET, DEFAULT_WARM_IP_TARGET, VpcCniConfig

if TYPE_CHECKING:
    from .cluster import SystemNodesConfig
    from .nodegroups import NodeGroupConfig

# EKS Best Practices Guide, Scalability (module docstring): where a cluster needs planning.
LARGE_ABOVE_NODES = 300
LARGE_ABOVE_PODS = 5000

# Pods with a pod IP that this stack's DaemonSets put on every accelerated node
# (device plugins, DCGM exporter, CloudWatch agent and Fluent Bit, CSI node
# drivers); an estimate, since host-network pods take none and add-ons change.
# The IP budget (config/ip_budget.py) counts the same pods.
DAEMONSET_PODS_WITH_IP = 6


@dataclass(frozen=True)
class ClusterSize:
    """The most nodes and pods the stack's groups can hold."""

    nodes: int
    """System nodes' maxSize plus every accelerated group's maxSize."""
    pods: int
    """The pods those nodes run (module docstring)."""

    @classmethod
    def at(cls, system_nodes: int, system: SystemNodesConfig, groups: Sequence[NodeGroupConfig]) -> ClusterSize:
        """The size with ``system_nodes`` system nodes and every accelerated group at its maxSize. With the system
        group at its maxSize (as given, else as what runs there sizes it): ``system_load.cluster_size_of``."""
        nodes = system_nodes + sum(g.max_size for g in groups)
        pods = system_nodes * system.pods_per_node.value + sum(
            g.max_size * (DAEMONSET_PODS_WITH_IP + g.accelerator.count) for g in groups)
        return cls(nodes, pods)

    @property
    def large(self) -> bool:
        return self.nodes > LARGE_ABOVE_NODES or self.pods > LARGE_ABOVE_PODS

    def describe(self) -> str:
        return f"{self.nodes:,} nodes, {self.pods:,} pods at maxSize"


# --- CoreDNS ---------------------------------------------------------------------------------------------------
# Amazon EKS User Guide, "Scale CoreDNS Pods for high DNS traffic"
# (https://docs.aws.amazon.com/eks/latest/userguide/coredns-autoscaling.html, read 2026-11-27): the add-on deploys
# two replicas whatever the node count; with ``autoScaling.enabled`` a control-plane component sets the replicas
# to max(nodes / 16, CPU cores / 256) within ``minReplicas`` and ``maxReplicas`` (the add-on's configuration
# values; the page's example is 2 and 10). Decided: autoscaling, not ``replicaCount``, because the accelerated
# groups idle at zero and a fixed count would hold the whole stack's replicas on the system nodes all the time.
# The bound is the node term alone: the cores term counts every vCPU of a training node (192 on a p5, whose one
# worker pod makes few lookups), which would ask for 1,536 replicas at 2,048 p5s, more pods than the four
# system nodes admit.
COREDNS_DEFAULT_REPLICAS = 2
COREDNS_NODES_PER_REPLICA = 16


def coredns_replicas(size: ClusterSize) -> int:
    """The most CoreDNS replicas the stack's nodes call for: the node term of EKS's formula, at least two."""
    return coredns_replicas_at(size.nodes)


def coredns_replicas_at(nodes: int) -> int:
    """The CoreDNS replicas EKS's autoscaling runs while the cluster has ``nodes`` nodes (its node term)."""
    return max(COREDNS_DEFAULT_REPLICAS, math.ceil(nodes / COREDNS_NODES_PER_REPLICA))


def coredns_configuration(size: ClusterSize) -> Optional[str]:
    """The coredns add-on's ``configurationValues``; None (the add-on's default two replicas) while the node
    term of EKS's formula asks for no more than two."""
    replicas = coredns_replicas(size)
    if replicas <= COREDNS_DEFAULT_REPLICAS:
        return None
    return json.dumps({"autoScaling": {"enabled": True, "minReplicas": COREDNS_DEFAULT_REPLICAS,
                                       "maxReplicas": replicas}}, sort_keys=True)


# --- VPC CNI ---------------------------------------------------------------------------------------------------
# amazon-vpc-cni-k8s README at v1.23.0 (b5218838, read 2026-11-27), ``WARM_IP_TARGET``: "Avoid this setting for
# large clusters, or if the cluster has high pod churn. Setting it will cause additional calls to the EC2 API and
# that might cause throttling of the requests. It is strongly suggested to set MINIMUM_IP_TARGET when using
# WARM_IP_TARGET"; ``MINIMUM_IP_TARGET``: it "is for pre-scaling, WARM_IP_TARGET is for dynamic scaling", its
# example sets the floor to the expected pods and WARM_IP_TARGET to 2, and this "reduces the number of calls
# necessary to allocate or deallocate private IPs, which may be throttled"; WARM_IP_TARGET should stay above 0
# when MINIMUM_IP_TARGET is set. The EC2 API's throttle is per account and region, so the calls of every node
# add up: a 2,048-node job restarting replaces a worker on every node at once.
# Decided: on a large stack the floor is what 16/8 was sized to hold (ADR 0004: 16 for a node's pods, 8 for a
# restart's replaced workers while the old addresses cool down), held from the start, and the warm target is the
# README's 2. While a node runs at most 22 pods its target stays 24 and ipamd makes no EC2 call after the node's
# first allocation. A group's own targets always win.
LARGE_MINIMUM_IP_TARGET = DEFAULT_MINIMUM_IP_TARGET + DEFAULT_WARM_IP_TARGET
LARGE_WARM_IP_TARGET = 2


def vpc_cni_for(cni: VpcCniConfig, size: ClusterSize) -> VpcCniConfig:
    """The VPC CNI settings ipamd runs on a stack of ``size``: as configured, with the large-stack targets in
    place of the defaults the configuration leaves unset (the ENI-target mode is left as it is)."""
    if not size.large or cni.mode == "eniTarget":
        return cni
    update: dict[str, int] = {}
    if cni.minimum_ip_target is None:
        update["minimum_ip_target"] = LARGE_MINIMUM_IP_TARGET
    if cni.warm_ip_target is None:
        update["warm_ip_target"] = LARGE_WARM_IP_TARGET
    return cni.model_copy(update=update)
