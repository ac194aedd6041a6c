"""The faults doctor's pending section is checked on, each made on the kueue-p5 rehearsal by a real mechanism and
taken away on leaving: jobs the launchers render, submitted as a member of their team (the API server's RBAC and
admission judge them as a researcher's), nodes relabelled or tainted through the API as EC2, EKS or an operator
would. The real Kueue and kube-scheduler then decide; nothing here writes a Workload's status.

Shared by the engine tests (test_pending.py) and the recorder of the unit tests' data (record_pending.py)."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from support.rendered_jobs import IMAGE, outputs_of
from trainstack import launch
from trainstack.doctor import pending
from trainstack.kube.client import Cluster
from trainstack.names import NODE_GROUP_LABEL
from trainstack.rehearsal.faults import member_of
from trainstack.rehearsal.submission import delete_job
from trainstack.rehearsal.watch import workload_of

STACK = "kueue-p5"
LAYER_3 = "topology.k8s.aws/network-node-layer-3"
MAINTENANCE = {"key": "example.com/maintenance", "value": "true", "effect": "NoSchedule"}
"""A taint an operator puts on nodes under maintenance; no job the launchers render tolerates it."""
RECORDED = Path(__file__).resolve().parents[1] / "data" / "doctor" / "pending"


def device_check(team: str, group: str, nodes: int, name: str, **queue: Any) -> dict[str, Any]:
    """The device-check Job the launcher renders for ``team`` on ``nodes`` nodes of ``group``."""
    return launch.render_device_check(outputs_of(STACK), name=name, group_name=group, nodes=nodes, image=IMAGE,
                                      queue=launch.QueueRequest(team=team, **queue))


@contextlib.contextmanager
def submitted(cluster: Cluster, team: str, document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """``document`` created as a member of ``team``; deleted, with its pods and Workload, on leaving."""
    member, _ = member_of(cluster, team)
    member.create(document)
    try:
        yield document
    finally:
        delete_job(member, document)


def workload(cluster: Cluster, document: dict[str, Any], settled: Callable[[dict[str, Any]], bool],
             timeout: float = 60.0) -> dict[str, Any]:
    """The job's Workload once ``settled`` says Kueue has decided (its conditions by type)."""
    namespace, name = document["metadata"]["namespace"], document["metadata"]["name"]

    def decided() -> dict[str, Any] | None:
        found = workload_of(cluster, document["kind"], name, namespace)
        return found if found is not None and settled(conditions(found)) else None

    return cluster.wait_for(f"Kueue's decision on {namespace}/{name}", decided, timeout)


def held(cluster: Cluster, document: dict[str, Any], said: str, timeout: float = 60.0) -> dict[str, Any]:
    """The job's Workload once Kueue has held it back saying ``said``: in the condition or in a Warning event of the
    Workload's, where each attempt's reason goes (an attempt that resumes at a flavor the pods do not select
    overwrites the condition with that flavor's reason alone)."""
    namespace, name = document["metadata"]["namespace"], document["metadata"]["name"]

    def decided() -> dict[str, Any] | None:
        found = workload_of(cluster, document["kind"], name, namespace)
        if found is None or conditions(found).get("QuotaReserved", {}).get("status") != "False":
            return None
        events = cluster.list("v1", "Event", namespace, fieldSelector=f"involvedObject.name="
                              f"{found['metadata']['name']},type=Warning")
        messages = [conditions(found)["QuotaReserved"].get("message", ""), *(e.get("message", "") for e in events)]
        return found if any(said in message for message in messages) else None

    return cluster.wait_for(f"Kueue holding {namespace}/{name} back: {said}", decided, timeout)


def conditions(workload: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["type"]: c for c in (workload.get("status") or {}).get("conditions") or []}


def running(c: dict[str, Any]) -> bool:
    return c.get("PodsReady", {}).get("status") == "True"


def admitted(c: dict[str, Any]) -> bool:
    return c.get("Admitted", {}).get("status") == "True"


def group_nodes(cluster: Cluster, group: str) -> list[dict[str, Any]]:
    return cluster.list("v1", "Node", labelSelector=f"{NODE_GROUP_LABEL}={group}")


@contextlib.contextmanager
def relabelled(cluster: Cluster, nodes: list[dict[str, Any]], label: str, value: str) -> Iterator[None]:
    """``nodes`` under another value of ``label``, as EC2 reports instances under another network node; each
    node's own value back on leaving."""
    before = {n["metadata"]["name"]: n["metadata"]["labels"][label] for n in nodes}
    try:
        for name in before:
            cluster.patch(_node(name), {"metadata": {"labels": {label: value}}})
        yield
    finally:
        for name, old in before.items():
            cluster.patch(_node(name), {"metadata": {"labels": {label: old}}})


