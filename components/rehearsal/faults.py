"""Faults a rehearsal plays on the real controllers, and what they did about it:

* **A node lost** under a running job: the Node is deleted, as when EC2 terminates the
  instance and its Node object goes. kube-controller-manager's pod garbage collector removes
  the pods bound to a node that no longer exists (pkg/controller/podgc, ``gcOrphaned``, after
  its 40 s quarantine); the operator then replaces them (or fails the job, as its restart
  policy says), the Cluster Autoscaler model adds a node where the group may grow, and the
  scheduler places the replacements.
* **Two teams at once** on a Kueue stack: each team submits the largest job its queue can
  reach by borrowing; Kueue admits one and holds the other, and which one and why is Kueue's
  own answer (its Workload conditions). Each team's job is submitted, and deleted, as a member of
  that team (impersonation: the team's Kubernetes group, which EKS puts its members in), so the
  API server's RBAC and Pod Security admission judge it as they would a researcher's; the
  rehearsal itself watches as admin.
* **A job without a queue name** in a team's namespace (issue 64): the API server refuses it to a member of the team
  (the admission policy, tenancy/admission.py, with its message). Created by the rehearsal's admin, whom the policy
  does not cover (as anyone's would be with the policy gone), it is held by the real Kueue on the stack's own
  configuration (``manageJobsWithoutQueueName`` on the team namespaces, addons/kueue.py): at v0.19.2 its webhook
  stores the Job suspended (``pkg/controller/jobframework/defaults.go`` ``ApplyDefaultForSuspend``, from
  ``utils.go`` ``WorkloadShouldBeSuspended``), its reconciler makes a Workload with an empty queue name, and its
  Workload controller never reserves quota for it: ``QuotaReserved`` False, ``Inadmissible``, "LocalQueue  doesn't
  exist" (``pkg/controller/core/workload_controller.go`` ``getQueueBlocker``). The job goes in just before the two
  teams' jobs, on their group, and is judged after them: the team's job Kueue admitted, created after it, went
  through the same Job controller, scheduler and kwok and ran whole meanwhile (or the window was the teams' whole
  wait, rehearsal.waits), so a job Kueue did not hold would have run, on a node the admitted gang needed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ..kube.client import ApiError, Cluster
from ..outputs import StackOutputs
from ..tenancy.admission import POLICY, QUEUE_LABEL
from ..tenancy.model import team_group
from .cluster import Nodes, Progress
from .jobs import RenderedJob
from .submission import delete_job
from .waits import explicit, together_wait
from .watch import Observation, expected_pods, observe, pods_of, workload_of

NODE_LOSS_TIMEOUT_SECONDS = 150.0


def lose_a_node(cluster: Cluster, nodes: Nodes, job: RenderedJob, seen: Observation,
                timeout: float = NODE_LOSS_TIMEOUT_SECONDS) -> dict[str, Any]:
    """Delete one node the running ``job`` uses; wait until the job is whole again (or ``timeout`` is up, at least
    the pod garbage collector's quarantine and a gang restart of a few nodes)."""
    lost = seen.nodes[-1]
    before = {p["metadata"]["uid"] for p in observe(cluster, seen)}
    began = time.monotonic()
    replacement = nodes.lose(lost)
    steps: dict[str, float] = {}
    outcome = "the job did not run whole again"
    while time.monotonic() - began < max(timeout, NODE_LOSS_TIMEOUT_SECONDS):
        pods = observe(cluster, seen)
        nodes.scale_for(pods)
        uids = {p["metadata"]["uid"] for p in pods}
        # Removed once no live pod is on the lost node (one look may see the removal and the replacements at once).
        if (before - uids or lost not in seen.nodes) and "podsRemoved" not in steps:
            steps["podsRemoved"] = round(time.monotonic() - began, 1)
        replaced = uids - before
        if replaced and "replacementCreated" not in steps:
            steps["replacementCreated"] = round(time.monotonic() - began, 1)
        if replaced and seen.running_whole and lost not in seen.nodes:
            steps["wholeAgain"] = round(time.monotonic() - began, 1)
            outcome = (f"the pods on {lost} were removed after {steps['podsRemoved']:.0f} s, the operator replaced "
                       f"{len(replaced)} pod(s), and the job ran whole again after {steps['wholeAgain']:.0f} s")
            break
        time.sleep(0.5)
    return {"fault": "node lost", "job": job.id, "node": lost, "replacement": replacement, "outcome": outcome,
            "seconds": steps, "ok": "wholeAgain" in steps}


def two_teams(outputs: StackOutputs, group: str) -> list[tuple[str, int]]:
    """Each team's largest reach on ``group`` (guaranteed plus what it may borrow), for jobs submitted at once."""
    scheduling = outputs.scheduling
    if scheduling is None:
        return []
    return [(team, queue.quotas[group].max_nodes) for team, queue in sorted(scheduling.queues.items())
            if group in queue.quotas]


def member_of(cluster: Cluster, team: str) -> tuple[Cluster, str]:
    """``cluster`` asked as a member of ``team``, and that member's name. RBAC binds the team's Role to its group,
    never to a user (tenancy/rbac.py), so any user in the group is any member; the name says it is the
    rehearsal's."""
    user = f"rehearsal-member-of-{team}"
    return cluster.as_user(user, [team_group(team)]), user


def shared_group(outputs: StackOutputs) -> str:
    """The accelerated group the teams' queues reach the most nodes of together."""
    return max(sorted(outputs.accelerated_groups), key=lambda name: sum(reach for _, reach in two_teams(outputs, name)))


def two_teams_at_once(cluster: Cluster, nodes: Nodes, outputs: StackOutputs, image: str, timeout: float | None,
                      progress: Progress) -> dict[str, Any]:
    """Every team submits, at the same moment, the validation job on the most nodes its queue can reach, on the
    group the queues share the most of; ``timeout`` None waits as long as all their pods need (rehearsal.waits)."""
    from .. import launch

    group = shared_group(outputs)
    reaches = two_teams(outputs, group)
    documents = [launch.render_device_check(outputs, name=f"{team}-{reach}", group_name=group, nodes=reach, image=image,
                                            queue=launch.QueueRequest(team=team)) for team, reach in reaches]
    progress(f"  fault: {' and '.join(f'{team} ({reach} nodes)' for team, reach in reaches)} submit at once")
    wait = together_wait(documents) if timeout is None else explicit(timeout)
    progress(f"    waiting up to {wait.seconds:.0f} s ({wait.why})")
    members = {team: member_of(cluster, team) for team, _ in reaches}
    seen = []
    for (team, _), document in zip(reaches, documents, strict=True):
        members[team][0].create(document)
        namespace = document["metadata"]["namespace"]
        seen.append(Observation("Job", document["metadata"]["name"], namespace, expected_pods(document), True))
    deadline = time.monotonic() + wait.seconds
    while time.monotonic() < deadline:
        for observation in seen:
            nodes.scale_for(observe(cluster, observation))
        if any(o.running_whole for o in seen) and all(o.running_whole or (o.reason and not o.admitted) for o in seen):
            break
        time.sleep(0.25)
    outcome = "; ".join(f"{o.namespace}: " + (f"admitted to {o.cluster_queue}, {o.running} of {o.expected} pods "
                                               "Running" if o.admitted else f"waiting ({o.reason})") for o in seen)
    progress(f"    {outcome}")
    # The waiting jobs go first: deleted after the admitted one, each would be admitted in turn and start its pods.
    waiting_first = sorted(zip(reaches, documents, seen, strict=True), key=lambda each: bool(each[2].admitted))
    for (team, _), document, _observation in waiting_first:
        delete_job(members[team][0], document)
    return {"fault": "two teams at once", "group": group, "outcome": outcome,
            "ok": any(o.running_whole for o in seen),
            "submittedAs": {team: {"user": user, "groups": [team_group(team)]} for team, (_, user) in members.items()},
            "teams": {o.namespace: {"admitted": o.admitted, "running": o.running, "reason": o.reason} for o in seen}}


@dataclass
class Unqueued:
    """A team's job that names no queue, as submitted: the API server's answer to the member, and who created it."""

    team: str
    document: dict[str, Any]
    refusal: str | None
    """What the API server told the member; None: it created the job for the member."""
    created_by: str
    suspended_at_creation: bool
    """``spec.suspend`` of the Job as the API server stored it, after the admission webhooks (Kueue's among them)."""
    created: float


def unqueued_job(cluster: Cluster, outputs: StackOutputs, image: str, progress: Progress) -> Unqueued:
    """The first team's one-node validation Job on the teams' shared group, its queue label taken off: sent as a
    member of the team, then, refused, by the rehearsal's admin, which the admission policy lets through."""
    from .. import launch

    assert outputs.scheduling is not None, "a stack without Kueue queues has no queue to go around"
    team = sorted(outputs.scheduling.queues)[0]
    document = launch.render_device_check(outputs, name=f"{team}-no-queue", group_name=shared_group(outputs),
                                          nodes=1, image=image, queue=launch.QueueRequest(team=team))
    del document["metadata"]["labels"][QUEUE_LABEL]
    progress(f"  fault: a {team} Job without {QUEUE_LABEL}")
    member, user = member_of(cluster, team)
    refusal, creator = None, user
    try:
        stored = member.create(document)
    except ApiError as error:
        if error.status != 403:
            raise
        refusal, creator = str(error.body.get("message", error)), "the rehearsal's admin"
        progress(f"    refused to {user}: {refusal}")
        stored = cluster.create(document)
    return Unqueued(team, document, refusal, creator, bool(stored["spec"].get("suspend")), time.monotonic())


def unqueued_held(cluster: Cluster, unqueued: Unqueued, teams: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """What became of ``unqueued`` while the teams' jobs ran (``teams``, two_teams_at_once's record); then it is
    deleted. Held: suspended since it was stored, no pod, and a Workload of Kueue's that is not admitted."""
    metadata = unqueued.document["metadata"]
    name, namespace = metadata["name"], metadata["namespace"]
    held_for = round(time.monotonic() - unqueued.created, 1)
    suspended = unqueued.suspended_at_creation and bool(
        cluster.get(cluster.path_of(unqueued.document))["spec"].get("suspend"))
    pods = len(pods_of(cluster, "Job", name, namespace))
    workload = workload_of(cluster, "Job", name, namespace)
    conditions = [{key: c.get(key) for key in ("type", "status", "reason", "message")}
                  for c in ((workload or {}).get("status") or {}).get("conditions", [])]
    admitted = any(c["type"] == "Admitted" and c["status"] == "True" for c in conditions)
    held = suspended and not pods and workload is not None and not admitted
    refused = unqueued.refusal is not None and f"ValidatingAdmissionPolicy '{POLICY}'" in unqueued.refusal
    if held:
        pending = next((c for c in conditions if c["type"] == "QuotaReserved"), {})
        kueue = (f"held by Kueue for {held_for:.0f} s: suspended, no pod, its Workload, naming no queue, not "
                 f"admitted ({pending.get('reason')}: {pending.get('message')})")
    else:
        kueue = (f"not held: suspended {suspended}, {pods} pod(s), "
                 + (f"its Workload admitted {admitted}" if workload else "no Workload: Kueue does not manage it"))
    admitted_teams = " and ".join(ns for ns, team in teams["teams"].items() if team["admitted"])
    meanwhile = (f"while {admitted_teams}'s job, submitted after it, was admitted and ran whole" if teams["ok"]
                 else "over the teams' whole wait")
    outcome = (f"refused to a member of {unqueued.team} by the API server ({POLICY}); created by "
               if refused else f"{unqueued.refusal or 'no admission policy refused it'}; created by ") + (
        f"{unqueued.created_by}, {kueue}, {meanwhile}")
    progress(f"    {outcome}")
    delete_job(cluster, unqueued.document)
    return {"fault": "a job without a queue name", "team": unqueued.team, "job": f"{namespace}/{name}",
            "outcome": outcome, "ok": refused and held, "refused": unqueued.refusal, "createdBy": unqueued.created_by,
            "suspended": suspended, "pods": pods, "watchedSeconds": held_for,
            "workload": {"name": workload["metadata"]["name"], "queueName": workload["spec"].get("queueName", ""),
                         "conditions": conditions} if workload else None}
