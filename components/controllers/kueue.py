"""Kueue (v0.19.2) admitting a rendered job on a stack with queues: the job's webhook
validation of topology requests, and whether the job names a queue and a topology level
the stack has.

* Each pod template (pod set) may carry at most one of the required, preferred and
  unconstrained topology annotations, each a label name; two pod sets sharing
  ``kueue.x-k8s.io/podset-group-name`` must be exactly two, one of them a single pod, with
  the same request (``pkg/controller/jobframework/tas_validation.go``: ``ValidateTASPodSetRequest``,
  ``ValidatePodSetGroupingTopology``, ``topologyRequestsValid``).
* A job without ``kueue.x-k8s.io/queue-name`` in a team namespace is held suspended by Kueue
  (``manageJobsWithoutQueueName: true`` on the team namespaces: addons/kueue.py) and, from a
  member, refused by the API server (tenancy/admission.py); a queue name the stack
  does not have leaves it suspended; a topology level its group's Topology lacks can never
  be satisfied (``pkg/controller/constants/constants.go``, ``apis/kueue/v1beta2/topology_types.go``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Optional

from ..names import (
    DEVICE_ALLOCATION_LABEL,
    EXISTING_NODE_GROUP_COMPONENT,
    KUEUE_RESOURCE_FLAVOR,
    NODE_GROUP,
    NODE_GROUP_LABEL,
)
from ..outputs import StackOutputs
from ..policy.model import Stack
from .jobs import Job, job_name
from .model import Finding

CONTROLLER = "kueue"
SOURCE = ("kubernetes-sigs/kueue v0.19.2 pkg/controller/jobframework/tas_validation.go, "
          "pkg/controller/constants/constants.go")
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
TOPOLOGY = ("kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology",
            "kueue.x-k8s.io/podset-unconstrained-topology")
PODSET_GROUP = "kueue.x-k8s.io/podset-group-name"


def check_queued_job(job: Job, outputs: StackOutputs, group: str) -> list[Finding]:
    """Findings for a job rendered for accelerated ``group`` of a stack (none where the stack has no queues)."""
    if outputs.scheduling is None:
        return []
    return list(_checks(job, outputs, group))


def pod_sets(job: Job) -> dict[str, tuple[Mapping[str, Any], int]]:
    """Pod set name -> (pod template, pods), as Kueue's integrations split each job kind."""
    spec = job.get("spec", {})
    if job.get("kind") == "Job":
        return {"main": (spec.get("template", {}), int(spec.get("parallelism", 1)))}
    if job.get("kind") == "TrainJob":
        patches = [j for p in spec.get("runtimePatches", [])
                   for j in p.get("trainingRuntimeSpec", {}).get("template", {}).get("spec", {}).get(
                       "replicatedJobs", [])]
        return {j["name"]: (j.get("template", {}).get("spec", {}).get("template", {}),
                            int(spec.get("trainer", {}).get("numNodes", 1))) for j in patches}
    replicas = spec.get("pytorchReplicaSpecs") or spec.get("mpiReplicaSpecs") or {}
    return {name: (r.get("template", {}), int(r.get("replicas", 1))) for name, r in replicas.items()}


def _checks(job: Job, outputs: StackOutputs, group: str) -> Iterator[Finding]:
    assert outputs.scheduling is not None
    queue = job.get("metadata", {}).get("labels", {}).get(QUEUE_LABEL)
    queues = {q.local_queue: q for q in outputs.scheduling.queues.values()}
    if queue is None:
        yield _finding(job, f"no {QUEUE_LABEL} label: Kueue leaves the job alone and it runs around every quota.")
    elif queue not in queues:
        yield _finding(job, f"queue {queue} is not one of the stack's ({', '.join(queues)}): the job stays suspended.")
    elif queues[queue].namespace != job.get("metadata", {}).get("namespace"):
        yield _finding(job, f"LocalQueue {queue} is in namespace {queues[queue].namespace}, the job in "
                            f"{job.get('metadata', {}).get('namespace')}: Kueue finds no such queue there.")
    levels = outputs.scheduling.topology_levels.get(group, [])
    groups: dict[str, list[tuple[str, Optional[tuple[str, str]], int]]] = {}
    for name, (template, pods) in pod_sets(job).items():
        annotations = template.get("metadata", {}).get("annotations", {})
        requests = [key for key in TOPOLOGY if key in annotations]
        if len(requests) > 1:
            yield _finding(job, f"pod set {name} carries {len(requests)} topology annotations; Kueue allows one.")
        request = next(((k, str(annotations[k])) for k in TOPOLOGY[:2] if k in annotations), None)
        if request is not None and request[1] not in levels:
            yield _finding(job, f"pod set {name} asks for topology level {request[1]}, which group {group}'s "
                                f"Topology does not have ({', '.join(levels) or 'none'}): it can never be placed.")
        if PODSET_GROUP in annotations:
            groups.setdefault(annotations[PODSET_GROUP], []).append((name, request, pods))
    for name, members in groups.items():
        if len(members) != 2:
            yield _finding(job, f"pod-set group {name} has {len(members)} pod set(s); Kueue takes exactly 2.")
        elif 1 not in (members[0][2], members[1][2]) or members[0][1] != members[1][1] or members[0][1] is None:
            yield _finding(job, f"pod-set group {name}: Kueue needs one pod set of a single pod and the same "
                                "topology request on both.")


