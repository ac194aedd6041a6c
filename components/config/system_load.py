"""What runs on the system nodes at the stack's size, and the system group's sizes that follow from it (issue 64).

The accelerated groups' taints keep cluster services off them, so CoreDNS, the Cluster Autoscaler and the job
controllers run on the system group (``eks.systemNodes``). What the scheduler reserves for them there is their
requests, counted here at the sizes trainstack renders:

* CoreDNS: the replicas EKS's autoscaling runs for the stack's nodes (config/cluster_size.py), each requesting 100m
  CPU and 70Mi, the requests of the CoreDNS Deployment (kubernetes/kubernetes v1.36.3
  cluster/addons/dns/coredns/coredns.yaml.base; trainstack leaves the coredns add-on's resources at their default).
* The Cluster Autoscaler and the job controllers (Kueue, JobSet, Trainer, the training and MPI operators), as
  config/controller_resources.py renders them. All five job controllers are counted, on or not: the cluster
  (``GpuEksCluster``) is made from the eks block and the groups, before the operators block is read, and a
  controller turned on later finds its room.
* On every system node, its DaemonSets (``DAEMONSETS``).

Not counted: Karpenter's controller, the CSI drivers' controllers, the CloudWatch operator and the monitoring stack,
whose charts' requests do not grow with the stack; the node the group keeps spare at maxSize (below) is their room.

A node holds its allocatable (catalog/kubelet_reserved.py) less its DaemonSets, and at most maxPods pods
(config/pods.py). The group's sizes, where the stack file leaves them unset:

* minSize, and desiredSize: the nodes that hold what runs with every accelerated group at its minSize (CoreDNS's
  replicas follow the nodes that run), at least 2, today's default. A node lost at that size leaves pods pending
  until the Cluster Autoscaler adds one: it resizes the system group too, whose Auto Scaling group EKS tags for its
  auto-discovery ("Amazon EKS tags managed node group resources so that they are configured to use the Kubernetes
  Cluster Autoscaler", https://docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html).
* maxSize: one node more than holds what runs with every group at its maxSize, at least 4, today's default.

So every shipped stack but frontier-p5 keeps 2, 2 and 4, as a small stack on c5.2xlarge does. A maxSize the stack
file gives is kept; one that cannot hold what runs at maxSize is refused with the numbers (pods that can never be
placed: CoreDNS replicas the jobs' lookups wait on). A given minSize below the load is not: the autoscaler adds what
it lacks, up to maxSize.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import catalog
from ..catalog import kubelet_reserved
from .base import ConfigValueError
from .cluster_size import ClusterSize, coredns_replicas_at
from .controller_resources import controller_requests
from .errors import ConfigError, ConfigIssue, format_path

if TYPE_CHECKING:
    from .cluster import SystemNodesConfig
    from .nodegroups import NodeGroupConfig

COREDNS_CPU_M, COREDNS_MEMORY_MI = 100, 70
DEFAULT_MIN_SIZE, DEFAULT_MAX_SIZE = 2, 4
SPARE_AT_MAX = 1
MOST_SYSTEM_NODES = 450  # EKS's nodes per managed node group (config/node_pool.py): beyond it, no answer


@dataclass(frozen=True)
class Requests:
    """What the scheduler reserves for one workload on the system nodes, all its replicas together."""

    name: str
    pods: int
    cpu_m: int
    memory_mi: int

    def describe(self) -> str:
        replicas = f" ({self.pods} replicas)" if self.pods > 1 else ""
        return f"{self.name}{replicas} {self.cpu_m:,}m CPU and {self.memory_mi:,}Mi"


# On each system node, the DaemonSets' pods (EKS's aws-node, kube-proxy, Pod Identity and node monitoring agents;
# the CloudWatch agent and Fluent Bit with Container Insights; the EBS, FSx and Mountpoint for S3 CSI node drivers;
# Prometheus's node-exporter): 10 pods at most. Their requests where a source was read: aws-node 25m
# (aws/amazon-vpc-cni-k8s v1.23.0 charts/aws-vpc-cni/values.yaml), the CloudWatch agent 250m and 128Mi and Fluent
# Bit 50m and 25Mi (aws-observability/helm-charts charts/amazon-cloudwatch-observability/values.yaml @71a298ff,
# agent.resources and containerLogs.fluentBit.resources): 325m and 153Mi, rounded up to 500m and 512Mi for the rest,
# whose requests no source read here publishes. An estimate, as config/ip_budget.py's DaemonSet pods are.
DAEMONSETS = Requests("DaemonSets per node", pods=10, cpu_m=500, memory_mi=512)


@dataclass(frozen=True)
class SystemNode:
    """What one system node holds for the load, its DaemonSets' share taken out."""

    instance_type: str
    pods: int
    cpu_m: int
    memory_mi: int

    @classmethod
    def of(cls, system: SystemNodesConfig) -> SystemNode:
        instance = catalog.get(system.instance_type)
        cpu_m, memory_mi = kubelet_reserved.allocatable(instance, "size the system nodes")
        return cls(system.instance_type, system.pods_per_node.value - DAEMONSETS.pods, cpu_m - DAEMONSETS.cpu_m,
                   memory_mi - DAEMONSETS.memory_mi)

    def nodes_for(self, load: Sequence[Requests]) -> int:
        """The fewest of these nodes whose pods, CPU and memory together hold ``load``."""
        wanted = [(sum(r.pods for r in load), self.pods), (sum(r.cpu_m for r in load), self.cpu_m),
                  (sum(r.memory_mi for r in load), self.memory_mi)]
        if any(room <= 0 for _, room in wanted):
            return MOST_SYSTEM_NODES + 1
        return max(1, *(math.ceil(need / room) for need, room in wanted))

    def describe(self) -> str:
        return (f"{self.instance_type} ({self.cpu_m:,}m CPU, {self.memory_mi:,}Mi and {self.pods} pods each once "
                f"its DaemonSets' {DAEMONSETS.cpu_m}m, {DAEMONSETS.memory_mi}Mi and {DAEMONSETS.pods} pods are out)")


