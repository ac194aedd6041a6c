"""Doctor's judgement of nodes against the plan, on the Node objects and ResourceSlices the rehearsal registers for
each shipped stack (rehearsal.nodes.node_object, rehearsal.dra.resource_slices: the library's own model of a running
node), each then changed as a cluster changes. The live API server's side is tests/doctor/test_nodes.py's."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from support.rendered_jobs import SHIPPED_STACKS, planned_record
from trainstack.doctor.finding import Finding
from trainstack.doctor.groups import planned_groups, where
from trainstack.doctor.nodes import judge
from trainstack.plan import Plan
from trainstack.policy import stack_from_plan
from trainstack.rehearsal import dra
from trainstack.rehearsal.nodes import group_shapes, node_object

READY = {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-29T09:00:00Z"}


def _registered(stack: str) -> tuple[Plan, list[dict[str, Any]], list[dict[str, Any]]]:
    """The stack's plan, and its nodes and DRA ResourceSlices as they register at each group's desired size."""
    plan = Plan.from_dict(planned_record(stack))
    nodes, slices = [], []
    for shape in group_shapes(stack_from_plan(plan)):
        for index in range(shape.desired):
            node = node_object(shape, index)
            node["metadata"]["uid"] = f"uid-{node['metadata']['name']}"  # what the API server adds on create
            node["status"]["conditions"] = [dict(READY)]
            nodes.append(node)
            slices += dra.resource_slices(node, shape.devices)
    return plan, nodes, slices


def _judged(plan: Plan, nodes: list[dict[str, Any]], slices: list[dict[str, Any]] | None = None) -> list[Finding]:
    return judge(planned_groups(plan), nodes, slices or [], where(plan))


def _named(nodes: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(node for node in nodes if node["metadata"]["name"] == name)


@pytest.mark.parametrize("stack", SHIPPED_STACKS)
def test_each_shipped_stacks_nodes_as_they_register_are_healthy(stack: str) -> None:
    plan, nodes, slices = _registered(stack)
    assert _judged(plan, nodes, slices) == []


def test_a_group_short_of_its_desired_size_names_the_node_groups_health_command() -> None:
    plan, nodes, _ = _registered("kueue-p5")
    kept = [n for n in nodes if n["metadata"]["name"] not in ("p5-3", "p5-9")]
    (short,) = _judged(plan, kept)
    assert (short.subject, short.expected, short.actual) == (
        "node group p5", "16 nodes of p5.48xlarge (desiredSize 16, minSize 16)", "14 (14 Ready); below minSize")
    assert short.fix == (
        "read why EKS has not launched them: aws eks describe-nodegroup --cluster-name trainstack-kueue-p5 "
        "--region us-east-1 --nodegroup-name \"$(aws eks list-nodegroups --cluster-name trainstack-kueue-p5 "
        "--region us-east-1 --query \"nodegroups[?starts_with(@, 'kueue-p5-eks-p5')] | [0]\" --output text)\" "
        "--query 'nodegroup.[status,health]'")


def test_a_karpenter_pool_has_no_count_to_hold_and_its_nodes_are_judged_as_they_come() -> None:
    plan, nodes, _ = _registered("kueue-p5")
    assert not any(n["metadata"]["labels"]["trainstack.io/node-group"] == "dev" for n in nodes)
    assert _judged(plan, nodes) == []
    (dev,) = [s for s in group_shapes(stack_from_plan(plan)) if s.name == "dev"]
    launched = node_object(dev, 0)
    launched["status"]["conditions"] = [dict(READY)]
    launched["status"]["allocatable"].pop("nvidia.com/gpu")
    (gpu,) = _judged(plan, [*nodes, launched])
    assert (gpu.subject, gpu.expected, gpu.actual) == (
        "node dev-0", "1 nvidia.com/gpu on each node (g6.xlarge, in allocatable)", "0")


def test_many_nodes_short_of_a_device_are_one_finding_naming_the_first_five() -> None:
    plan, nodes, _ = _registered("kueue-p5")
    for node in nodes:
        if node["metadata"]["labels"]["trainstack.io/node-group"] == "p5":
            node["status"]["allocatable"]["vpc.amazonaws.com/efa"] = "0"
    (efa,) = _judged(plan, nodes)
    assert (efa.subject, efa.expected) == ("node group p5", "32 vpc.amazonaws.com/efa on each node (p5.48xlarge, "
                                                            "in allocatable)")
    assert efa.actual == "less on 16 nodes: p5-0 0, p5-1 0, p5-2 0, p5-3 0, p5-4 0 and 11 more"


def test_a_dra_node_whose_driver_publishes_fewer_devices_is_named() -> None:
    plan, nodes, slices = _registered("b200-dra")
    first = "b200-0"
    gpu_slice = next(s for s in slices if s["spec"]["nodeName"] == first and s["spec"]["driver"] == "gpu.nvidia.com")
    gpu_slice["spec"]["devices"].pop()
    (short,) = _judged(plan, nodes, slices)
    assert short.subject == f"node {first}" and short.actual == "7"
    assert short.expected.startswith("8 gpu.nvidia.com on each node (p6-b200.48xlarge, in its DRA ResourceSlices)")


def test_huge_pages_fewer_than_the_efa_pods_request_are_named() -> None:
    plan, nodes, _ = _registered("kueue-p5")
    _named(nodes, "p5-2")["status"]["allocatable"]["hugepages-2Mi"] = "2Gi"
    (pages,) = _judged(plan, nodes)
    assert (pages.subject, pages.actual) == ("node p5-2", "2Gi")
    assert pages.expected == ("at least 5120Mi of hugepages-2Mi on each node (what each of the group's EFA pods "
                              "requests)")


def test_a_rendered_label_or_taint_gone_and_a_taint_the_plan_does_not_render_are_named_with_the_kubectl_fix() -> None:
    plan, nodes, _ = _registered("kueue-p5")
    node = _named(nodes, "p5-7")
    del node["metadata"]["labels"]["trainstack.io/accelerator"]
    del node["metadata"]["labels"]["topology.k8s.aws/network-node-layer-3"]
    node["spec"]["taints"] = [{"key": "example.com/maintenance", "value": "true", "effect": "NoExecute"}]
    label, topology, gone, extra = _judged(plan, nodes)
    assert (label.subject, label.expected, label.actual) == ("node p5-7", "label trainstack.io/accelerator="
                                                             "nvidia-gpu (rendered)", "none")
    assert label.fix == "kubectl label nodes p5-7 trainstack.io/accelerator=nvidia-gpu --overwrite"
    assert topology.expected == ("label topology.k8s.aws/network-node-layer-3 (EKS's network topology for "
                                 "p5.48xlarge)")
    assert gone.fix == "kubectl taint nodes p5-7 nvidia.com/gpu=true:NoSchedule --overwrite"
    assert (extra.expected, extra.actual) == ("no taint example.com/maintenance=true:NoExecute (the plan renders "
                                              "none)", "present")
    assert extra.fix == "if nothing needs it any more: kubectl taint nodes p5-7 example.com/maintenance=true:NoExecute-"


def test_nodes_of_a_group_the_plan_does_not_have_are_named() -> None:
    plan, nodes, _ = _registered("kueue-p5")
    stray = copy.deepcopy(_named(nodes, "system-0"))
    stray["metadata"]["name"], stray["metadata"]["labels"]["trainstack.io/node-group"] = "old-0", "old"
    (old,) = _judged(plan, [*nodes, stray])
    assert (old.subject, old.actual) == ("node group old", "1 node labelled trainstack.io/node-group=old")


def test_a_kubelet_pressure_condition_is_named() -> None:
    plan, nodes, _ = _registered("kueue-p5")
    _named(nodes, "system-1")["status"]["conditions"].append(
        {"type": "DiskPressure", "status": "True", "reason": "KubeletHasDiskPressure",
         "message": "kubelet has disk pressure", "lastTransitionTime": "2026-11-29T09:30:00Z"})
    (disk,) = _judged(plan, nodes)
    assert (disk.subject, disk.expected) == ("node system-1", "DiskPressure False")
    assert disk.actual == ("DiskPressure True since 2026-11-29T09:30:00Z (KubeletHasDiskPressure: kubelet has disk "
                           "pressure)")


def test_a_node_being_replaced_says_so() -> None:
    plan, nodes, _ = _registered("kueue-p5")
    node = _named(nodes, "p5-1")
    node["metadata"]["deletionTimestamp"] = "2026-11-29T09:40:00Z"
    node["spec"]["providerID"] = "aws:///us-east-1a/i-0123456789abcdef0"
    node["status"]["conditions"] = [{"type": "AcceleratedHardwareReady", "status": "False",
                                     "reason": "NvidiaXID79Error", "lastTransitionTime": "2026-11-29T09:30:00Z"},
                                    dict(READY)]
    (hardware,) = _judged(plan, nodes)
    assert hardware.actual.endswith("; being deleted since 2026-11-29T09:40:00Z (its instance replaced)")
    assert hardware.fix.endswith("kubectl drain p5-1 --ignore-daemonsets --delete-emptydir-data && aws ec2 "
                                 "terminate-instances --instance-ids i-0123456789abcdef0")
