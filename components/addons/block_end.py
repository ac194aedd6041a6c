"""A Capacity Block wound down before AWS ends it: what trainstack renders, and who acts when.
Why: docs/adr/0013-winding-down-a-capacity-block.md

At ``endsAt - endLeadMinutes`` (``capacity.block_end_lead_minutes``) one Job, from a CronJob in kube-system:

    each ClusterQueue that can use the group    ``spec.stopPolicy: Hold``: Kueue admits no new workload there,
                                                and admitted ones run to completion (kubernetes-sigs/kueue
                                                v0.19.2 apis/kueue/v1beta2/clusterqueue_types.go, StopPolicy:
                                                "Hold - Admitted workloads will run to completion and Reserving
                                                workloads will cancel the reservation")
    the group's nodes                           taint ``trainstack.io/capacity-block-ending=<end>:NoExecute``:
                                                the taint manager deletes every pod that does not tolerate it,
                                                each with its own terminationGracePeriodSeconds (SIGTERM first),
                                                and nothing new schedules there (kubernetes.io/docs/concepts/
                                                scheduling-eviction/taint-and-toleration/, read 2026-11-26)

Then AWS and the autoscaler act as they always do (catalog.karpenter_capacity): 40 minutes before the end EC2
sends the Capacity Block Reservation Expiration Warning and Karpenter deletes the block's NodeClaims (EKS
scales a managed group to zero), and from 30 minutes before EC2 terminates what is left.

Why a Hold and not a flavor change: a ResourceFlavor names no time, and Kueue v0.19.2 has nothing that stops one
flavor at a moment; a ClusterQueue's stopPolicy is the API Kueue gives for "stop admitting, keep running". A Hold
stops the whole queue, so every ClusterQueue of the block's cohort stops admitting on every flavor: give a block
its own cohort where other groups must keep admitting. A job that was not admitted by then stays pending (held,
not refused) until the queue's stopPolicy is set back to None, which a later ``pulumi up`` does not do on its
own (the field is the Job's, server-side apply leaves it).

The schedule is the minute of that moment in UTC (``spec.timeZone: Etc/UTC``); a cron schedule has no year, so
it would fire again a year later: set the group's next block (its ``endsAt`` changes, and so the schedule) or
remove the block when it is over.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Optional

from ..catalog.karpenter_capacity import (
    BLOCK_DRAIN_GRACE_MINUTES,
    EC2_BLOCK_TERMINATION_MINUTES,
    EC2_BLOCK_WARNING_EVENT,
    EC2_BLOCK_WARNING_MINUTES,
    KARPENTER_BLOCK_DRAIN_MINUTES,
)
from ..config import NodeGroupConfig, SchedulingConfig, cohort_of_groups
from ..names import BLOCK_ENDING_TAINT, NODE_GROUP_LABEL

NAMESPACE = "kube-system"
# The standalone kubectl image Kubernetes publishes with each release since v1.28 (kubernetes/kubernetes#116672,
# kubernetes/sig-release#2260); v1.35.4 is the release the rehearsal's engines build (engines/kubernetes/ldflags).
# It has no shell: each step is one kubectl command, as a container of its own.
KUBECTL_IMAGE = "registry.k8s.io/kubectl:v1.35.4"
KUEUE_GROUP = "kueue.x-k8s.io"


@dataclass(frozen=True)
class BlockEnd:
    """One capacity block group's wind-down: when, and what it stops."""

    group: str
    reservation_id: str
    ends_at: datetime
    lead_minutes: int
    cluster_queues: tuple[str, ...]
    """The Kueue ClusterQueues that can admit onto the group (its cohort's teams); empty without Kueue."""
    karpenter: bool

    @property
    def at(self) -> datetime:
        """When trainstack acts: ``endsAt`` minus the lead."""
        return self.ends_at - timedelta(minutes=self.lead_minutes)

    @property
    def name(self) -> str:
        return f"capacity-block-end-{self.group}"

    @property
    def taint_value(self) -> str:
        """The block's end as a label value (no colons): ``20261201T113000Z``."""
        return f"{self.ends_at:%Y%m%dT%H%M%SZ}"


def block_ends(groups: Sequence[NodeGroupConfig], scheduling: Optional[SchedulingConfig]) -> list[BlockEnd]:
    """Each capacity block group's wind-down, in the groups' order; none for other groups."""
    cohorts = cohort_of_groups(scheduling, {g.name: g.owned_nodes for g in groups}) if scheduling else {}
    ends = []
    for group in groups:
        lead, capacity = group.capacity.block_end_lead_minutes, group.capacity
        if lead is None or capacity.ends_at is None:
            continue
        block = ", ".join(capacity.reservation_ids) or (f"bought from offering {capacity.purchase.offering_id}"
                                                        if capacity.purchase else "")
        queues = tuple(t.name for t in scheduling.teams if t.cohort == cohorts[group.name]) if scheduling else ()
        ends.append(BlockEnd(group.name, block, capacity.ends_at, lead, queues,
                             group.autoscaler == "karpenter"))
    return ends


