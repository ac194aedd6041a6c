"""Doctor's node checks on a real rehearsal of kueue-p5: the real API server, kwok v0.7.0 playing every kubelet, the
real controllers. Each fault is made as it happens on a cluster, then undone, so the next test starts healthy:

* a node that publishes seven GPUs: an instance replaced, whose kubelet registers the Node with 7 ``nvidia.com/gpu``
  (kwok keeps what the Node object says, as a kubelet reports what its device plugin found);
* a NotReady node: kwok's own NotReady stage (kustomize/stage/node/chaos, node-not-ready, which the rehearsal's kwok
  runs: rehearsal/kwok.py), with the reason and message a kubelet whose network plugin is down reports. kwok v0.7.0
  plays every node's kubelet here (--manage-all-nodes, no node leases), and its node-initialize stage sets any node
  back to Ready at once, so a status patched from outside would not stay: its own stage is the way it reports a node
  NotReady;
* a node condition as the EKS node monitoring agent sets it: ``AcceleratedHardwareReady`` False with the agent's
  ``NvidiaXID79Error`` reason, written as the agent writes it (read the Node, upsert its condition, JSON merge patch
  of the status subresource: aws/eks-node-monitoring-agent v1.7.0 pkg/manager/node_exporter.go);
* a cordoned node: the real ``kubectl cordon`` (the kubectl the rehearsal's Kubernetes engine builds)."""

from __future__ import annotations

import copy
import subprocess
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from trainstack.doctor import nodes
from trainstack.doctor.finding import Finding
from trainstack.doctor.run import Diagnosis, doctor
from trainstack.kube.client import ApiError, Cluster
from trainstack.plan import Plan
from trainstack.rehearsal import engines, kwok
from trainstack.rehearsal.cluster import RehearsalCluster
from trainstack.rehearsal.nodes import node_object
from trainstack.rehearsal.run import DOCTOR_LEAVES_OUT

from .conftest import SHARED_REHEARSAL, settle

pytestmark = [pytest.mark.engines(*engines.REHEARSAL), SHARED_REHEARSAL]

XID_79 = "NvidiaXID79Error"
"""The agent's reason for NVIDIA's Xid 79, "GPU has fallen off the bus" (pkg/reasons/reasons.yaml: NvidiaXID%dError)."""


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _node(cluster: Cluster, name: str) -> dict[str, Any]:
    return cluster.get(f"/api/v1/nodes/{name}")


def _about(diagnosis: Diagnosis, node: str, count: int = 1) -> list[Finding]:
    """Doctor's ``count`` findings about ``node`` (the whole diagnosis shown where it has not as many)."""
    about = [f for f in diagnosis.findings if f.subject == f"node {node}"]
    assert len(about) == count, f"{len(about)} findings about node {node}, not {count}:\n{diagnosis.render_text()}"
    return about


def _ready_and_untainted(cluster: Cluster, name: str) -> Callable[[], bool]:
    def check() -> bool:
        try:
            node = _node(cluster, name)
        except ApiError:
            return False
        ready = any(c["type"] == "Ready" and c["status"] == "True" for c in node["status"].get("conditions", []))
        return ready and not any(t["key"] == kwok.NOT_READY_TAINT for t in node["spec"].get("taints") or [])
    return check


def _register(running: RehearsalCluster, obj: dict[str, Any]) -> None:
    """``obj`` joins as its kubelet registers it, and is Ready (kwok) and without the not-ready taint."""
    cluster = running.cluster
    kwok.schedulable(cluster, cluster.create(obj))
    cluster.wait_for(f"node {obj['metadata']['name']} Ready", _ready_and_untainted(cluster, obj["metadata"]["name"]),
                     timeout=60)


def _deleted(cluster: Cluster, name: str) -> None:
    cluster.request("DELETE", f"/api/v1/nodes/{name}")
    cluster.wait_for(f"node {name} gone", lambda: not _exists(cluster, name), timeout=60)


def _exists(cluster: Cluster, name: str) -> bool:
    try:
        _node(cluster, name)
        return True
    except ApiError as error:
        if error.status == 404:
            return False
        raise


