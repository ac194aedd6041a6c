"""The device check of `trainstack preflight nodes` (preflight/node_devices.py): each accelerated group of the
outputs contract judged on one reading of its nodes, as `trainstack up`'s wait judges them, with the catalog's counts;
the node count from the stack file where there is one. Against the real kube-apiserver:
tests/engines/test_device_wait.py."""

from pathlib import Path

import pytest
from support.rendered_jobs import planned_record
from trainstack.config.device_wait import device_needs
from trainstack.names import NODE_GROUP_LABEL
from trainstack.outputs import parse_outputs
from trainstack.preflight import verdict
from trainstack.preflight.devices import read_group
from trainstack.preflight.node_devices import check_devices, needs_from_outputs
from trainstack.preflight.node_preflight import CLUSTER

REPO = Path(__file__).resolve().parents[2]


def node(name, group, allocatable):
    return {"metadata": {"name": name, "labels": {NODE_GROUP_LABEL: group}}, "status": {"allocatable": allocatable}}


def outputs_of(stack):
    return parse_outputs(planned_record(stack)["outputs"])


@pytest.mark.parametrize("stack", ["fsdp-p5", "b200-dra", "trn1", "dev"])
def test_the_outputs_give_each_group_what_up_waits_for(stack):
    """One derivation: the needs read from a stack's outputs are the ones `trainstack up` waits for."""
    from trainstack.analysis import stack_config
    from trainstack.plan import find_project, load_stack

    config = stack_config(load_stack(find_project(REPO), stack))
    expected = device_needs(config.node_groups)
    counts = {need.group: need.nodes for need in expected}
    assert sorted(needs_from_outputs(outputs_of(stack), counts), key=lambda n: n.group) == sorted(
        expected, key=lambda n: n.group)


def p5_reading(*nodes, count=2):
    (need,) = needs_from_outputs(outputs_of("fsdp-p5"), {"p5": count})
    return read_group(need, list(nodes), [])


def test_a_node_short_of_a_gpu_fails_naming_the_node_and_the_device():
    whole = node("ip-1", "p5", {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"})
    short = node("ip-2", "p5", {"nvidia.com/gpu": "7", "vpc.amazonaws.com/efa": "32"})
    (check,) = check_devices([p5_reading(whole, short)], "")
    assert check.status == "fail" and check.subject == "p5 (p5.48xlarge)"
    assert check.reason.startswith("node ip-2 shows 7 of 8 nvidia.com/gpu (each must show 8 nvidia.com/gpu, "
                                   "32 vpc.amazonaws.com/efa in allocatable)")
    assert verdict([check], True, CLUSTER) == "1 check failed"


def test_every_node_whole_and_joined_passes():
    nodes = [node(f"ip-{i}", "p5", {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"}) for i in range(2)]
    (check,) = check_devices([p5_reading(*nodes)], "")
    assert check.status == "pass"
    assert check.reason.startswith("2 nodes show 8 nvidia.com/gpu, 32 vpc.amazonaws.com/efa each in allocatable; "
                                   "2 nodes expected (desiredSize)")
    assert "fabric manager: not checked" in check.reason  # H100: NVSwitch


def test_a_group_with_fewer_nodes_than_its_desired_size_fails_and_without_a_count_it_is_said_unchecked():
    whole = node("ip-1", "p5", {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"})
    (check,) = check_devices([p5_reading(whole, count=2)], "")
    assert check.status == "fail" and check.reason.startswith("1 of 2 nodes have not joined")
    (uncounted,) = check_devices([p5_reading(whole, count=0)], "no stack file")
    assert uncounted.status == "pass" and "node count not checked: no stack file" in uncounted.reason


def test_a_group_with_no_node_and_none_expected_could_not_be_checked():
    (check,) = check_devices([p5_reading(count=0)], "")
    assert check.status == "could-not-check"
    assert f"none labelled {NODE_GROUP_LABEL}=p5" in check.reason


def test_a_dra_group_is_judged_by_its_resource_slices():
    (need,) = needs_from_outputs(outputs_of("b200-dra"), {})
    assert need.allocation == "dra" and set(need.devices) == {"gpu.nvidia.com", "dra.net"}
    slices = [{"spec": {"nodeName": "ip-9", "driver": driver, "pool": {"name": "ip-9", "generation": 1},
                        "devices": [{"name": f"d{i}"} for i in range(count)]}}
              for driver, count in (("gpu.nvidia.com", 8), ("dra.net", 7))]
    reading = read_group(need, [node("ip-9", need.node_selector[NODE_GROUP_LABEL], {})], slices)
    (check,) = check_devices([reading], "")
    assert check.status == "fail" and "node ip-9 shows 7 of 8 dra.net" in check.reason
    assert "in ResourceSlices (DRA)" in check.reason