def objects(end: BlockEnd) -> list[dict[str, Any]]:
    """The ServiceAccount, ClusterRole, ClusterRoleBinding and CronJob of one block's wind-down."""
    meta = {"name": end.name, "namespace": NAMESPACE}
    rules: list[dict[str, Any]] = [
        # kubectl taint -l lists the nodes, then patches each; RBAC cannot narrow nodes by label.
        {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "patch"]}]
    if end.cluster_queues:
        rules.append({"apiGroups": [KUEUE_GROUP], "resources": ["clusterqueues"],
                      "resourceNames": list(end.cluster_queues), "verbs": ["get", "patch"]})
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": end.name},
         "rules": rules},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": end.name},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": end.name},
         "subjects": [{"kind": "ServiceAccount", "name": end.name, "namespace": NAMESPACE}]},
        {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta, "spec": _cron_spec(end)},
    ]


def hold_command(queue: str) -> list[str]:
    """What the Job runs to hold one ClusterQueue."""
    return ["kubectl", "patch", f"clusterqueues.{KUEUE_GROUP}", queue, "--type=merge",
            "--patch", '{"spec":{"stopPolicy":"Hold"}}']


def taint_command(end: BlockEnd) -> list[str]:
    """What the Job runs to taint the group's nodes."""
    return ["kubectl", "taint", "nodes", "--selector", f"{NODE_GROUP_LABEL}={end.group}",
            f"{BLOCK_ENDING_TAINT}={end.taint_value}:NoExecute", "--overwrite"]


def _cron_spec(end: BlockEnd) -> dict[str, Any]:
    # The holds first, as init containers: queues stop admitting before the nodes are emptied, so nothing
    # evicted is admitted again onto a block that is ending.
    holds = [{"name": f"hold-{i}", "image": KUBECTL_IMAGE, "command": hold_command(q)}
             for i, q in enumerate(end.cluster_queues)]
    pod = {"serviceAccountName": end.name, "restartPolicy": "OnFailure", "initContainers": holds,
           "containers": [{"name": "taint", "image": KUBECTL_IMAGE, "command": taint_command(end)}]}
    if not holds:
        del pod["initContainers"]
    return {"schedule": f"{end.at.minute} {end.at.hour} {end.at.day} {end.at.month} *", "timeZone": "Etc/UTC",
            "concurrencyPolicy": "Forbid", "startingDeadlineSeconds": 600,
            "jobTemplate": {"spec": {"backoffLimit": 3, "template": {"spec": pod}}}}


def timeline(end: BlockEnd) -> list[tuple[datetime, str, str]]:
    """Who acts at a block's end, and when: (time, actor, what), in order."""
    drain = (f"Karpenter deletes the block's NodeClaims and drains its nodes for at most {BLOCK_DRAIN_GRACE_MINUTES} "
             "minutes (terminationGracePeriod)") if end.karpenter else (
        "EKS scales the managed node group to zero")
    held = f"holds ClusterQueues {', '.join(end.cluster_queues)} (stopPolicy Hold) and " if end.cluster_queues else ""
    return [
        (end.at, "trainstack", f"{held}taints the nodes {BLOCK_ENDING_TAINT}:NoExecute: pods get SIGTERM and "
                               "their grace period to checkpoint"),
        (end.ends_at - timedelta(minutes=EC2_BLOCK_WARNING_MINUTES), "AWS",
         f"EC2 sends '{EC2_BLOCK_WARNING_EVENT}'"),
        (end.ends_at - timedelta(minutes=KARPENTER_BLOCK_DRAIN_MINUTES), "Karpenter" if end.karpenter else "EKS",
         drain),
        (end.ends_at - timedelta(minutes=EC2_BLOCK_TERMINATION_MINUTES), "AWS", "EC2 terminates the instances left"),
        (end.ends_at, "AWS", "the block ends"),
    ]


def timeline_text(end: BlockEnd) -> str:
    """The plan's words for one block: each moment, who acts, what they do."""
    steps = "; ".join(f"{when:%Y-%m-%dT%H:%M:%SZ} {who}: {what}" for when, who, what in timeline(end))
    return f"capacity block {end.reservation_id} of group {end.group} ends {end.ends_at:%Y-%m-%dT%H:%M:%SZ}: {steps}."
