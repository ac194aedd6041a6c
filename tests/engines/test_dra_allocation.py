"""A DRA group's job as the real Kubernetes controllers and scheduler (v1.35.4) treat it: the device check
`trainstack launch device-check` renders for the shipped stack b200-dra (its ResourceClaimTemplate, then its Job)
runs on nodes whose devices are published the way the pinned drivers publish them, and nothing of trainstack's
stands in between:

* kube-controller-manager's job controller makes the pods, and its resourceclaim controller makes each pod's
  ResourceClaim from the template;
* kube-scheduler's DRA plugin allocates each claim from the node's ResourceSlices through the drivers' DeviceClasses,
  and binds the pod.

The DeviceClasses and the slices are the rehearsal's (``trainstack.rehearsal.dra``: the pinned charts' selectors and
the attributes the drivers publish, with their sources); each node also publishes its ENA interface, which the EFA
class must not select. No DRA driver runs here (no GPU, no kubelet): the slices are what their kubelet plugins would
publish, and that is all of the drivers this test stands in for."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from support import rendered_jobs
from trainstack.catalog.device_allocation import EFA, GPU
from trainstack.kube.client import Cluster
from trainstack.launch.claims import documents
from trainstack.launch.validation import render_device_check
from trainstack.names import NODE_GROUP_LABEL
from trainstack.plan import Plan
from trainstack.policy import stack_from_plan
from trainstack.rehearsal import dra, engines
from trainstack.rehearsal.control_plane import control_plane
from trainstack.rehearsal.nodes import group_shapes, node_object

pytestmark = pytest.mark.engines(engines.KUBERNETES)

STACK, GROUP = "b200-dra", "b200"
NAMESPACE = "dra-check"
EFA_DRIVER = "dra.net"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """etcd, kube-apiserver, kube-scheduler and kube-controller-manager (its node lifecycle controller off: no
    kubelet heartbeats here), with the drivers' DeviceClasses and the job's namespace."""
    with control_plane(["default-scheduler"], controller_manager=True, node_lifecycle=False) as plane:
        for device_class in dra.device_classes([GPU.device_class, EFA.device_class]):
            plane.cluster.create(device_class)
        plane.cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
        yield plane.cluster


def register(cluster: Cluster, index: int) -> dict[str, Any]:
    """The group's ``index``-th node as its kubelet registers it (labels, taints, allocatable)."""
    shape = next(s for s in group_shapes(stack_from_plan(Plan.from_dict(rendered_jobs.planned_record(STACK))))
                 if s.name == GROUP)
    node = node_object(shape, index)
    created = cluster.create({k: v for k, v in node.items() if k != "status"})
    cluster.patch_status(created, node["status"])
    # The TaintNodesByCondition admission plugin registers a node with the not-ready taint, which the node
    # lifecycle controller lifts once the kubelet reports Ready; neither runs here, so the test lifts it.
    cluster.request("PATCH", f"/api/v1/nodes/{created['metadata']['name']}",
                    {"spec": {"taints": node["spec"].get("taints")}}, "application/merge-patch+json")
    assert created["metadata"]["labels"][NODE_GROUP_LABEL] == GROUP
    return created


def publish(cluster: Cluster, node: dict[str, Any], gpus: int, efa_interfaces: int) -> str:
    """The node's ResourceSlices as the two kubelet plugins publish them; the node's name."""
    for published in dra.resource_slices(node, {GPU.device_class: gpus, EFA.device_class: efa_interfaces}):
        cluster.create(published)
    return str(node["metadata"]["name"])


def apply_device_check(cluster: Cluster, name: str, nodes: int) -> list[dict[str, Any]]:
    """What `trainstack launch device-check --group b200` prints, applied in order."""
    outputs = rendered_jobs.outputs_of(STACK)
    job = render_device_check(outputs, name=name, group_name=GROUP, nodes=nodes, image=rendered_jobs.IMAGE)
    applied = []
    for document in documents(outputs, GROUP, job):
        document = copy.deepcopy(document)
        document["metadata"]["namespace"] = NAMESPACE
        cluster.create_unless_there(document)  # the template a job before this one applied is kept
        applied.append(document)
    return applied


