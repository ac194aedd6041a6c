"""The training operator model (kubeflow/training-operator v1.8.1, PyTorchJob v1): torchrun
on every pod finds a rendezvous, starts one rank per accelerator, and runs with the EFA
settings of catalog.fabric_env on EFA nodes."""

import pytest
from support.rendered_jobs import all_variant_jobs, outputs_for, outputs_of, shipped_jobs
from trainstack.controllers import check_pytorchjob
from trainstack.launch import render_all_reduce, render_pytorchjob

PYTORCHJOBS = [job for job in shipped_jobs() + all_variant_jobs() if isinstance(job.document, dict)
               and job.document["kind"] == "PyTorchJob"]


def etcd_of(job):
    outputs = outputs_for(job.stack)
    return outputs.operators.etcd_endpoint


def messages(job, etcd="etcd.etcd.svc.cluster.local:2379"):
    return [f.message for f in check_pytorchjob(job, etcd)]


def fsdp(nodes=2):
    return render_pytorchjob(outputs_of("fsdp-p5"), name="fsdp", group_name="p5", nodes=nodes, image="img:1",
                             command=["torchrun", "train.py"])


def elastic_fsdp(rendezvous, nodes=4):
    return render_pytorchjob(outputs_of("fsdp-p5"), name="fsdp", group_name="p5", nodes=nodes, min_nodes=2,
                             rendezvous=rendezvous, image="img:1", command=["torchrun", "train.py"])


def nemo(nodes=2):
    return render_pytorchjob(outputs_of("nemo-p4de"), name="nemo", group_name="p4de", nodes=nodes, image="img:1",
                             command=["torchrun", "train.py"])


def worker(job):
    return job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]


def test_the_shipped_stacks_and_variants_render_torchrun_jobs_of_every_launcher():
    assert {job.launcher for job in PYTORCHJOBS} == {"render_pytorchjob", "render_all_reduce",
                                                     "render_hyperpod_pytorchjob"}


@pytest.mark.parametrize("job", PYTORCHJOBS, ids=lambda job: job.id)
def test_every_rendered_pytorchjob_forms_one_torchrun_job_with_every_rank(job):
    assert check_pytorchjob(job.document, etcd_of(job)) == []


def test_gpu_pods_on_efa_carry_fi_provider_efa_and_keep_nccl_off_the_pod_identity_link():
    env = {e["name"]: e["value"] for e in worker(fsdp())["env"]}
    assert env["FI_PROVIDER"] == "efa" and env["NCCL_SOCKET_IFNAME"] == "^lo,docker,pod-id-link"


def test_an_efa_pod_without_the_fabric_settings_is_found_with_the_setting_and_its_source():
    job = fsdp()
    worker(job)["env"] = [e for e in worker(job)["env"] if e["name"] != "FI_PROVIDER"]
    assert any(m.startswith("Worker pods run on EFA with FI_PROVIDER unset; the fabric setting is FI_PROVIDER=efa "
                            "(aws/aws-ofi-nccl doc/efa-env-var.md") for m in messages(job))


def test_workers_without_a_master_or_an_elastic_policy_have_no_rendezvous():
    job = nemo()
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] = 2
    del job["spec"]["pytorchReplicaSpecs"]["Master"]
    assert any("no Master replica and no elasticPolicy" in m for m in messages(job, None))


@pytest.mark.parametrize("rendezvous", ["c10d", "etcd"])
def test_an_elastic_job_forms_one_torchrun_job_over_either_rendezvous(rendezvous):
    job = elastic_fsdp(rendezvous)
    assert job["spec"]["elasticPolicy"]["rdzvBackend"] == rendezvous
    assert messages(job) == []


def test_an_etcd_rendezvous_must_be_the_stacks_etcd():
    job = elastic_fsdp("etcd")
    job["spec"]["elasticPolicy"]["rdzvHost"] = "etcd.default.svc.cluster.local"
    assert any("but the stack's etcd is etcd.etcd.svc.cluster.local:2379" in m for m in messages(job))
    assert any("a stack that runs no etcd" in m for m in messages(elastic_fsdp("etcd"), None))


def test_an_etcd_rendezvous_without_its_own_id_meets_every_other_job_under_none():
    job = elastic_fsdp("etcd")
    assert job["spec"]["elasticPolicy"]["rdzvId"] and messages(job) == []
    del job["spec"]["elasticPolicy"]["rdzvId"]
    assert any("an etcd rendezvous without rdzvId: the operator sets no PET_RDZV_ID, so torchrun meets under its "
               "default id 'none'" in m for m in messages(job))


def test_one_rank_per_gpu_the_pod_holds():
    job = fsdp()
    job["spec"]["nprocPerNode"] = "4"
    assert any("hold 8 accelerators but nprocPerNode is 4" in m for m in messages(job))


def test_a_pod_that_does_not_run_torchrun_ignores_the_operators_rendezvous():
    job = fsdp()
    worker(job)["command"] = ["python", "train.py"]
    assert any("not torchrun: the PET_* rendezvous variables" in m for m in messages(job))


def test_the_all_reduce_launcher_wrapper_counts_as_torchrun():
    job = render_all_reduce(outputs_of("fsdp-p5"), name="nccl", group_name="p5", nodes=2, image="img:1")
    assert messages(job) == []
