"""Kueue's objects for a stack's scheduling config: what makes the queue real.

    ResourceFlavor per accelerated group      its node labels and taints (and its Topology)
    Topology per EC2 network depth            over the topology.k8s.aws/network-node-layer-N labels
    Cohort per cohort                         the groups' capacity not guaranteed to a team
    ClusterQueue per team                     its guaranteed nodes; borrows from the cohort
    LocalQueue per team                       in the team's namespace: what jobs name
    WorkloadPriorityClass per priority

Quotas are counted in the resources every trainstack job claims per node: the accelerators
and, on EFA groups, every EFA interface (launch/placement.py requests whole nodes), so a
quota of N nodes is N times each. The guarantees plus the cohort's share are exactly the
nodes the group owns (``NodeGroupConfig.owned_nodes``).

A DRA group's flavor has no Topology. Kueue's topology-aware scheduling (TAS) fits pods by the requests of their
pod spec against each node's allocatable (``pkg/scheduler/flavorassigner/tas_flavorassigner.go`` at v0.19.2,
``TASPodSetRequests`` from ``resources.NewRequestsFromPodSpec``), and a DRA pod's devices are not among those
requests: they come through its claims, which TAS never reads, so an assignment may bind a pod to a node whose
devices are taken or not yet published, where it pends. Kueue lists TAS with DRA as unsupported at the pinned
version (``site/content/en/docs/concepts/dynamic_resource_allocation.md`` at v0.19.2, Limitations;
``keps/2941-DRA/README.md`` Non-Goals; the KEP's GA criteria plan it). It does support counting the claimed
devices against the queues' quotas (``device_class_mappings``), so a DRA group is queued by quota alone, as a
group whose type has no network labels is.

API: kueue.x-k8s.io/v1beta2, the storage version of the CRDs at the pinned v0.19.2
(kubernetes-sigs/kueue ``apis/kueue/v1beta2/{resourceflavor,topology,cohort,clusterqueue,
localqueue,workloadpriorityclass}_types.go`` at v0.19.2). The manager's Configuration is
``apis/config/v1beta2/configuration_types.go`` at the same tag.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..catalog import EFA_RESOURCE
from ..catalog.device_allocation import EFA, accelerator_device
from ..catalog.network_topology import network_node_labels
from ..config import NodeGroupConfig, SchedulingConfig, TeamConfig, cohort_of_groups
from ..names import HOSTNAME_LABEL, KUEUE_API_VERSION, NODE_GROUP_LABEL
from ..tenancy.admission import team_namespaces
from ..tenancy.model import CHECKPOINT_PREFIX, service_account

if TYPE_CHECKING:
    import pulumi

API_VERSION = KUEUE_API_VERSION
# The job kinds trainstack launches; the chart's default list leaves PyTorchJob out
# (charts/kueue/values.yaml at v0.19.2).
FRAMEWORKS = ("batch/job", "kubeflow.org/mpijob", "kubeflow.org/pytorchjob", "trainer.kubeflow.org/trainjob")


@dataclass(frozen=True)
class KueueSetup:
    """What ClusterAddons installs for a stack's scheduling block."""

    configuration: dict[str, Any]
    """Kueue's manager Configuration keys (``manager_configuration``)."""
    objects: list[dict[str, Any]]
    """The Kueue objects (``kueue_objects``)."""
    namespaces: list[str] = field(default_factory=list)
    """Team namespaces to create (those nothing else in the stack creates)."""
    namespace_labels: dict[str, dict[str, str]] = field(default_factory=dict)
    """Labels of those namespaces (each team's Pod Security level: tenancy/isolation.py)."""
    depends_on: list[pulumi.Resource] = field(default_factory=list)
    """What creates the other team namespaces (the FSx claim's); namespaced objects wait for it."""


def flavor_name(group: str) -> str:
    return group


def topology_name(layers: int) -> str:
    return f"ec2-network-{layers}-layers"


def queue_name(team: TeamConfig) -> str:
    return team.name


def group_quota(group: NodeGroupConfig, nodes: int) -> dict[str, int]:
    """The Kueue resources ``nodes`` whole nodes of the group hold."""
    quota = {group.accelerator.resource_names[0]: nodes * group.accelerator.count}
    if group.efa_interfaces_per_node:
        quota[EFA_RESOURCE] = nodes * group.efa_interfaces_per_node
    return quota