@contextlib.contextmanager
def tainted(cluster: Cluster, nodes: list[dict[str, Any]], taint: dict[str, str]) -> Iterator[None]:
    """``taint`` on ``nodes`` (kubectl taint); their own taints back on leaving."""
    before = {n["metadata"]["name"]: n["spec"].get("taints") or [] for n in nodes}
    try:
        for name, taints in before.items():
            cluster.patch(_node(name), {"spec": {"taints": [*taints, taint]}})
        yield
    finally:
        for name, taints in before.items():
            cluster.patch(_node(name), {"spec": {"taints": taints}})


def _node(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}


def record(read: pending.Read, case: str, how: str) -> Path:
    """Save what doctor read (``pending.read``), for the unit tests: every object as the API server gave it, less
    its managedFields (the nodes, less their status), and ``how`` the fault was made."""
    def kept(obj: dict[str, Any]) -> dict[str, Any]:
        copied: dict[str, Any] = json.loads(json.dumps(obj))
        copied.get("metadata", {}).pop("managedFields", None)
        return copied

    lists = {key: [kept(o) for o in getattr(read, key)]
             for key in (*pending.KINDS, "pods", "events", "workload_events")}
    # Of a node, what the section reads: its name, labels and taints (the rest is its kubelet's status).
    lists["nodes"] = [{"metadata": {"name": n["metadata"]["name"], "labels": n["metadata"].get("labels") or {}},
                       "spec": {k: v for k, v in n["spec"].items() if k in ("taints", "unschedulable")}}
                      for n in read.nodes]
    RECORDED.mkdir(parents=True, exist_ok=True)
    path = RECORDED / f"{case}.json"
    path.write_text(json.dumps({"stack": STACK, "case": how, **lists}, indent=1, sort_keys=True) + "\n")
    return path


def recorded(case: str) -> tuple[str, pending.Read]:
    """A recorded read (``record``) and how its fault was made."""
    document = json.loads((RECORDED / f"{case}.json").read_text())
    nodes = document.pop("nodes")
    how = document.pop("case")
    document.pop("stack")
    return how, pending.Read(**document, load_nodes=lambda: nodes)


# -- the cases: each a fault in place until the block ends, yielding the job doctor must explain ---------------------

@contextlib.contextmanager
def short_now(cluster: Cluster) -> Iterator[dict[str, Any]]:
    """llm runs 12 p5 nodes (its 6 and 6 borrowed); vision then asks for 6, of which 4 are free: its guarantee."""
    llm = device_check("llm", "p5", 12, "llm-12")
    vision = device_check("vision", "p5", 6, "vision-6")
    with submitted(cluster, "llm", llm):
        workload(cluster, llm, running, timeout=120)
        with submitted(cluster, "vision", vision):
            held(cluster, vision, "insufficient unused quota")
            yield vision


@contextlib.contextmanager
def never(cluster: Cluster) -> Iterator[dict[str, Any]]:
    """vision's job of 17 p5 nodes: the launcher refuses more than the 16 its queue can ever hold, so its Job is
    written by hand (the launcher's for 16, its parallelism raised)."""
    vision = device_check("vision", "p5", 16, "vision-17")
    vision["spec"]["parallelism"] = vision["spec"]["completions"] = 17
    with submitted(cluster, "vision", vision):
        held(cluster, vision, "> maximum capacity")
        yield vision


@contextlib.contextmanager
def split_block(cluster: Cluster) -> Iterator[dict[str, Any]]:
    """EC2 put half of the 16 p5 nodes under a second layer-3 network node; llm requires its 10 nodes in one
    layer-3 block."""
    second = sorted(group_nodes(cluster, "p5"), key=lambda n: int(n["metadata"]["name"].rsplit("-", 1)[1]))[8:]
    llm = device_check("llm", "p5", 10, "llm-10-one-block", topology="required", layer=3)
    with relabelled(cluster, second, LAYER_3, "nn-p5-3-second"), submitted(cluster, "llm", llm):
        held(cluster, llm, "allows to fit only 8 out of 10")
        yield llm


