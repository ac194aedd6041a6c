"""Launchers keep a job inside one UltraServer (launch/ultraserver.py): the unit label each orchestrator puts on the
unit's nodes (catalog/ultraservers.py, with sources), a required pod affinity on it for a job that fits the smallest
unit, a preferred one for a larger job, and nothing on a type sold alone. The groups are the shipped stacks'
recorded outputs with the instance type changed: no shipped stack runs an UltraServer group."""

import json
from pathlib import Path

import pytest
from trainstack.catalog.ultraservers import ULTRASERVERS, smallest_unit, unit_label
from trainstack.launch import render_mpijob
from trainstack.launch.hyperpod_eks import render_hyperpod_pytorchjob
from trainstack.launch.validation import render_device_check
from trainstack.names import JOB_POD_LABEL
from trainstack.outputs import parse_outputs

RECORDED = Path(__file__).resolve().parents[1] / "data" / "outputs"


def outputs(stack, change):
    document = json.loads((RECORDED / f"{stack}.json").read_text())["trainstack"]
    change(document)
    return parse_outputs(document)


def trn2u(document):
    group = document["acceleratedGroups"]["trn1"]
    group.update(instanceType="trn2u.48xlarge", maxNodes=8)


def gb200_hyperpod(document):
    document["hyperpod"]["instanceGroups"][0].update(instanceType="ml.p6e-gb200.36xlarge", count=18,
                                                      acceleratorsPerNode=4)


def affinity_of(template):
    return template["spec"].get("affinity", {}).get("podAffinity")


def test_every_ultraserver_type_has_a_sourced_unit_label_on_eks_and_on_hyperpod():
    for unit in ULTRASERVERS:
        assert unit_label(unit.instance_type, hyperpod=False).source
        assert unit_label(unit.instance_type, hyperpod=True).key == "topology.k8s.aws/ultraserver-id"
    assert unit_label("p6e-gb200.36xlarge", hyperpod=False).key == "nvidia.com/gpu.clique"
    assert unit_label("trn2u.48xlarge", hyperpod=False).key == "neuron.amazonaws.com/ultraserver-server-id-4"
    assert unit_label("p5.48xlarge", hyperpod=False) is None
    # A job that fits the smaller GB200 unit (9 instances) fits whichever was bought.
    assert smallest_unit("ml.p6e-gb200.36xlarge").name == "u-p6e-gb200x36"


@pytest.mark.parametrize("nodes, kind", [(4, "requiredDuringSchedulingIgnoredDuringExecution"),
                                         (8, "preferredDuringSchedulingIgnoredDuringExecution")])
def test_an_mpijob_on_a_trn2_ultraserver_keeps_its_workers_in_one_unit_as_the_neuron_docs_do(nodes, kind):
    job = render_mpijob(outputs("trn1", trn2u), name="llama", group_name="trn1", nodes=nodes, image="img:1",
                        command=["python", "train.py"])
    worker = job["spec"]["mpiReplicaSpecs"]["Worker"]["template"]
    assert worker["metadata"]["labels"][JOB_POD_LABEL] == "llama"
    (term,) = affinity_of(worker)[kind]
    term = term.get("podAffinityTerm", term)
    assert term == {"labelSelector": {"matchLabels": {JOB_POD_LABEL: "llama"}},
                    "topologyKey": "neuron.amazonaws.com/ultraserver-server-id-4"}
    assert "affinity" not in job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]


@pytest.mark.parametrize("nodes, kind", [(9, "requiredDuringSchedulingIgnoredDuringExecution"),
                                         (12, "preferredDuringSchedulingIgnoredDuringExecution")])
def test_a_hyperpod_job_on_gb200_keeps_every_replica_in_one_nvlink_domain_beside_the_health_affinity(nodes, kind):
    job = render_hyperpod_pytorchjob(outputs("hyperpod-eks", gb200_hyperpod), name="fsdp", group_name="gpu",
                                     nodes=nodes, image="img:1", command=["torchrun", "train.py"])
    for replica in ("Master", "Worker"):
        template = job["spec"]["pytorchReplicaSpecs"][replica]["template"]
        assert "nodeAffinity" in template["spec"]["affinity"]  # HyperPod's health label, kept
        (term,) = affinity_of(template)[kind]
        assert term.get("podAffinityTerm", term)["topologyKey"] == "topology.k8s.aws/ultraserver-id"


def test_a_device_check_on_gb200_runs_inside_one_nvlink_domain():
    def gb200(document):
        document["acceleratedGroups"]["p5"].update(instanceType="p6e-gb200.36xlarge", acceleratorsPerNode=4,
                                                   efaInterfacesPerNode=4)
    job = render_device_check(outputs("fsdp-p5", gb200), name="check", group_name="p5", nodes=2, image="img:1")
    (term,) = affinity_of(job["spec"]["template"])["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term["topologyKey"] == "nvidia.com/gpu.clique"


def test_a_type_sold_alone_gets_no_unit_affinity_and_no_job_label():
    plain = outputs("trn1", lambda document: None)
    job = render_mpijob(plain, name="llama", group_name="trn1", nodes=2, image="img:1", command=["python"])
    worker = job["spec"]["mpiReplicaSpecs"]["Worker"]["template"]
    assert affinity_of(worker) is None and JOB_POD_LABEL not in (worker.get("metadata") or {}).get("labels", {})
