"""A PyTorchJob's rendezvous is decided per job from what it needs: c10d, unless the job is elastic and asks for
etcd. A stack that runs etcd (fsdp-p5) no longer puts every job on it, so a job needs neither python-etcd in its image
nor etcd's volume in the cluster unless it chose them. Every job is checked against the Kubeflow training SDK's
model of PyTorchJob v1."""

import json
from pathlib import Path

import pytest
from support.openapi_models import check
from trainstack import cli
from trainstack.launch import LaunchError, render_pytorchjob
from trainstack.outputs import parse_outputs

RECORDED = Path(__file__).resolve().parents[1] / "data" / "outputs"


def recorded(stack):
    return parse_outputs(json.loads((RECORDED / f"{stack}.json").read_text()))


FSDP = recorded("fsdp-p5")  # runs etcd (operators.etcd)
NEMO = recorded("nemo-p4de")  # runs none


def fsdp(nodes=4, **arguments):
    job = render_pytorchjob(FSDP, name="fsdp", group_name="p5", nodes=nodes, image="img:1",
                            command=["torchrun", "train.py"], **arguments)
    check(job, "KubeflowOrgV1PyTorchJob")
    return job


def replicas(job):
    return {role: spec["replicas"] for role, spec in job["spec"]["pytorchReplicaSpecs"].items()}


def test_a_job_of_fixed_size_meets_on_its_master_over_c10d_even_on_a_stack_that_runs_etcd():
    job = fsdp()
    assert "elasticPolicy" not in job["spec"]
    assert replicas(job) == {"Master": 1, "Worker": 3}


def test_an_elastic_job_meets_over_c10d_at_worker_0_by_default():
    job = fsdp(min_nodes=2)
    # No host or port: the operator points torchrun at <job>-worker-0 on the pytorchjob port.
    assert job["spec"]["elasticPolicy"] == {"rdzvBackend": "c10d", "rdzvId": "default.fsdp", "minReplicas": 2,
                                            "maxReplicas": 4, "maxRestarts": 3}
    assert replicas(job) == {"Worker": 4}


def test_an_elastic_job_on_a_stack_without_etcd_needs_none():
    job = render_pytorchjob(NEMO, name="nemo", group_name="p4de", nodes=2, min_nodes=1, image="img:1",
                            command=["torchrun", "train.py"])
    assert job["spec"]["elasticPolicy"]["rdzvBackend"] == "c10d"


def test_an_elastic_job_that_asks_for_etcd_meets_at_the_stacks_etcd():
    job = fsdp(min_nodes=3, rendezvous="etcd")
    assert job["spec"]["elasticPolicy"] == {"rdzvBackend": "etcd", "rdzvId": "default.fsdp",
                                            "rdzvHost": "etcd.etcd.svc.cluster.local", "rdzvPort": 2379,
                                            "minReplicas": 3, "maxReplicas": 4, "maxRestarts": 3}
    assert FSDP.operators.etcd_endpoint == "etcd.etcd.svc.cluster.local:2379"


@pytest.mark.parametrize("outputs, arguments, says", [
    (FSDP, {"rendezvous": "etcd"},
     "--rendezvous etcd is for elastic jobs: this one needs all 4 nodes .* Set --min-nodes below --nodes, or leave "
     "--rendezvous unset"),
    (NEMO, {"rendezvous": "etcd", "min_nodes": 2},
     "--rendezvous etcd: stack nemo-p4de runs no etcd; turn on operators.etcd, or use --rendezvous c10d"),
    (FSDP, {"rendezvous": "etcd-v2", "min_nodes": 2},
     "--rendezvous 'etcd-v2' is not a rendezvous trainstack renders; use c10d .* or etcd"),
])
def test_a_rendezvous_the_job_cannot_use_is_refused_with_the_fix(outputs, arguments, says):
    group = next(iter(outputs.accelerated_groups))
    with pytest.raises(LaunchError, match=says):
        render_pytorchjob(outputs, name="x", group_name=group, nodes=4 if outputs is FSDP else 2, image="i",
                          command=["t"], **arguments)


def test_the_cli_takes_the_rendezvous_and_refuses_one_it_does_not_know(capsys):
    args = ["launch", "pytorchjob", "--outputs", str(RECORDED / "fsdp-p5.json"), "--group", "p5", "--nodes", "4",
            "--min-nodes", "2", "--image", "img:1"]
    assert cli.main([*args, "--rendezvous", "etcd", "--", "torchrun", "train.py"]) == 0
    assert "rdzvBackend: etcd" in capsys.readouterr().out
    assert cli.main([*args, "--", "torchrun", "train.py"]) == 0
    assert "rdzvBackend: c10d" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:
        cli.main([*args, "--rendezvous", "zookeeper", "--", "t"])
    assert refused.value.code == 2
    assert "argument --rendezvous: invalid choice: 'zookeeper'" in capsys.readouterr().err
