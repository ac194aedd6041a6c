"""Submitting a job through the stack's Kueue queues (outputs ``scheduling``).

On a stack that schedules through Kueue every job names its team's LocalQueue (the
``kueue.x-k8s.io/queue-name`` label) and runs in the team's namespace, where that queue
lives, as the team's ServiceAccount (team_identity.py), with its checkpoints under the
team's prefix of the bucket. Kueue then admits the job whole or not at all. Its pod templates
ask Kueue to place all their pods inside one EC2 network block: preferred (the bottom layer first,
then up, then spread, as Kueue documents it) or required at a given layer. A job wider
than the team's queue can ever be given is refused here, with the numbers, rather than
pending for ever.

Names from kubernetes-sigs/kueue v0.19.2: ``pkg/controller/constants/constants.go``
(QueueLabel, WorkloadPriorityClassLabel) and ``apis/kueue/v1beta2/topology_types.go``
(the podset topology annotations and PodSetGroupName).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Optional

from ..outputs import Queue, StackOutputs
from .placement import LaunchError

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"
PREFERRED_TOPOLOGY = "kueue.x-k8s.io/podset-preferred-topology"
# Two pod sets of one group are placed as one unit, in one topology domain: a PyTorchJob's
# Master and Worker pods share the block. Kueue accepts groups of exactly two pod sets, one
# of them of a single pod (pkg/controller/jobframework/tas_validation.go).
PODSET_GROUP = "kueue.x-k8s.io/podset-group-name"


@dataclass(frozen=True)
class QueueRequest:
    """How a job asks to be queued; the defaults suit a training job."""

    team: Optional[str] = None
    """The team whose queue admits the job; default: the stack's only team."""
    topology: Literal["preferred", "required"] = "preferred"
    """Keep the job's nodes in one network block if possible (preferred), or wait until it is (required)."""
    layer: Optional[int] = None
    """The network layer (1 = top, broadest) the nodes share; default: the bottom layer."""
    priority: Optional[str] = None
    """A WorkloadPriorityClass of the stack."""


@dataclass(frozen=True)
class Admission:
    """What the launcher adds to the job: labels, its namespace, pod template annotations, and whom it runs as."""

    labels: dict[str, str]
    namespace: Optional[str]
    pod_annotations: dict[str, str]
    service_account: Optional[str] = None
    """The team's ServiceAccount every pod of the job runs as; None in outputs written before teams were tenants,
    whose jobs name none (the namespace's ``default``), as they always did."""
    checkpoint_prefix: str = ""
    """The team's prefix in the checkpoint bucket, the only place its role may write (``teams/<team>/``)."""


NO_QUEUE = Admission({}, None, {})


def admission(outputs: StackOutputs, group_name: str, nodes: int, request: Optional[QueueRequest],
              namespace: Optional[str], mounts_storage: bool = True) -> Admission:
    """The queue, namespace and topology request of a job of ``nodes`` nodes on the group, or
    NO_QUEUE on a stack without scheduling. Raises LaunchError where Kueue would never admit it, or
    where the job would mount the FSx claim (``mounts_storage``) outside the claim's namespace."""
    scheduling = outputs.scheduling
    if scheduling is None:
        if request is not None and request != QueueRequest():
            raise LaunchError(f"stack {outputs.stack} has no Kueue queues (no scheduling block); drop the queue "
                              "options, or add scheduling to the stack.")
        return NO_QUEUE
    request = request or QueueRequest()
    name, queue = _team(outputs, request.team)
    if namespace is not None and namespace != queue.namespace:
        raise LaunchError(f"team {name}'s queue is in namespace {queue.namespace}; a job in {namespace} cannot use "
                          f"it: leave the namespace unset or use {queue.namespace}.")
    storage = outputs.storage
    if (mounts_storage and storage is not None and storage.claim_name
            and queue.namespace not in storage.claim_namespaces):
        # A PersistentVolumeClaim is namespaced: a pod elsewhere cannot mount it and would never start.
        # A stack puts the claim in every team's namespace; outputs of an older stack may not have.
        held = ", ".join(storage.claim_namespaces)
        raise LaunchError(f"the stack's FSx claim {storage.claim_name} is in namespace(s) {held}, but team "
                          f"{name}'s jobs run in {queue.namespace}, where it is not; the pods could not mount it. "
                          f"Run `pulumi up` with this trainstack, which puts the claim in every team's namespace.")
    quota = queue.quotas.get(group_name)
    if quota is None:
        raise LaunchError(f"team {name}'s queue has no quota on group '{group_name}' (its groups: "
                          f"{', '.join(queue.quotas) or 'none'}); Kueue would never admit the job.")
    if nodes > quota.max_nodes:
        held = ", ".join(f"{amount} {resource}" for resource, amount in quota.max_resources.items())
        how = (f"{quota.guaranteed_nodes} guaranteed, the rest borrowed from cohort {queue.cohort}" if queue.borrowing
               else "its guarantee; it does not borrow")
        raise LaunchError(f"team {name}'s queue can be given at most {quota.max_nodes} nodes of '{group_name}' "
                          f"({held}; {how}); the job asks for {nodes} nodes. Kueue admits a job whole or not at "
                          f"all, so it would wait for ever: ask for at most {quota.max_nodes} nodes.")
    labels = {QUEUE_LABEL: queue.local_queue}
    if request.priority is not None:
        if request.priority not in scheduling.priority_classes:
            raise LaunchError(f"priority class '{request.priority}' is not one of the stack's "
                              f"({', '.join(scheduling.priority_classes) or 'none'}).")
        labels[PRIORITY_LABEL] = request.priority
    return Admission(labels, queue.namespace, _topology(scheduling.topology_levels.get(group_name, []), group_name,
                                                        request),
                     service_account=queue.service_account, checkpoint_prefix=queue.checkpoint_prefix or "")


