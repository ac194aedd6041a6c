"""The MPI operator model (kubeflow/mpi-operator v0.8.0): mpirun on the launcher reaches
sshd on every worker as a user the operator's key mount serves, and every variable the
ranks need, Neuron's EFA settings among them, is set on the launcher and forwarded."""

import copy

import pytest
from support.rendered_jobs import all_variant_jobs, outputs_of, shipped_jobs
from trainstack.catalog.fabric_env import NEURON_EFA_ENV
from trainstack.controllers import check_mpijob
from trainstack.controllers.mpi_operator import forwarded
from trainstack.launch import render_mpijob

MPIJOBS = [job for job in shipped_jobs() + all_variant_jobs() if job.launcher == "render_mpijob"]


def trn1_job(**arguments):
    return render_mpijob(outputs_of("trn1"), name="llama", group_name="trn1", nodes=4, image="img:1",
                         **{"command": ["python", "train.py"], **arguments})


def container(job, role):
    return job["spec"]["mpiReplicaSpecs"][role]["template"]["spec"]["containers"][0]


def messages(job):
    return [f.message for f in check_mpijob(job)]


def test_the_shipped_stacks_render_mpijobs_at_all():
    assert {"trn1/trn1/render_mpijob/1", "trn1/trn1/render_mpijob/4"} <= {job.id for job in MPIJOBS}


@pytest.mark.parametrize("job", MPIJOBS, ids=lambda job: job.id)
def test_every_rendered_mpijob_starts_every_rank_as_the_operator_runs_it(job):
    assert check_mpijob(job.document) == []


def test_trn1_workers_run_sshd_in_the_foreground_as_root_beside_the_operators_key_mount():
    job = trn1_job()
    worker = container(job, "Worker")
    assert worker["command"][:2] == ["/bin/sh", "-c"] and worker["command"][2].endswith("exec /usr/sbin/sshd -De")
    assert worker["securityContext"] == {"runAsUser": 0} == container(job, "Launcher")["securityContext"]
    assert job["spec"]["sshAuthMountPath"] == "/root/.ssh"


def test_trn1_ranks_get_neurons_efa_settings_from_the_launchers_mpirun():
    launcher = container(trn1_job(), "Launcher")
    env = {e["name"]: e["value"] for e in launcher["env"]}
    # aws-neuron/aws-neuron-eks-samples dp_bert_hf_pretrain/lib/trn1_dist_ddp.py
    assert {name: env[name] for name in NEURON_EFA_ENV} == {
        "FI_PROVIDER": "efa", "FI_EFA_USE_DEVICE_RDMA": "1", "FI_EFA_FORK_SAFE": "1", "CCOM_SOCKET_IFNAME": "eth0"}
    assert set(NEURON_EFA_ENV) | {"TRAINSTACK_CHECKPOINT_DIR", "TRAINSTACK_CHECKPOINT_URI"} <= forwarded(
        launcher["command"])
    assert launcher["command"][0] == "mpirun" and launcher["command"][-2:] == ["python", "train.py"]


def test_a_users_mpirun_gets_the_forwarding_flags_after_it_not_a_second_mpirun():
    command = container(trn1_job(command=["mpirun", "-np", "128", "python", "train.py"]), "Launcher")["command"]
    assert command.count("mpirun") == 1 and command[-4:] == ["-np", "128", "python", "train.py"]


def test_workers_that_run_the_script_instead_of_sshd_leave_mpirun_nothing_to_reach():
    job = trn1_job()
    container(job, "Worker")["command"] = ["python", "train.py"]
    assert any("not sshd: the launcher's mpirun reaches workers over ssh" in m for m in messages(job))


def test_workers_without_a_command_run_the_operators_sshd_default():
    job = trn1_job()
    del container(job, "Worker")["command"]
    assert messages(job) == []


def test_sshd_without_minus_d_ends_the_worker_pod():
    job = trn1_job()
    container(job, "Worker")["command"] = ["/usr/sbin/sshd"]
    assert any("without -D" in m for m in messages(job))


def test_pods_that_do_not_run_as_root_cannot_use_the_keys_mounted_at_root_ssh():
    job = trn1_job()
    del container(job, "Worker")["securityContext"]
    container(job, "Launcher")["securityContext"] = {"runAsUser": 1000}
    found = messages(job)
    assert any(m.startswith("the worker pods run as no runAsUser, so the image's user, but the operator mounts the "
                            "ssh keys at /root/.ssh") for m in found)
    assert any(m.startswith("the launcher pod run as runAsUser 1000") for m in found)


def test_environment_set_only_on_the_workers_never_reaches_the_ranks():
    # The job as trainstack rendered it before: the settings on the worker pods, none on the launcher.
    job = trn1_job()
    launcher, worker = container(job, "Launcher"), container(job, "Worker")
    worker["env"], launcher["env"] = copy.deepcopy(launcher["env"]), []
    found = messages(job)
    assert any(m.startswith("FI_PROVIDER (the fabric setting of aws-neuron/aws-neuron-eks-samples") and
               "is set only on the worker pods, whose sshd does not pass it on" in m for m in found)
    assert any(m.startswith("TRAINSTACK_CHECKPOINT_DIR is set only on the worker pods") for m in found)


def test_environment_on_the_launcher_that_mpirun_does_not_forward_never_reaches_the_ranks():
    job = trn1_job()
    container(job, "Launcher")["command"] = ["mpirun", "python", "train.py"]
    found = messages(job)
    assert "CCOM_SOCKET_IFNAME" in " ".join(found) and any("mpirun does not forward it" in m for m in found)


def test_a_missing_or_different_neuron_fabric_setting_is_named_with_its_source():
    job = trn1_job()
    launcher = container(job, "Launcher")
    launcher["env"] = [e for e in launcher["env"] if e["name"] != "FI_EFA_FORK_SAFE"]
    next(e for e in launcher["env"] if e["name"] == "CCOM_SOCKET_IFNAME")["value"] = "lo"
    found = messages(job)
    assert any(m.startswith("FI_EFA_FORK_SAFE (the fabric setting of aws-neuron/aws-neuron-eks-samples "
                            "dp_bert_hf_pretrain/lib/trn1_dist_ddp.py@cecff9eb) is set nowhere") for m in found)
    assert any(m.startswith("CCOM_SOCKET_IFNAME='lo' where the accelerator's documentation sets 'eth0'")
               for m in found)


def test_a_launcher_without_mpirun_runs_the_script_once_on_a_pod_without_devices():
    job = trn1_job()
    container(job, "Launcher")["command"] = ["python", "train.py"]
    assert any("without mpirun" in m for m in messages(job))



def test_launcher_and_workers_get_their_own_security_context_so_the_yaml_has_no_aliases():
    # One shared dict would be written as a YAML anchor and alias (&id001 / *id001).
    job = trn1_job()
    assert container(job, "Launcher")["securityContext"] is not container(job, "Worker")["securityContext"]