@contextlib.contextmanager
def maintenance(cluster: Cluster) -> Iterator[dict[str, Any]]:
    """Every p5 node tainted for maintenance; llm asks for 2 of them."""
    llm = device_check("llm", "p5", 2, "llm-2")
    with tainted(cluster, group_nodes(cluster, "p5"), MAINTENANCE), submitted(cluster, "llm", llm):
        held(cluster, llm, "excluded: taint")
        yield llm


@contextlib.contextmanager
def no_node_takes(cluster: Cluster) -> Iterator[dict[str, Any]]:
    """llm's one-node job on the dev pool, its pods pinned to us-east-1b, where the pool launches no node: Kueue
    admits it (its flavor has no topology, so quota alone decides) and the scheduler and Karpenter find no node."""
    llm = device_check("llm", "dev", 1, "llm-dev-1b")
    llm["spec"]["template"]["spec"]["nodeSelector"]["topology.kubernetes.io/zone"] = "us-east-1b"
    with submitted(cluster, "llm", llm):
        workload(cluster, llm, admitted)
        cluster.wait_for("the scheduler's and Karpenter's word on llm/llm-dev-1b", lambda: {
            (e.get("reportingComponent") or (e.get("source") or {}).get("component"))
            for e in cluster.list("v1", "Event", "llm", fieldSelector="reason=FailedScheduling")
            if e["involvedObject"]["name"].startswith("llm-dev-1b-")} >= {"default-scheduler", "karpenter"})
        yield llm


@contextlib.contextmanager
def untolerated(cluster: Cluster) -> Iterator[dict[str, Any]]:
    """vision's one-node p5 job with the group's toleration taken off."""
    vision = device_check("vision", "p5", 1, "vision-no-toleration")
    vision["spec"]["template"]["spec"]["tolerations"] = []
    with submitted(cluster, "vision", vision):
        held(cluster, vision, "untolerated taint")
        yield vision


GATE = "capacity-gate"
"""An AdmissionCheck the recorder adds to vision's ClusterQueue: its controller (``example.com/capacity-gate``) is
the recorder itself, which marks the check Active, as a check's controller does, and decides nothing."""


@contextlib.contextmanager
def gated(cluster: Cluster, active: bool) -> Iterator[dict[str, Any]]:
    """vision's ClusterQueue requires the admission check ``GATE`` (Active, or left inactive: no controller
    runs it); vision asks for 2 p5 nodes."""
    check = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck", "metadata": {"name": GATE},
             "spec": {"controllerName": f"example.com/{GATE}"}}
    queue = cluster.get(cluster.path_of({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
                                         "metadata": {"name": "vision"}}))
    vision = device_check("vision", "p5", 2, "vision-gated")
    cluster.create(check)
    try:
        if active:
            cluster.patch_status(check, {"conditions": [{
                "type": "Active", "status": "True", "reason": "Active", "message": "the gate's controller runs",
                "lastTransitionTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}]})
        cluster.patch(queue, {"spec": {"admissionChecksStrategy": {"admissionChecks": [{"name": GATE}]}}})
        with submitted(cluster, "vision", vision):
            workload(cluster, vision, (lambda c: c.get("QuotaReserved", {}).get("status") == "True") if active
                     else (lambda c: "inactive" in c.get("QuotaReserved", {}).get("message", "")))
            yield vision
    finally:
        cluster.patch(queue, {"spec": {"admissionChecksStrategy": None}})
        cluster.delete(check)


@contextlib.contextmanager
def tainted_no_queue(cluster: Cluster) -> Iterator[dict[str, Any]]:
    """Every p5 node tainted for maintenance, and a one-node Job on p5 in the default namespace, which no queue
    holds (Kueue manages the team namespaces only, addons/kueue.py): the scheduler alone finds no node for it."""
    job = device_check("llm", "p5", 1, "platform-check")
    job["metadata"] = {"name": "platform-check", "namespace": "default"}
    job["spec"]["template"]["spec"].pop("serviceAccountName", None)  # the team's, which default does not have
    job["spec"]["template"].get("metadata", {}).pop("annotations", None)  # the topology request: Kueue's
    with tainted(cluster, group_nodes(cluster, "p5"), MAINTENANCE):
        cluster.create(job)
        try:
            cluster.wait_for("the scheduler's word on default/platform-check", lambda: any(
                c.get("reason") == "Unschedulable" for p in cluster.list(
                    "v1", "Pod", "default", labelSelector="batch.kubernetes.io/job-name=platform-check")
                for c in (p.get("status") or {}).get("conditions") or []))
            yield job
        finally:
            delete_job(cluster, job)