def kueue_objects(scheduling: SchedulingConfig, groups: Sequence[NodeGroupConfig],
                  taints: Mapping[str, Sequence[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Every Kueue object of the stack, cluster-scoped ones first. ``taints``: each group's node
    taints as the node group applies them (``AcceleratedNodeGroup.taints``)."""
    cohorts = cohort_of_groups(scheduling, {g.name: g.owned_nodes for g in groups})
    covered = sorted({r for g in groups for r in group_quota(g, 1)})
    objects: list[dict[str, Any]] = []
    objects += [_topology(n) for n in sorted({topology_layers(scheduling, g) for g in groups} - {0})]
    objects += [_flavor(g, taints[g.name], topology_layers(scheduling, g)) for g in groups]
    for cohort in sorted(set(cohorts.values())):
        shared = {g.name: g.owned_nodes - sum(t.guaranteed_nodes.get(g.name, 0) for t in scheduling.teams)
                  for g in groups if cohorts[g.name] == cohort}
        objects.append(_object("Cohort", cohort, {"resourceGroups": _resource_groups(groups, shared, covered)}))
    for team in scheduling.teams:
        own = {g.name: team.guaranteed_nodes.get(g.name, 0) for g in groups if cohorts[g.name] == team.cohort}
        spec: dict[str, Any] = {
            "cohortName": team.cohort,
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": team.namespace}},
            "resourceGroups": _resource_groups(groups, own, covered, borrowing=team.borrowing),
            "preemption": _preemption(scheduling),
        }
        objects.append(_object("ClusterQueue", queue_name(team), spec))
    objects += [_object("LocalQueue", queue_name(t), {"clusterQueue": queue_name(t)}, namespace=t.namespace)
                for t in scheduling.teams]
    for priority in scheduling.priorities:
        wpc = {"apiVersion": API_VERSION, "kind": "WorkloadPriorityClass", "metadata": {"name": priority.name},
               "value": priority.value}
        objects.append({**wpc, "description": priority.description} if priority.description else wpc)
    return objects


def device_class_mappings(groups: Sequence[NodeGroupConfig]) -> list[dict[str, Any]]:
    """Kueue's ``resources.deviceClassMappings`` for the stack's DRA groups (none without one).

    A DRA group's pods request no ``nvidia.com/gpu`` or ``vpc.amazonaws.com/efa``; their claims name DeviceClasses.
    Kueue (KueueDRAIntegration, beta and on by default from v0.18: ``pkg/features/kube_features.go`` at v0.19.2)
    counts each claimed device against the logical resource its class is mapped to
    (``apis/config/v1beta2/configuration_types.go`` at v0.19.2, ``DeviceClassMapping``). Mapping each class to the
    extended resource the device plugin would advertise keeps one quota per device whichever profile a group
    uses: the ClusterQueues' ``nvidia.com/gpu`` and ``vpc.amazonaws.com/efa`` count claims too."""
    dra = [g for g in groups if g.device_allocation == "dra"]
    mapped: dict[str, set[str]] = {}
    for group in dra:
        mapped.setdefault(group.accelerator.resource_names[0], set()).add(
            accelerator_device(group.accelerator.kind).device_class)
        if group.efa_interfaces_per_node:
            mapped.setdefault(EFA_RESOURCE, set()).add(EFA.device_class)
    return [{"name": name, "deviceClassNames": sorted(classes)} for name, classes in sorted(mapped.items())]


def manager_configuration(scheduling: SchedulingConfig, groups: Sequence[NodeGroupConfig] = ()) -> dict[str, Any]:
    """The parts of Kueue's Configuration trainstack sets (the chart's defaults stay for the rest)."""
    mappings = device_class_mappings(groups)
    return {
        # Every job in a team namespace is Kueue's, queue name or not: left at its default (false), a job without
        # kueue.x-k8s.io/queue-name "will start immediately" around every quota. The selector narrows that to the
        # namespaces labelled with a team (tenancy/isolation.py), so kube-system, kueue-system, trainstack-system
        # and every other platform namespace keep their unlabelled jobs running (apis/config/v1beta2/
        # configuration_types.go at v0.19.2, ManageJobsWithoutQueueName and ManagedJobsNamespaceSelector; the
        # selector replaces the default "NotIn [kube-system, kueue-system]", defaults.go). An unlabelled job there
        # stays suspended, naming no queue (unless the team is called "default": Kueue's webhook gives a job the
        # namespace's LocalQueue "default", jobframework/defaults.go); the API server refuses a member's
        # (tenancy/admission.py).
        "manageJobsWithoutQueueName": True,
        "managedJobsNamespaceSelector": team_namespaces(),
        # A gang that cannot start whole within the timeout is evicted and requeued, its nodes
        # released; Eviction keeps its place in the queue by eviction time.
        "waitForPodsReady": {"timeout": f"{scheduling.pods_ready_timeout_minutes}m", "blockAdmission": False,
                             "requeuingStrategy": {"timestamp": "Eviction", "backoffBaseSeconds": 60,
                                                   "backoffMaxSeconds": 3600}},
        "integrations": {"frameworks": list(FRAMEWORKS)},
        # Quotas count accelerators and EFA interfaces; CPU, memory and huge pages follow from
        # whole-node requests and are not queued on (the MPIJob launcher asks only for those).
        "resources": {"quotaCheckStrategy": "IgnoreUndeclared",
                      **({"deviceClassMappings": mappings} if mappings else {})},
    }


def _object(kind: str, name: str, spec: dict[str, Any], namespace: str | None = None) -> dict[str, Any]:
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, "spec": spec}


def _topology(layers: int) -> dict[str, Any]:
    # Kueue places a pod set within one value of a level; the hostname level at the bottom
    # lets it place pods on single nodes (topology_types.go: hostname only as the lowest level).
    labels = [f"topology.k8s.aws/network-node-layer-{n}" for n in range(1, layers + 1)] + [HOSTNAME_LABEL]
    return _object("Topology", topology_name(layers), {"levels": [{"nodeLabel": label} for label in labels]})


def topology_layers(scheduling: SchedulingConfig, group: NodeGroupConfig) -> int:
    """The EC2 network layers the group's flavor places by: 0 (no Topology) with topologyAware off, on a type
    with no network labels, and on a DRA group, whose claimed devices Kueue's TAS does not count (module
    docstring)."""
    if not scheduling.topology_aware or group.device_allocation == "dra":
        return 0
    return len(network_node_labels(group.instance_type))


def _flavor(group: NodeGroupConfig, taints: Sequence[Mapping[str, Any]], layers: int) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "nodeLabels": {NODE_GROUP_LABEL: group.name},
        # Only workloads that tolerate the group's taints are given this flavor.
        "nodeTaints": [{k: v for k, v in t.items() if v is not None} for t in taints],
    }
    if layers:
        spec["topologyName"] = topology_name(layers)
    return _object("ResourceFlavor", flavor_name(group.name), spec)


def _resource_groups(groups: Sequence[NodeGroupConfig], nodes: Mapping[str, int], covered: Sequence[str],
                     borrowing: bool = True) -> list[dict[str, Any]]:
    """One resource group: every flavor lists every covered resource (0 where it has none)."""
    flavors = []
    for group in groups:
        if group.name not in nodes:
            continue
        quota = group_quota(group, nodes[group.name])
        resources = []
        for resource in covered:
            entry: dict[str, Any] = {"name": resource, "nominalQuota": str(quota.get(resource, 0))}
            if not borrowing:
                entry["borrowingLimit"] = "0"
            resources.append(entry)
        flavors.append({"name": flavor_name(group.name), "resources": resources})
    return [{"coveredResources": list(covered), "flavors": flavors}] if flavors else []


def _preemption(scheduling: SchedulingConfig) -> dict[str, str]:
    if scheduling.preemption == "Never":
        return {"reclaimWithinCohort": "Never", "withinClusterQueue": "Never"}
    # Reclaim lent guaranteed nodes from any borrower; within the team, preempt lower priorities.
    return {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"}


def contract(scheduling: SchedulingConfig, groups: Sequence[NodeGroupConfig]) -> dict[str, Any]:
    """The ``scheduling`` block of the outputs contract (outputs.Scheduling): each team's queue and,
    per group, the nodes guaranteed to it and the most it can reach by borrowing."""
    cohorts = cohort_of_groups(scheduling, {g.name: g.owned_nodes for g in groups})
    queues = {}
    for team in scheduling.teams:
        quotas = {}
        for group in groups:
            if cohorts[group.name] != team.cohort:
                continue
            guaranteed = team.guaranteed_nodes.get(group.name, 0)
            reach = group.owned_nodes if team.borrowing else guaranteed
            quotas[group.name] = {"guaranteedNodes": guaranteed, "maxNodes": reach,
                                  "maxResources": group_quota(group, reach)}
        queues[team.name] = {"namespace": team.namespace, "localQueue": queue_name(team),
                             "clusterQueue": queue_name(team), "cohort": team.cohort, "borrowing": team.borrowing,
                             "quotas": quotas, "serviceAccount": service_account(team.name),
                             "checkpointPrefix": CHECKPOINT_PREFIX.format(team=team.name)}
    topology = {g.name: list(network_node_labels(g.instance_type)) for g in groups
                if topology_layers(scheduling, g)}
    return {"queues": queues, "topologyLevels": topology,
            "priorityClasses": [p.name for p in scheduling.priorities],
            "podsReadyTimeoutMinutes": scheduling.pods_ready_timeout_minutes}
