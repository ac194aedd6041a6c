"""What a group's nodes must offer in 2 MiB huge pages is what the launchers' pods on it request: read from
every job every launcher renders for the stack (PyTorchJob, MPIJob, TrainJob, the validation jobs, HyperPod's
PyTorchJob), never from a copy of the figure."""

from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from support.rendered_jobs import jobs_for, outputs_for
from trainstack.catalog import HUGEPAGES_RESOURCE
from trainstack.launch.node_needs import hugepages_needs


def requested(document: Any) -> Iterator[str]:
    """Every hugepages-2Mi request anywhere in a rendered job: pod containers and a TrainJob's resourcesPerNode."""
    if isinstance(document, Mapping):
        requests = document.get("requests")
        if isinstance(requests, Mapping) and HUGEPAGES_RESOURCE in requests:
            yield requests[HUGEPAGES_RESOURCE]
        for value in document.values():
            yield from requested(value)
    elif isinstance(document, list):
        for value in document:
            yield from requested(value)


@pytest.mark.parametrize("stack", ["fsdp-p5", "trn1", "hyperpod-eks-dev", "p5-without-efa", "kueue-p5"])
def test_each_groups_need_is_what_every_job_rendered_on_it_requests_and_groups_without_efa_need_none(stack):
    outputs = outputs_for(stack)
    needs = {need.group: need for need in hugepages_needs(outputs)}
    by_group: dict[str, set[str]] = {}
    for job in jobs_for(outputs):
        by_group.setdefault(job.group, set()).update(requested(job.document))
    assert by_group, f"{stack}: no job rendered"
    for group, requests in by_group.items():
        assert requests == ({needs[group].request} if group in needs else set()), (stack, group)
    assert set(needs) <= set(by_group)


def test_efa_groups_need_huge_pages_selected_as_their_pods_select_nodes():
    (need,) = hugepages_needs(outputs_for("fsdp-p5"))
    group = outputs_for("fsdp-p5").accelerated_groups["p5"]
    assert (need.group, need.instance_type, need.node_selector, need.hyperpod) == (
        "p5", "p5.48xlarge", group.node_selector, False)


def test_a_hyperpod_eks_instance_group_is_marked_as_hyperpods():
    (need,) = hugepages_needs(outputs_for("hyperpod-eks-dev"))
    assert (need.group, need.instance_type, need.hyperpod) == ("gpu", "ml.p5.48xlarge", True)


def test_a_group_without_efa_needs_none():
    assert hugepages_needs(outputs_for("p5-without-efa")) == []