def _finding(job: Job, message: str) -> Finding:
    return Finding(CONTROLLER, job_name(job), message, SOURCE)


TAS_SOURCE = ("kubernetes-sigs/kueue v0.19.2 pkg/scheduler/flavorassigner/tas_flavorassigner.go (TAS fits pods on "
              "the nodes the cache holds); found by trainstack rehearse against Kueue v0.19.2")


def check_topology_capacity(stack: Stack, outputs: Optional[StackOutputs]) -> list[Finding]:
    """A topology-aware flavor admits a queued job only onto nodes that already exist: Kueue places its pods
    within the Topology over the nodes it sees, and keeps the job suspended (no pods) until then, so neither
    the Cluster Autoscaler nor Karpenter, which add nodes for pods that wait, ever grows the group for it.
    The nodes a group always keeps are its ``minSize``; a queue that can give more waits for ever."""
    if outputs is None or outputs.scheduling is None:
        return []
    reach = {group: max((q.quotas[group].max_nodes for q in outputs.scheduling.queues.values() if group in q.quotas),
                        default=0) for group in outputs.accelerated_groups}
    # A pool's managed node groups share its node label (config/node_pool.py): together they keep the sum.
    minimum: dict[str, int] = {}
    for r in [*stack.of_type(NODE_GROUP), *stack.of_type(EXISTING_NODE_GROUP_COMPONENT)]:
        label = str(r.props.get("labels", {}).get(NODE_GROUP_LABEL))
        minimum[label] = minimum.get(label, 0) + int((r.props.get("scalingConfig") or {}).get("minSize", 0))
    findings = []
    for flavor in stack.of_type(KUEUE_RESOURCE_FLAVOR):
        spec = flavor.props.get("spec") or {}
        group = str((spec.get("nodeLabels") or {}).get(NODE_GROUP_LABEL))
        kept = minimum.get(group, 0)
        if spec.get("topologyName") and reach.get(group, 0) > kept:
            findings.append(Finding(CONTROLLER, f"flavor {group}", (
                f"topology-aware scheduling admits a job only onto nodes that exist, and group {group} keeps "
                f"{kept} (its minSize) while its queues can give {reach[group]}: a job of more than {kept} "
                "nodes stays suspended, so no pod asks the autoscaler for nodes and it never starts. Set the "
                f"group's minSize to {reach[group]} (a reserved group is paid for whole anyway), or set "
                "scheduling.topologyAware to false."), TAS_SOURCE, urn=flavor.urn))
    return findings


TAS_DRA_SOURCE = ("kubernetes-sigs/kueue v0.19.2 site/content/en/docs/concepts/dynamic_resource_allocation.md "
                  "(Limitations: no DRA with Topology Aware Scheduling), pkg/scheduler/flavorassigner/"
                  "tas_flavorassigner.go (TAS fits the pod spec's requests)")


def check_topology_on_dra(stack: Stack) -> list[Finding]:
    """A topology-aware flavor over a DRA group: Kueue v0.19.2's TAS fits pods by their pod spec's requests, where
    a DRA pod's devices are not (they come through its claims), so it places pods on nodes without counting their
    devices; Kueue documents TAS with DRA as unsupported (addons/kueue.py)."""
    dra_groups = {str(r.props.get("labels", {}).get(NODE_GROUP_LABEL))
                  for r in [*stack.of_type(NODE_GROUP), *stack.of_type(EXISTING_NODE_GROUP_COMPONENT)]
                  if (r.props.get("labels") or {}).get(DEVICE_ALLOCATION_LABEL) == "dra"}
    findings = []
    for flavor in stack.of_type(KUEUE_RESOURCE_FLAVOR):
        spec = flavor.props.get("spec") or {}
        group = str((spec.get("nodeLabels") or {}).get(NODE_GROUP_LABEL))
        if spec.get("topologyName") and group in dra_groups:
            findings.append(Finding(CONTROLLER, f"flavor {group}", (
                f"flavor {group} places by Topology {spec['topologyName']}, but group {group} gives its devices "
                "through DRA claims, which Kueue's topology-aware scheduling does not count: it may bind a job's "
                "pods to nodes whose devices are taken or not published, where they pend. Remove topologyName "
                "from the flavor (trainstack renders none on a DRA group); quotas still count the claimed "
                "devices."), TAS_DRA_SOURCE, urn=flavor.urn))
    return findings