def system_load(size: ClusterSize, running_nodes: int) -> tuple[Requests, ...]:
    """What runs on the system nodes while the cluster has ``running_nodes`` nodes, its controllers sized for
    ``size`` (their requests do not follow the nodes that run)."""
    replicas = coredns_replicas_at(running_nodes)
    controllers = [Requests(name, 1, cpu, memory) for name, (cpu, memory) in controller_requests(size).items()]
    return (Requests("CoreDNS", replicas, replicas * COREDNS_CPU_M, replicas * COREDNS_MEMORY_MI), *controllers)


@dataclass(frozen=True)
class SystemNodeSizes:
    """The system group's sizes, and what they were judged against."""

    min_size: int
    desired_size: int
    max_size: int
    load: tuple[Requests, ...]
    """What runs on the system nodes with every group at its maxSize."""
    holding: int
    """The nodes that hold ``load``."""
    node: SystemNode

    def describe(self) -> str:
        total = Requests("in all", sum(r.pods for r in self.load), sum(r.cpu_m for r in self.load),
                         sum(r.memory_mi for r in self.load))
        holding = (f"{self.holding}" if self.holding <= MOST_SYSTEM_NODES else
                   f"no number up to EKS's {MOST_SYSTEM_NODES} nodes per managed node group of")
        return (f"{'; '.join(r.describe() for r in self.load)}: {total.pods} pods, {total.cpu_m:,}m CPU and "
                f"{total.memory_mi:,}Mi in all, which {holding} {self.node.describe()} hold")


