"""The job controllers sized from the stack (issue 55): on frontier-p5 (2,048 p5.48xlarge) Kueue, JobSet and Trainer
get memory for what their caches hold, and the training and MPI operators, which ship no resources, get requests
and the MPI operator a client rate that creates a job's workers in 30 s; a small stack keeps every chart's and
manifest's own settings."""

import math

import pytest
from support.frontier_p5 import validated
from support.plan_records import record, stack_config
from trainstack.addons.operators import mpi_operator_sizing, training_operator_sizing
from trainstack.config.cluster_size import ClusterSize
from trainstack.config.controller_resources import (
    cluster_autoscaler_resources,
    jobset_controller_resources,
    kueue_manager_resources,
    mpi_operator_client_qps,
    mpi_operator_settings,
    trainer_manager_resources,
    training_operator_resources,
)
from trainstack.config.system_load import cluster_size_of

# What the real controllers held at peak in the 2,048-node rehearsal (bench/rehearse_time.py --frontier 2048,
# 2026-11-27, docs/guides/frontier-p5.md section 4), in MiB: each must fit in what the stack gives it.
REHEARSED_PEAK_MIB = {"kueue": 304, "jobset": 136, "trainer": 50}


def mebibytes(quantity: str) -> int:
    assert quantity.endswith("Mi"), quantity
    return int(quantity[:-2])


def trainer_values(document):
    [release] = [r for r in document["resources"] if "Release" in r["type"] and r["name"].endswith("-trainer")]
    return release["inputs"]["values"]


@pytest.fixture(scope="module")
def frontier():
    stack = validated(stack_config("frontier-p5"))
    return cluster_size_of(stack.eks.system_nodes, stack.node_groups)


@pytest.fixture(scope="module")
def frontier_trainer(tmp_path_factory):
    return trainer_values(record(tmp_path_factory.mktemp("frontier"), "frontier-p5"))


def test_frontier_p5_is_a_large_stack_of_2048_p5_and_its_system_nodes(frontier):
    assert frontier.large and frontier.nodes > 2048 and frontier.pods > 2048 * 8


def test_kueue_jobset_and_trainer_get_at_least_what_the_2048_node_rehearsal_measured(frontier):
    kueue = kueue_manager_resources(frontier)["requests"]["memory"]
    jobset = jobset_controller_resources(frontier)["requests"]["memory"]
    trainer = trainer_manager_resources(frontier)["requests"]["memory"]
    assert mebibytes(kueue) >= REHEARSED_PEAK_MIB["kueue"]
    assert mebibytes(jobset) >= REHEARSED_PEAK_MIB["jobset"]
    assert mebibytes(trainer) >= REHEARSED_PEAK_MIB["trainer"]


def test_jobsets_request_grows_with_every_cached_pod_and_its_limit_stays_the_charts_4gi(frontier):
    resources = jobset_controller_resources(frontier)
    expected = math.ceil((128 + frontier.pods * 8 / 1024) / 256) * 256
    assert resources == {"requests": {"cpu": "500m", "memory": f"{expected}Mi"},
                         "limits": {"cpu": "2", "memory": "4096Mi"}}
    # Beyond 4Gi the limit follows the request: 600,000 pods need 128 + 4,688 MiB.
    huge = jobset_controller_resources(ClusterSize(nodes=40000, pods=600000))
    assert huge["limits"]["memory"] == huge["requests"]["memory"] == "4864Mi"


def test_frontier_p5s_trainer_release_carries_trainers_and_jobsets_sizes(frontier_trainer, frontier):
    assert frontier_trainer["manager"]["resources"] == trainer_manager_resources(frontier)
    assert frontier_trainer["jobset"] == {"install": True,
                                          "controller": {"resources": jobset_controller_resources(frontier)}}


def test_trainer_grows_with_jobs_not_pods_one_trainjob_and_its_jobset_per_node():
    # 300Mi (the chart's example) + 2 objects x 2,054 nodes x 64 KiB = 557 MiB, in 256 MiB steps: 768Mi.
    assert trainer_manager_resources(ClusterSize(nodes=2054, pods=28932)) == {
        "requests": {"cpu": "100m", "memory": "768Mi"}, "limits": {"memory": "768Mi"}}
    assert trainer_manager_resources(ClusterSize(nodes=2054, pods=90000)) == \
        trainer_manager_resources(ClusterSize(nodes=2054, pods=28932))


def test_the_training_operator_caches_a_pod_and_a_service_per_worker():
    # 300Mi + 28,932 pods x 2 objects x 8 KiB = 752 MiB: 768Mi.
    assert training_operator_resources(ClusterSize(nodes=2054, pods=28932)) == {
        "requests": {"cpu": "100m", "memory": "768Mi"}, "limits": {"memory": "768Mi"}}


def test_the_mpi_operator_creates_a_job_spanning_every_node_in_30_seconds():
    assert mpi_operator_client_qps(ClusterSize(nodes=2054, pods=28932)) == 69
    assert mpi_operator_client_qps(ClusterSize(nodes=40, pods=6000)) == 5
    assert mpi_operator_client_qps(ClusterSize(nodes=100000, pods=900000)) == 500
    resources, flags = mpi_operator_settings(ClusterSize(nodes=2054, pods=28932))
    assert flags == ["--kube-api-qps=69", "--kube-api-burst=138"]
    # 300Mi + 28,932 pods x 8 KiB = 527 MiB: 768Mi.
    assert resources == {"requests": {"cpu": "100m", "memory": "768Mi"}, "limits": {"memory": "768Mi"}}


def test_a_small_stack_keeps_every_controllers_own_resources(tmp_path):
    small = ClusterSize(nodes=300, pods=5000)
    for sized in (kueue_manager_resources, jobset_controller_resources, trainer_manager_resources,
                  training_operator_resources, mpi_operator_settings):
        assert sized(small) is None and sized(None) is None
    assert training_operator_sizing(small) == [] and mpi_operator_sizing(small) == []
    values = trainer_values(record(tmp_path, "kueue-p5", lambda config: config["trainstack:operators"].update(
        trainer=True, trainingOperator=False)))
    assert "resources" not in values["manager"] and values["jobset"] == {"install": True}


def test_the_autoscaler_asks_a_core_and_memory_for_every_pod_and_node_on_a_large_stack_only(frontier, tmp_path):
    """Its FAQ: "request full 1 core ... for CA pod in a bigger clusters"; the EKS Best Practices Guide: it "stores
    all pods and nodes in memory". 300Mi, plus 8 KiB a Pod and 64 KiB a Node, in 256 MiB steps."""
    assert (frontier.nodes, frontier.pods) == (2052, 4 * 58 + 2048 * 14)
    assert cluster_autoscaler_resources(frontier) == {"requests": {"cpu": "1", "memory": "768Mi"}}
    assert cluster_autoscaler_resources(ClusterSize(nodes=10_000, pods=200_000)) == {
        "requests": {"cpu": "1", "memory": "2560Mi"}}
    small = {"requests": {"cpu": "100m", "memory": "300Mi"}}
    assert cluster_autoscaler_resources(ClusterSize(nodes=300, pods=5000)) == small
    assert cluster_autoscaler_resources(None) == small
    [release] = [r for r in record(tmp_path, "dev")["resources"]
                 if "Release" in r["type"] and r["name"].endswith("-autoscaler")]
    assert release["inputs"]["values"]["resources"] == small