def pods_of(cluster: Cluster, job: str) -> list[dict[str, Any]]:
    return cluster.list("v1", "Pod", NAMESPACE, labelSelector=f"job-name={job}")


def claim_of(cluster: Cluster, pod: dict[str, Any]) -> dict[str, Any]:
    generated = pod["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    return cluster.get(f"/apis/resource.k8s.io/v1/namespaces/{NAMESPACE}/resourceclaims/{generated}")


@pytest.fixture(scope="module")
def two_nodes(cluster: Cluster) -> list[str]:
    """Two p6-b200 nodes, each with its 8 GPUs and 8 EFA interfaces (and its ENA interface) published."""
    return [publish(cluster, register(cluster, index), gpus=8, efa_interfaces=8) for index in range(2)]


def test_each_device_check_pod_gets_its_nodes_8_gpus_and_8_efa_interfaces_from_the_real_scheduler(
        cluster: Cluster, two_nodes: list[str]) -> None:
    apply_device_check(cluster, "all-devices", nodes=2)
    cluster.wait_for("both pods bound", lambda: len(pods := pods_of(cluster, "all-devices")) == 2
                     and all(p["spec"].get("nodeName") for p in pods), timeout=90)
    pods = pods_of(cluster, "all-devices")
    assert sorted(p["spec"]["nodeName"] for p in pods) == sorted(two_nodes)
    for pod in pods:
        allocated = claim_of(cluster, pod)["status"]["allocation"]["devices"]["results"]
        by_request = {request: sorted(r["device"] for r in allocated if r["request"] == request)
                      for request in {r["request"] for r in allocated}}
        assert by_request == {"gpus": sorted(f"gpu-{i}" for i in range(8)),
                              "efa": sorted(f"efa-{i}" for i in range(8))}
        assert {r["pool"] for r in allocated} == {pod["spec"]["nodeName"]}
        assert {r["driver"] for r in allocated if r["request"] == "efa"} == {EFA_DRIVER}


def test_a_node_that_publishes_7_of_its_8_gpus_takes_no_device_check_pod(cluster: Cluster, two_nodes: list[str]
                                                                         ) -> None:
    """A third node short of one GPU: a 3-node check leaves one pod Pending, with the scheduler's reason."""
    short = publish(cluster, register(cluster, 2), gpus=7, efa_interfaces=8)
    remove_job(cluster, "all-devices")
    apply_device_check(cluster, "three-nodes", nodes=3)
    cluster.wait_for("two pods bound, one unschedulable", lambda: _bound_and_unschedulable(cluster) == (2, 1),
                     timeout=90)
    pending = next(p for p in pods_of(cluster, "three-nodes") if not p["spec"].get("nodeName"))
    reason = next(c for c in pending["status"]["conditions"] if c["type"] == "PodScheduled")["message"]
    assert "1 cannot allocate all claims" in reason, reason
    bound = {p["spec"]["nodeName"] for p in pods_of(cluster, "three-nodes") if p["spec"].get("nodeName")}
    assert short not in bound


def remove_job(cluster: Cluster, job: str) -> None:
    """The job and its pods gone, and with them their claims and the devices they held. A bound pod waits for its
    kubelet to confirm it stopped, and there is none: the pods are deleted at once, as `kubectl delete --force`."""
    cluster.delete({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": job, "namespace": NAMESPACE}},
                   propagationPolicy="Background")
    for pod in pods_of(cluster, job):
        cluster.request("DELETE", f"/api/v1/namespaces/{NAMESPACE}/pods/{pod['metadata']['name']}",
                        gracePeriodSeconds="0")
    cluster.wait_for(f"{job}'s claims gone", lambda: not cluster.list("resource.k8s.io/v1", "ResourceClaim", NAMESPACE),
                     timeout=90)


def _bound_and_unschedulable(cluster: Cluster) -> tuple[int, int]:
    pods = pods_of(cluster, "three-nodes")
    bound = sum(1 for p in pods if p["spec"].get("nodeName"))
    unschedulable = sum(1 for p in pods if any(c["type"] == "PodScheduled" and c.get("reason") == "Unschedulable"
                                               for c in p["status"].get("conditions", [])))
    return bound, unschedulable
