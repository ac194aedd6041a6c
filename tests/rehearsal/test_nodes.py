"""A rehearsal's nodes register as the stack's instances would: the library's node model's
allocatable (nodeadm's reservations, huge pages, the device plugins' resources), the catalog's
capacity, the group's labels and taints, and the labels EKS adds (zone, instance type, network
topology)."""

from __future__ import annotations

import functools

from support import rendered_jobs
from trainstack.controllers.cluster_autoscaler import installed_charts, managed_groups, running_node
from trainstack.plan import Plan
from trainstack.policy import stack_from_plan
from trainstack.policy.model import Stack
from trainstack.rehearsal.nodes import GroupShape, group_shapes, node_object


@functools.cache
def _stack(name: str) -> Stack:
    return stack_from_plan(Plan.from_dict(rendered_jobs.planned_record(name)))


def _shape(stack: str, group: str) -> GroupShape:
    return next(shape for shape in group_shapes(_stack(stack)) if shape.name == group)


def test_a_p5_node_registers_8_gpus_32_efa_interfaces_and_the_efa_huge_pages() -> None:
    node = node_object(_shape("fsdp-p5", "p5"), 0)
    allocatable = node["status"]["allocatable"]
    assert allocatable["nvidia.com/gpu"] == "8" and allocatable["vpc.amazonaws.com/efa"] == "32"
    assert allocatable["hugepages-2Mi"] == str(5120 * 2**20)
    assert node["status"]["capacity"]["cpu"] == "192" and node["status"]["capacity"]["memory"] == "2048Gi"
    assert node["spec"]["taints"] == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]


def test_allocatable_is_the_library_models_running_node_not_a_second_formula() -> None:
    stack = _stack("trn1")
    (group,) = [g for g in managed_groups(stack) if g.name == "trn1"]
    model = running_node(group, installed_charts(stack))
    node = node_object(_shape("trn1", "trn1"), 0)
    assert node["status"]["allocatable"]["memory"] == str(int(model.allocatable["memory"]))
    assert node["status"]["allocatable"]["cpu"] == f"{int(model.allocatable['cpu'] * 1000)}m"
    assert node["status"]["allocatable"]["aws.amazon.com/neuroncore"] == "32"


def test_nodes_carry_the_zone_instance_type_and_three_network_layers_of_a_p5() -> None:
    labels = node_object(_shape("kueue-p5", "p5"), 3)["metadata"]["labels"]
    assert labels["kubernetes.io/hostname"] == "p5-3"
    assert labels["node.kubernetes.io/instance-type"] == "p5.48xlarge"
    assert labels["topology.kubernetes.io/zone"].startswith("us-east-1")
    layers = sorted(key for key in labels if key.startswith("topology.k8s.aws/network-node-layer-"))
    assert layers == [f"topology.k8s.aws/network-node-layer-{n}" for n in (1, 2, 3)]
    assert labels["trainstack.io/node-group"] == "p5"


def test_a_group_below_its_maximum_is_registered_at_its_desired_size_and_grows_on_the_autoscalers_template() -> None:
    shape = _shape("fsdp-p5", "p5")
    assert (shape.desired, shape.maximum) == (2, 16)
    assert shape.template is not None  # the Cluster Autoscaler may grow it
    assert _shape("trn1", "trn1").template is None  # at its maximum already: nothing to grow
    assert _shape("kueue-p5", "p5").template is None  # the whole reservation runs


def test_system_nodes_have_no_devices_and_hyperpod_nodes_carry_the_health_label() -> None:
    system = node_object(_shape("fsdp-p5", "system"), 0)["status"]["allocatable"]
    assert "nvidia.com/gpu" not in system and system["hugepages-2Mi"] == "0"
    hyperpod = _shape("hyperpod-eks", "gpu")
    assert hyperpod.kind == "HyperPod instance group"
    assert node_object(hyperpod, 0)["metadata"]["labels"]["sagemaker.amazonaws.com/node-health-status"] == (
        "Schedulable")
