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
"""

from __future__ import annotations

import time
from typing import Any

from ..kube.client import Cluster
from ..outputs import StackOutputs
from ..tenancy.model import team_group
from .cluster import Nodes, Progress
from .jobs import RenderedJob
from .submission import delete_job
from .waits import explicit, together_wait
from .watch import Observation, expected_pods, observe

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


def two_teams_at_once(cluster: Cluster, nodes: Nodes, outputs: StackOutputs, image: str, timeout: float | None,
                      progress: Progress) -> dict[str, Any]:
    """Every team submits, at the same moment, the validation job on the most nodes its queue can reach, on the
    group the queues share the most of; ``timeout`` None waits as long as all their pods need (rehearsal.waits)."""
    from .. import launch

    group = max(sorted(outputs.accelerated_groups),
                key=lambda name: sum(reach for _, reach in two_teams(outputs, name)))
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
