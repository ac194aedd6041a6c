"""Every job's rendezvous is its own, and no team's job meets on the etcd every team shares (issue 64, class 4).

torchrun's rendezvous id defaults to ``none`` (pytorch torch/distributed/run.py, ``--rdzv-id``), and the etcd backend
keys its whole state by it (torch/distributed/elastic/rendezvous/etcd_rendezvous.py): two elastic jobs left at
``none`` on the stack's one etcd join each other's rendezvous. The training operator v1.8.1 hands torchrun
``PET_RDZV_ID`` only from ``elasticPolicy.rdzvId`` (pkg/controller.v1/pytorch/elastic.go), Trainer v2.3.0 never
(pkg/runtime/framework/plugins/torch/torch.go). So every torch launcher names the id itself,
``<namespace>.<name>``; and since etcd's one unauthenticated member cannot keep teams apart, a team's job is refused
``--rendezvous etcd`` (launch/rendezvous.py says why, and what the alternatives would cost).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.openapi_models import check
from support.rendered_jobs import outputs_of
from trainstack import launch
from trainstack.launch import LaunchError, QueueRequest, render_pytorchjob
from trainstack.launch.rendezvous import RDZV_ID_ENV
from trainstack.outputs import parse_outputs

RECORDED = Path(__file__).resolve().parents[1] / "data" / "outputs"
FSDP = parse_outputs(json.loads((RECORDED / "fsdp-p5.json").read_text()))  # etcd, no teams, FSx in `default`
HYPERPOD = parse_outputs(json.loads((RECORDED / "hyperpod-eks.json").read_text()))
TRAIN = ["torchrun", "train.py"]


def containers(job: dict[str, Any]) -> list[dict[str, Any]]:
    specs = job["spec"].get("pytorchReplicaSpecs", {}).values()
    return [c for spec in specs for c in spec["template"]["spec"]["containers"]]


def env_id(container: dict[str, Any]) -> str | None:
    return next((e["value"] for e in container.get("env", []) if e["name"] == RDZV_ID_ENV), None)


def test_an_elastic_pytorchjob_names_its_rendezvous_in_the_field_the_operator_reads():
    job = render_pytorchjob(FSDP, name="fsdp", group_name="p5", nodes=4, min_nodes=2, image="i", command=TRAIN)
    check(job, "KubeflowOrgV1PyTorchJob")
    assert job["spec"]["elasticPolicy"]["rdzvId"] == "default.fsdp"
    # The operator appends PET_RDZV_ID from rdzvId; the containers do not set it a second time.
    assert [env_id(c) for c in containers(job)] == [None]


@pytest.mark.parametrize("etcd", [False, True])
def test_two_elastic_jobs_of_one_name_in_two_namespaces_meet_under_two_ids(etcd):
    backend = {"rendezvous": "etcd"} if etcd else {}
    ids = {render_pytorchjob(FSDP, name="train", group_name="p5", nodes=4, min_nodes=2, image="i", command=TRAIN,
                             namespace=namespace, **backend)["spec"]["elasticPolicy"]["rdzvId"]
           for namespace in ("research", "research-train", "default")}
    assert ids == {"research.train", "research-train.train", "default.train"}


def test_a_job_of_fixed_size_and_a_hyperpod_job_carry_the_id_in_every_container():
    fixed = render_pytorchjob(FSDP, name="fsdp", group_name="p5", nodes=4, image="i", command=TRAIN)
    assert "elasticPolicy" not in fixed["spec"]
    assert {env_id(c) for c in containers(fixed)} == {"default.fsdp"}
    resumed = launch.render_hyperpod_pytorchjob(HYPERPOD, name="resume", group_name="gpu", nodes=2, image="i",
                                                command=TRAIN)
    assert {env_id(c) for c in containers(resumed)} == {"kubeflow.resume"}


def test_a_teams_trainjob_carries_the_id_in_its_trainers_environment():
    outputs = outputs_of("kueue-p5")  # Trainer v2, teams llm and vision
    job = launch.render_trainjob(outputs, name="pretrain", group_name="p5", nodes=2, image="i", command=TRAIN,
                                 queue=QueueRequest(team="llm"))
    assert env_id(job["spec"]["trainer"]) == "llm.pretrain"


def test_a_teams_elastic_job_is_refused_the_etcd_every_team_shares_and_told_to_use_c10d():
    outputs = outputs_of("byo-p5")  # runs etcd (operators.etcd) for a cluster with teams
    assert outputs.operators.etcd_endpoint and outputs.scheduling is not None
    says = (r"--rendezvous etcd: stack byo-p5 has teams, and its one etcd serves them all without authentication, .* "
            r"Use --rendezvous c10d \(the default\)")
    group = next(iter(outputs.accelerated_groups))
    with pytest.raises(LaunchError, match=says):
        render_pytorchjob(outputs, name="x", group_name=group, nodes=2, min_nodes=1, image="i", command=TRAIN,
                          rendezvous="etcd")
    with pytest.raises(LaunchError, match=says):  # the device check of an image for such a job, alike
        launch.render_device_check(outputs, name="x", group_name=group, nodes=2, image="i", rendezvous="etcd")
    job = render_pytorchjob(outputs, name="x", group_name=group, nodes=2, min_nodes=1, image="i", command=TRAIN)
    assert job["spec"]["elasticPolicy"]["rdzvBackend"] == "c10d"
    assert job["spec"]["elasticPolicy"]["rdzvId"] == f"{job['metadata']['namespace']}.x"


def test_an_etcd_job_whose_namespace_kubectl_would_pick_is_refused():
    no_claim = FSDP.model_copy(update={"storage": None})
    with pytest.raises(LaunchError, match=r"job x is rendered without a namespace .* <namespace>\.<name>"):
        render_pytorchjob(no_claim, name="x", group_name="p5", nodes=4, min_nodes=2, image="i", command=TRAIN,
                          rendezvous="etcd")
    # c10d meets on the job's own worker 0: its name is id enough.
    job = render_pytorchjob(no_claim, name="x", group_name="p5", nodes=4, min_nodes=2, image="i", command=TRAIN)
    assert job["spec"]["elasticPolicy"]["rdzvId"] == "x"