def _doctor(running: RehearsalCluster, plan: Plan) -> Diagnosis:
    """Doctor as ``trainstack rehearse`` runs it on the cluster it built (no Helm release to read there)."""
    return doctor(plan, running.cluster, left_out=DOCTOR_LEAVES_OUT)


def test_doctor_says_healthy_on_the_healthy_rehearsal(kueue_p5: RehearsalCluster, kueue_p5_plan: Plan) -> None:
    settle(kueue_p5.cluster)
    diagnosis = _doctor(kueue_p5, kueue_p5_plan)
    assert diagnosis.healthy, diagnosis.render_text()
    assert diagnosis.summary().startswith("healthy: 3 node groups, 18 nodes, ")
    assert nodes.findings(kueue_p5_plan, kueue_p5.cluster) == []


def test_doctor_reads_and_never_writes(kueue_p5: RehearsalCluster, kueue_p5_plan: Plan,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    cluster = kueue_p5.cluster
    sent: list[tuple[str, str]] = []
    send = cluster.request

    def recorded(method: str, path: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        sent.append((method, path))
        return send(method, path, *args, **kwargs)

    monkeypatch.setattr(cluster, "request", recorded)
    doctor(kueue_p5_plan, cluster)  # every section the cluster holds, add-ons too
    assert ("GET", "/api/v1/nodes") in sent
    assert {method for method, _ in sent} == {"GET"}, [s for s in sent if s[0] != "GET"]


def test_a_node_that_publishes_seven_gpus_is_named_with_its_fix(kueue_p5: RehearsalCluster,
                                                                  kueue_p5_plan: Plan) -> None:
    cluster, name = kueue_p5.cluster, "p5-15"
    shape = kueue_p5.nodes.shapes["p5"]
    healthy = node_object(shape, 15)
    seven = copy.deepcopy(healthy)
    seven["status"]["capacity"]["nvidia.com/gpu"] = seven["status"]["allocatable"]["nvidia.com/gpu"] = "7"
    _deleted(cluster, name)  # the instance replaced: its successor's kubelet registers the same name
    try:
        _register(kueue_p5, seven)
        (gpus,) = _about(_doctor(kueue_p5, kueue_p5_plan), name)
        assert (gpus.expected, gpus.actual) == ("8 nvidia.com/gpu on each node (p5.48xlarge, in allocatable)", "7")
        assert f"kubectl drain {name} --ignore-daemonsets" in gpus.fix
        assert f"--field-selector spec.nodeName={name}" in gpus.fix
    finally:
        _deleted(cluster, name)
        _register(kueue_p5, healthy)
    assert _doctor(kueue_p5, kueue_p5_plan).healthy


def _not_ready(cluster: Cluster, name: str) -> Callable[[], bool]:
    return lambda: any(c["type"] == "Ready" and c["status"] == "False"
                       for c in _node(cluster, name)["status"]["conditions"])


def test_a_notready_node_is_named_with_its_kubelets_reason_and_the_fix(kueue_p5: RehearsalCluster,
                                                                       kueue_p5_plan: Plan) -> None:
    cluster, name = kueue_p5.cluster, "p5-14"
    reason, message = "KubeletNotReady", ("container runtime network not ready: NetworkReady=false "
                                          "reason:NetworkPluginNotReady message:cni plugin not initialized")
    stage = kwok.NOT_READY_LABEL
    # kwok's own NotReady stage, with the reason and message a kubelet whose network plugin is down reports.
    cluster.request("PATCH", f"/api/v1/nodes/{name}", {"metadata": {
        "labels": {stage: "true"},
        "annotations": {f"{stage}/reason": reason, f"{stage}/message": message}}}, "application/merge-patch+json")
    try:
        cluster.wait_for(f"node {name} NotReady", _not_ready(cluster, name), timeout=60)
        (ready,) = _about(_doctor(kueue_p5, kueue_p5_plan), name)
        assert ready.expected == "Ready True (its kubelet reporting, able to run pods)"
        assert ready.actual.startswith("Ready False since ") and ready.actual.endswith(f"({reason}: {message})")
        assert ready.fix == (f"EKS node auto repair (on for its group) acts on the kubelet's Ready condition; to see "
                             f"why: kubectl describe node {name}; to replace it now: kubectl drain {name} "
                             "--ignore-daemonsets --delete-emptydir-data, then terminate its instance")
    finally:
        cluster.request("PATCH", f"/api/v1/nodes/{name}", {"metadata": {
            "labels": {stage: None}, "annotations": {f"{stage}/reason": None, f"{stage}/message": None}}},
            "application/merge-patch+json")
    cluster.wait_for(f"node {name} Ready", _ready_and_untainted(cluster, name), timeout=60)
    assert _doctor(kueue_p5, kueue_p5_plan).healthy


def _agent_reports(cluster: Cluster, name: str, condition: dict[str, str] | None, kind: str) -> None:
    """What the node monitoring agent's exporter does: read the Node, put its condition in the list (or, to undo,
    take it out), and send the status as a JSON merge patch (controller-runtime's client.MergeFrom)."""
    node = _node(cluster, name)
    conditions = [c for c in node["status"]["conditions"] if c["type"] != kind]
    if condition is not None:
        conditions.append({"type": kind, "lastHeartbeatTime": _now(), "lastTransitionTime": _now(), **condition})
    cluster.patch_status(node, {"conditions": conditions})


def test_a_node_condition_the_monitoring_agent_sets_is_named_with_the_repair_and_the_fix(
        kueue_p5: RehearsalCluster, kueue_p5_plan: Plan) -> None:
    cluster, name, kind = kueue_p5.cluster, "p5-13", "AcceleratedHardwareReady"
    _agent_reports(cluster, name, {"status": "False", "reason": XID_79,
                                   "message": "Xid 79: GPU has fallen off the bus"}, kind)
    try:
        (hardware,) = _about(_doctor(kueue_p5, kueue_p5_plan), name)
        assert hardware.expected == "AcceleratedHardwareReady True (the EKS node monitoring agent's check)"
        assert "AcceleratedHardwareReady False since " in hardware.actual
        assert f"({XID_79}: Xid 79: GPU has fallen off the bus); auto repair due at " in hardware.actual
        assert "EKS node auto repair (on for its group) acts on AcceleratedHardwareReady" in hardware.fix
        assert f"kubectl drain {name} --ignore-daemonsets --delete-emptydir-data" in hardware.fix

        # EKS cordons a node it is about to repair: doctor says the repair is under way.
        cluster.request("PATCH", f"/api/v1/nodes/{name}", {"spec": {"unschedulable": True}},
                        "application/strategic-merge-patch+json", fieldManager="eks-node-repair")
        hardware, cordon = _about(_doctor(kueue_p5, kueue_p5_plan), name, 2)
        assert hardware.actual.endswith("; repair under way: EKS node auto repair cordoned it")
        assert f"AcceleratedHardwareReady False ({XID_79}): EKS node auto repair cordons a node it repairs" \
            in cordon.actual
        assert cordon.fix.startswith(f"let the repair finish (kubectl get node {name} -w)")
    finally:
        cluster.request("PATCH", f"/api/v1/nodes/{name}", {"spec": {"unschedulable": None}},
                        "application/strategic-merge-patch+json")
        _agent_reports(cluster, name, None, kind)
    assert _doctor(kueue_p5, kueue_p5_plan).healthy


def _kubectl(running: RehearsalCluster, *arguments: str) -> None:
    kubectl = engines.directory(engines.KUBERNETES) / "kubectl"
    subprocess.run([str(kubectl), f"--kubeconfig={running.plane.kubeconfig}", *arguments], check=True,
                   capture_output=True, text=True, timeout=60)


def test_a_cordoned_node_is_named_with_who_cordoned_it_and_the_fix(kueue_p5: RehearsalCluster,
                                                                   kueue_p5_plan: Plan) -> None:
    name = "p5-12"
    _kubectl(kueue_p5, "cordon", name)
    try:
        (cordon,) = _about(_doctor(kueue_p5, kueue_p5_plan), name)
        assert cordon.expected == "schedulable (the plan cordons no node)"
        assert cordon.actual.startswith("cordoned (spec.unschedulable) by kubectl")
        assert cordon.fix == (f"if what it was cordoned for is over: kubectl uncordon {name}; if it is to go: "
                              f"kubectl drain {name} --ignore-daemonsets --delete-emptydir-data")
    finally:
        _kubectl(kueue_p5, "uncordon", name)
    assert _doctor(kueue_p5, kueue_p5_plan).healthy