def _dra_groups_queued(outputs: StackOutputs) -> list[str]:
    """The DRA groups some queue holds quota on: Kueue places their jobs without a Topology (addons/kueue.py)."""
    assert outputs.scheduling is not None
    queued = {group for queue in outputs.scheduling.queues.values() for group in queue.quotas}
    return [name for name, target in outputs.accelerated_groups.items()
            if target.device_allocation == "dra" and name in queued]


def _team(outputs: StackOutputs, team: Optional[str]) -> tuple[str, Queue]:
    assert outputs.scheduling is not None
    queues = outputs.scheduling.queues
    if team is None:
        if len(queues) == 1:
            return next(iter(queues.items()))
        raise LaunchError(f"stack {outputs.stack} has a queue per team ({', '.join(queues)}): say which team "
                          "submits the job.")
    if team not in queues:
        raise LaunchError(f"stack {outputs.stack} has no team '{team}' (teams: {', '.join(queues)}).")
    return team, queues[team]


def _topology(levels: list[str], group_name: str, request: QueueRequest) -> dict[str, str]:
    if not levels:
        if request.topology == "required" or request.layer is not None:
            raise LaunchError(f"group '{group_name}' has no network topology Kueue can place by (its instance type "
                              "carries no topology.k8s.aws/network-node-layer labels, the stack turned "
                              "topologyAware off, or it is a DRA group, whose claimed devices Kueue's "
                              "topology-aware scheduling does not count); drop the topology request.")
        return {}
    layer = len(levels) if request.layer is None else request.layer
    if not 1 <= layer <= len(levels):
        raise LaunchError(f"group '{group_name}' has network layers 1 to {len(levels)}; layer {layer} was asked for.")
    key = REQUIRED_TOPOLOGY if request.topology == "required" else PREFERRED_TOPOLOGY
    return {key: levels[layer - 1]}


def label_job(job: dict, granted: Admission) -> dict:
    """The queue (and priority) labels on the job object itself, where Kueue's job integrations read them."""
    if granted.labels:
        job["metadata"]["labels"] = {**job["metadata"].get("labels", {}), **granted.labels}
    return job


def annotate_pods(template: dict, granted: Admission, group: Optional[str] = None) -> dict:
    """The topology request on one pod template (one Kueue pod set); ``group`` pairs it with another."""
    annotations = dict(granted.pod_annotations)
    if annotations and group is not None:
        annotations[PODSET_GROUP] = group
    if annotations:
        template["metadata"] = {**template.get("metadata", {}),
                                "annotations": {**template.get("metadata", {}).get("annotations", {}), **annotations}}
    return template


def describe_queues(outputs: StackOutputs, cost: Optional[Callable[[str, int], str]] = None) -> Optional[str]:
    """The stack's queues and quotas in words, for `trainstack plan` (None without scheduling); with ``cost``
    (group, nodes -> what they cost, in words), what each team's nominal quota guarantees and what it can
    cost at most with what it may borrow."""
    scheduling = outputs.scheduling
    if scheduling is None:
        return None
    lines = [f"Kueue queues (jobs admitted whole; pods not all running within "
             f"{scheduling.pods_ready_timeout_minutes} min give their nodes back and requeue)"]
    for team, queue in scheduling.queues.items():
        lines.append(f"  {team}: LocalQueue {queue.local_queue} in namespace {queue.namespace}, cohort {queue.cohort}"
                     + ("" if queue.borrowing else ", no borrowing"))
        for group, quota in queue.quotas.items():
            held = ", ".join(f"{amount} {resource}" for resource, amount in quota.max_resources.items())
            lines.append(f"    {group}: {quota.guaranteed_nodes} nodes guaranteed, up to {quota.max_nodes} ({held})")
            if cost is not None:
                lines.append(f"      cost: guaranteed {cost(group, quota.guaranteed_nodes)}; "
                             f"at most {cost(group, quota.max_nodes)}")
    for group, levels in scheduling.topology_levels.items():
        lines.append(f"  topology {group}: {' > '.join(levels)}")
    for group in _dra_groups_queued(outputs):
        lines.append(f"  topology {group}: none, a DRA group (Kueue's topology-aware scheduling does not count "
                     "claimed devices); its jobs are placed by quota alone")
    if scheduling.priority_classes:
        lines.append(f"  priority classes: {', '.join(scheduling.priority_classes)}")
    return "\n".join(lines)
