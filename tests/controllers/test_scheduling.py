"""kube-scheduler's filters as the models apply them: quantities, requests, nodeSelector, taints."""

from fractions import Fraction

import pytest
from trainstack.controllers.scheduling import Node, Taint, pod_requests, pod_specs, unfit_reasons
from trainstack.kube.quantity import quantity


@pytest.mark.parametrize(("text", "value"), [
    ("5120Mi", 5120 * 2**20), ("1740Gi", 1740 * 2**30), ("100m", Fraction(1, 10)), ("8", 8), ("1.5", Fraction(3, 2)),
    ("2k", 2000), ("1e3", 1000), ("64Gi", 64 * 2**30),
])
def test_quantities_read_as_the_api_server_reads_them(text, value):
    assert quantity(text) == value


def test_a_quantity_with_an_unknown_suffix_is_refused():
    with pytest.raises(ValueError, match="unknown suffix 'Xi'"):
        quantity("5Xi")


def test_a_container_with_limits_only_requests_its_limits_and_containers_add_up():
    pod = {"containers": [{"resources": {"limits": {"nvidia.com/gpu": "8"}}},
                          {"resources": {"requests": {"memory": "1Gi"}, "limits": {"memory": "2Gi"}}},
                          {"resources": {"requests": {"memory": "1Gi"}}}]}
    assert pod_requests(pod) == {"nvidia.com/gpu": 8, "memory": 2 * 2**30}


NODE = Node("n", labels={"group": "p5"}, taints=[Taint("nvidia.com/gpu", "true", "NoSchedule"),
                                                 Taint("soft", "", "PreferNoSchedule")],
            allocatable={"pods": Fraction(1), "nvidia.com/gpu": Fraction(8), "memory": Fraction(2**40)})
FITS = {"nodeSelector": {"group": "p5"}, "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists",
                                                          "effect": "NoSchedule"}],
        "containers": [{"resources": {"limits": {"nvidia.com/gpu": "8", "memory": "1Ti"}}}]}


def test_a_pod_within_allocatable_selecting_the_nodes_labels_and_tolerating_its_taints_fits():
    assert unfit_reasons(FITS, NODE) == []


def test_a_resource_the_node_lacks_is_reported_with_both_amounts():
    pod = {**FITS, "containers": [{"resources": {"limits": {"hugepages-2Mi": "5120Mi"}}}]}
    assert unfit_reasons(pod, NODE) == ["requests 5120Mi hugepages-2Mi, the node has 0Mi"]


def test_a_selector_the_node_does_not_carry_is_reported():
    assert unfit_reasons({**FITS, "nodeSelector": {"group": "p4de"}}, NODE) == [
        "selects group=p4de, the node has group=p5"]
    assert unfit_reasons({**FITS, "nodeSelector": {"zone": "a"}}, NODE) == [
        "selects zone=a, the node has no such label"]


@pytest.mark.parametrize(("tolerations", "fits"), [
    ([{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true"}], True),
    ([{"key": "nvidia.com/gpu", "operator": "Equal", "value": "false"}], False),
    ([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"}], False),
    ([{"operator": "Exists"}], True),
    ([], False),
])
def test_no_schedule_taints_need_a_matching_toleration_prefer_no_schedule_does_not(tolerations, fits):
    assert (unfit_reasons({**FITS, "tolerations": tolerations}, NODE) == []) is fits


def test_pod_templates_are_found_in_every_job_kind_and_none_in_a_script():
    job = {"spec": {"template": {"spec": {"containers": [1]}}}}
    mpijob = {"spec": {"mpiReplicaSpecs": {"Launcher": {"template": {"spec": {"containers": [1]}}},
                                           "Worker": {"template": {"spec": {"containers": [2]}}}}}}
    assert [p["containers"] for p in pod_specs(job)] == [[1]]
    assert [p["containers"] for p in pod_specs(mpijob)] == [[1], [2]]
    assert list(pod_specs("#!/bin/bash\nsrun python train.py")) == []