def system_node_sizes(system: SystemNodesConfig, groups: Sequence[NodeGroupConfig]) -> SystemNodeSizes:
    """The system group's min, desired and max sizes for a stack of ``groups``: as given, else as what runs there
    asks (module docstring). Judges nothing: ``check_system_nodes`` refuses a given size that cannot hold it."""
    node = SystemNode.of(system)

    def at_max(nodes: int) -> tuple[int, tuple[Requests, ...]]:
        size = ClusterSize.at(nodes, system, groups)
        load = system_load(size, size.nodes)
        return node.nodes_for(load), load

    given = [n for n in (system.min_size, system.desired_size) if n is not None]
    maximum = system.max_size
    if maximum is None:
        holds = next((n for n in range(DEFAULT_MAX_SIZE, MOST_SYSTEM_NODES + 1)
                      if at_max(n)[0] + SPARE_AT_MAX <= n), MOST_SYSTEM_NODES)
        maximum = max([holds, *given])
    holding, load = at_max(maximum)
    minimum = system.min_size
    if minimum is None:
        controllers = ClusterSize.at(maximum, system, groups)
        running = sum(g.min_size for g in groups)
        least = next((n for n in range(DEFAULT_MIN_SIZE, maximum + 1)
                      if node.nodes_for(system_load(controllers, n + running)) <= n), maximum)
        minimum = min([least, maximum, *given])
    desired = system.desired_size if system.desired_size is not None else minimum
    return SystemNodeSizes(minimum, desired, maximum, load, holding, node)


def cluster_size_of(system: SystemNodesConfig, groups: Sequence[NodeGroupConfig]) -> ClusterSize:
    """The stack's size with the system group at its maxSize: as given, else as what runs there sizes it."""
    return ClusterSize.at(system_node_sizes(system, groups).max_size, system, groups)


def check_system_nodes(system: SystemNodesConfig, groups: Sequence[NodeGroupConfig]) -> SystemNodeSizes:
    """The sizes, once a given maxSize is known to hold what runs at maxSize and min <= desired <= max; else a
    ConfigValueError whose path is relative to the system nodes' block."""
    sizes = system_node_sizes(system, groups)
    if sizes.holding > MOST_SYSTEM_NODES:
        raise ConfigValueError(
            f"no system group of {system.instance_type} holds what runs on it at the stack's size: "
            f"{sizes.describe()}.", fix="use a larger instanceType (more pods, CPU and memory per node), or a "
            f"maxPods above the DaemonSets' {DAEMONSETS.pods} pods.",
            path=("instanceType",), value=system.instance_type)
    if system.max_size is not None and sizes.holding > sizes.max_size:
        raise ConfigValueError(
            f"{sizes.max_size} system nodes cannot hold what runs on them at the stack's size "
            f"({ClusterSize.at(sizes.max_size, system, groups).describe()}): {sizes.describe()}.",
            fix=f"set maxSize to at least {sizes.holding} ({sizes.holding + SPARE_AT_MAX} keeps a node spare, as the "
                "default does), remove it for the default, or use a larger instanceType.",
            path=("maxSize",), value=system.max_size)
    if not sizes.min_size <= sizes.desired_size <= sizes.max_size:
        raise ConfigValueError(
            f"the system group's minSize / desiredSize / maxSize come to {sizes.min_size} / {sizes.desired_size} / "
            f"{sizes.max_size} (unset ones as the stack's size sets them): EKS needs min <= desired <= max.",
            fix="give sizes in that order, or leave them unset for the defaults.",
            path=("desiredSize" if system.desired_size is not None else "minSize",),
            value=system.desired_size if system.desired_size is not None else system.min_size)
    return sizes


def check_component_system_nodes(prefix: str, system: SystemNodesConfig,
                                 groups: Sequence[NodeGroupConfig]) -> SystemNodeSizes:
    """``check_system_nodes`` for a component used on its own (``GpuEksCluster``): a ConfigError whose path starts
    with ``prefix`` and ``settings.systemNodes``."""
    try:
        return check_system_nodes(system, groups)
    except ConfigValueError as error:
        raise ConfigError([ConfigIssue(format_path(("settings", "systemNodes", *error.path), prefix), error.value,
                                       error.message, error.fix)], f"{prefix} arguments") from None
