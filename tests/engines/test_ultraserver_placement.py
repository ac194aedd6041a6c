"""The real kube-scheduler keeps an MPIJob's workers inside one Trn2 UltraServer (launch/ultraserver.py): eight
trn2u nodes in two units (the Neuron device plugin's ``neuron.amazonaws.com/ultraserver-server-id-4``), two nodes
of each unit with far more free memory than the others. Left to its scores the scheduler would pick those four,
two units; the unit affinity puts all four workers in one unit. Pods as the MPI operator makes them
(support/operator_pods.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.control_plane import Cluster
from support.engine_cluster import ensure_namespace, scheduling_message
from support.operator_pods import pods_of
from trainstack.launch import render_mpijob
from trainstack.names import NEURON_ULTRASERVER_LABEL, NODE_GROUP_LABEL
from trainstack.outputs import parse_outputs
from trainstack.rehearsal import engines

pytestmark = pytest.mark.engines(engines.KUBERNETES)

RECORDED = Path(__file__).resolve().parents[1] / "data" / "outputs"
GROUP = "trn2u-units"
"""A group name no other engine test labels nodes with (they share one API server)."""
TAINTS = [{"key": "aws.amazon.com/neuron", "value": "true", "effect": "NoSchedule"}]
"""The Neuron group's taint, which its pods tolerate."""


def outputs() -> Any:
    document = json.loads((RECORDED / "trn1.json").read_text())["trainstack"]
    group = document["acceleratedGroups"].pop("trn1")
    group.update(instanceType="trn2u.48xlarge", maxNodes=8, nodeSelector={NODE_GROUP_LABEL: GROUP})
    document["acceleratedGroups"][GROUP] = group
    document["storage"] = None  # no file system here: its claim would keep the pods from binding
    return parse_outputs(document)


def workers(job: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in pods_of(job) if "-worker-" in p["metadata"]["name"]]


@pytest.fixture
def units(cluster: Cluster) -> Iterator[dict[str, str]]:
    """Node name -> unit; in each unit two nodes with 4 TiB of memory free and two with just enough."""
    job = render_mpijob(outputs(), name="probe", group_name=GROUP, nodes=1, image="img:1", command=["true"])
    requests = job["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["resources"]["requests"]
    made, where = [], {}
    for unit in ("unit-a", "unit-b"):
        for index in range(4):
            name = f"{unit}-{index}"
            memory = "4096Gi" if index < 2 else requests["memory"]
            node = cluster.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
                NODE_GROUP_LABEL: GROUP, NEURON_ULTRASERVER_LABEL: unit, "kubernetes.io/hostname": name}},
                "spec": {"taints": TAINTS}})
            shown = {**requests, "memory": memory, "cpu": "192", "pods": "50"}
            made.append(cluster.patch_status(node, {"capacity": shown, "allocatable": shown}))
            # Registration adds the not-ready taint the node lifecycle controller would lift; lift it here.
            cluster.patch(made[-1], {"spec": {"taints": TAINTS}})
            where[name] = unit
    try:
        yield where
    finally:
        for node in made:
            cluster.delete(node)


def place(cluster: Cluster, pods: list[dict[str, Any]]) -> dict[str, str]:
    for pod in pods:
        ensure_namespace(cluster, pod["metadata"]["namespace"])
        cluster.create(pod)

    def bound() -> dict[str, str] | None:
        found = {p["metadata"]["name"]: cluster.get(
            f"/api/v1/namespaces/{p['metadata']['namespace']}/pods/{p['metadata']['name']}")["spec"].get("nodeName")
            for p in pods}
        return found if all(found.values()) else None
    try:
        return cluster.wait_for("the scheduler to bind the workers", bound, 60)
    except TimeoutError:
        first = pods[0]["metadata"]
        pod = cluster.get(f"/api/v1/namespaces/{first['namespace']}/pods/{first['name']}")
        raise AssertionError(f"not bound: {scheduling_message(pod)}") from None
    finally:
        for pod in pods:
            cluster.delete(pod, gracePeriodSeconds="0")


def test_a_four_node_job_lands_inside_one_unit(cluster, units):
    job = render_mpijob(outputs(), name="llama", group_name=GROUP, nodes=4, image="img:1", command=["true"])
    nodes = place(cluster, workers(job))
    assert len(set(nodes.values())) == 4
    assert len({units[node] for node in nodes.values()}) == 1, nodes
