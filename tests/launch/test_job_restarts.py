"""Jobs that outlive a lost node: restart policy, backoff limit and elastic minimum as
the user sets them, the checkpoint location from the outputs contract in the job's
environment; on HyperPod with EKS, a PyTorchJob that HyperPod resumes, and a clear
refusal where nothing would resume it. Every job is validated against the Kubeflow
training SDK's models and kubernetes-validate, like the other launchers' jobs."""

import copy
import json
from pathlib import Path

import kubernetes_validate
import pytest
from support.openapi_models import check
from support.rendered_jobs import variant_outputs
from trainstack.launch import LaunchError, render_hyperpod_pytorchjob, render_mpijob, render_pytorchjob
from trainstack.outputs import parse_outputs

RECORDED = Path(__file__).resolve().parents[1] / "data" / "outputs"
K8S_VERSION = "1.33"


def recorded(stack):
    return parse_outputs(json.loads((RECORDED / f"{stack}.json").read_text()))


def valid_pod(template):
    kubernetes_validate.validate({"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"},
                                  "template": template}, K8S_VERSION, strict=True)


def env_of(replica):
    return {e["name"]: e["value"] for e in replica["template"]["spec"]["containers"][0]["env"]}


def test_a_pytorchjob_restarts_within_the_users_limits_and_keeps_training_on_the_elastic_minimum():
    job = render_pytorchjob(recorded("fsdp-p5"), name="fsdp", group_name="p5", nodes=4, image="img:1",
                            command=["torchrun", "train.py"], restart_policy="ExitCode", backoff_limit=5,
                            min_nodes=2)
    check(job, "KubeflowOrgV1PyTorchJob")
    worker = job["spec"]["pytorchReplicaSpecs"]["Worker"]
    valid_pod(worker["template"])
    assert worker["restartPolicy"] == "ExitCode"
    assert job["spec"]["runPolicy"] == {"backoffLimit": 5}
    elastic = job["spec"]["elasticPolicy"]
    assert (elastic["minReplicas"], elastic["maxReplicas"], elastic["maxRestarts"]) == (2, 4, 5)


def test_by_default_a_pytorchjob_restarts_on_failure_three_times_and_needs_every_node():
    job = render_pytorchjob(recorded("nemo-p4de"), name="nemo", group_name="p4de", nodes=2, image="img:1",
                            command=["torchrun", "train.py"])
    check(job, "KubeflowOrgV1PyTorchJob")
    assert job["spec"]["runPolicy"] == {"backoffLimit": 3}
    assert {r["restartPolicy"] for r in job["spec"]["pytorchReplicaSpecs"].values()} == {"OnFailure"}


def test_the_job_environment_names_its_checkpoint_directory_on_fsx_and_prefix_in_the_bucket():
    outputs = recorded("fsdp-p5")
    job = render_pytorchjob(outputs, name="fsdp", group_name="p5", nodes=2, image="img:1", command=["t"])
    env = env_of(job["spec"]["pytorchReplicaSpecs"]["Worker"])
    assert env["TRAINSTACK_CHECKPOINT_DIR"] == f"{outputs.storage.mount_path}/checkpoints/default/fsdp"
    assert env["TRAINSTACK_CHECKPOINT_URI"] == f"s3://{outputs.checkpoint_bucket}/fsdp-p5/fsdp/"
    assert outputs.storage.mount_path == "/fsx" and outputs.checkpoint_bucket


def test_a_neuron_mpijob_restarts_its_launcher_within_the_backoff_limit_and_knows_its_checkpoints():
    job = render_mpijob(recorded("trn1"), name="llama", group_name="trn1", nodes=4, image="img:1",
                        command=["mpirun", "python", "train.py"], backoff_limit=6)
    replicas = job["spec"]["mpiReplicaSpecs"]
    for replica in replicas.values():
        valid_pod(replica["template"])
        assert replica["restartPolicy"] == "OnFailure"
    # The ranks inherit the launcher's mpirun environment (workers' sshd starts them), so the
    # checkpoint location is set there and forwarded with -x.
    assert env_of(replicas["Launcher"])["TRAINSTACK_CHECKPOINT_DIR"] == "/fsx/checkpoints/default/llama"
    command = replicas["Launcher"]["template"]["spec"]["containers"][0]["command"]
    assert command[0] == "mpirun" and "TRAINSTACK_CHECKPOINT_DIR" in command and command[-2:] == ["python", "train.py"]
    # MPIJob v2beta1's RunPolicy has the same fields as the training operator's v1 RunPolicy.
    check(job["spec"]["runPolicy"], "KubeflowOrgV1RunPolicy")
    assert job["spec"]["runPolicy"] == {"cleanPodPolicy": "Running", "backoffLimit": 6}


@pytest.mark.parametrize("call, message", [
    (lambda: render_pytorchjob(recorded("nemo-p4de"), name="x", group_name="p4de", nodes=2, image="i",
                               command=["t"], min_nodes=1, rendezvous="etcd"),
     "--rendezvous etcd: stack nemo-p4de runs no etcd; turn on operators.etcd, or use --rendezvous c10d"),
    (lambda: render_pytorchjob(recorded("fsdp-p5"), name="x", group_name="p5", nodes=2, image="i", command=["t"],
                               min_nodes=3),
     "between 1 and the 2 nodes asked for; got 3"),
    (lambda: render_pytorchjob(recorded("fsdp-p5"), name="x", group_name="p5", nodes=2, image="i", command=["t"],
                               restart_policy="Never", backoff_limit=2),
     "Never restarts nothing, so backoff limit 2 would never apply"),
    (lambda: render_pytorchjob(recorded("fsdp-p5"), name="x", group_name="p5", nodes=2, image="i", command=["t"],
                               restart_policy="Sometimes"),
     "restart policy 'Sometimes' is not one the operators know"),
    (lambda: render_mpijob(recorded("trn1"), name="x", group_name="trn1", nodes=4, image="i", command=["t"],
                           min_nodes=2),
     "MPIJob v2beta1 has no elastic mode"),
    (lambda: render_mpijob(recorded("trn1"), name="x", group_name="trn1", nodes=4, image="i", command=["t"],
                           restart_policy="ExitCode"),
     "runs the launcher as a batch Job.*ExitCode becomes Never and the Job retries every failure"),
    (lambda: render_mpijob(recorded("trn1"), name="x", group_name="trn1", nodes=4, image="i", command=["t"],
                           restart_policy="Always"),
     "restart policy 'Always': the MPI operator runs the launcher as a batch Job"),
])
def test_restart_limits_that_cannot_work_are_refused_with_the_reason(call, message):
    with pytest.raises(LaunchError, match=message):
        call()


def test_restart_policy_never_renders_no_backoff_limit():
    job = render_pytorchjob(recorded("fsdp-p5"), name="x", group_name="p5", nodes=2, image="i", command=["t"],
                            restart_policy="Never", min_nodes=1)
    assert "runPolicy" not in job["spec"] and "maxRestarts" not in job["spec"]["elasticPolicy"]


def test_an_mpijob_that_never_restarts_gives_its_launcher_job_a_backoff_limit_of_zero():
    # The launcher is a batch Job: without a backoff limit Kubernetes retries it six times.
    job = render_mpijob(recorded("trn1"), name="x", group_name="trn1", nodes=4, image="i", command=["t"],
                        restart_policy="Never")
    assert job["spec"]["runPolicy"]["backoffLimit"] == 0


# HyperPod with EKS orchestration.

@pytest.fixture(scope="module")
def hyperpod_eks():
    """The outputs of the HYPERPOD_EKS variant, planned once per session for every test that reads it."""
    return variant_outputs("hyperpod-eks-dev")


def test_a_hyperpod_eks_job_carries_the_auto_resume_annotations_and_selects_healthy_nodes(hyperpod_eks):
    job = render_hyperpod_pytorchjob(hyperpod_eks, name="fsdp", group_name="gpu", nodes=4, image="img:1",
                                     command=["torchrun", "train.py"], max_retries=10)
    check(job, "KubeflowOrgV1PyTorchJob")
    assert job["metadata"]["namespace"] == "kubeflow"
    assert job["metadata"]["annotations"] == {"sagemaker.amazonaws.com/enable-job-auto-resume": "true",
                                              "sagemaker.amazonaws.com/job-max-retry-count": "10"}
    for replica in job["spec"]["pytorchReplicaSpecs"].values():
        assert replica["restartPolicy"] == "OnFailure"
        valid_pod(replica["template"])
        pod = replica["template"]["spec"]
        (term,) = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
            "nodeSelectorTerms"]
        assert term["matchExpressions"] == [{"key": "sagemaker.amazonaws.com/node-health-status",
                                             "operator": "In", "values": ["Schedulable"]}]
        assert pod["nodeSelector"] == {"trainstack.io/node-group": "gpu"}
        limits = pod["containers"][0]["resources"]["limits"]
        assert (limits["nvidia.com/gpu"], limits["vpc.amazonaws.com/efa"]) == ("8", "32")
        assert env_of(replica)["TRAINSTACK_CHECKPOINT_DIR"] == "/fsx/checkpoints/kubeflow/fsdp"
    assert job["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] == 3


def without(outputs, **changes):
    document = copy.deepcopy(outputs.model_dump(by_alias=True))
    for path, value in changes.items():
        target = document
        *parents, last = path.split("__")
        for part in parents:
            target = target[part]
        target[last] = value
    return parse_outputs({"trainstack": document})


@pytest.mark.parametrize("changes, message", [
    ({"operators__trainingOperator": False},
     "runs no Kubeflow training operator: HyperPod's job auto-resume restarts PyTorchJobs that the training "
     "operator \\(1.7.0-1.8.1\\) manages"),
    ({"hyperpod__nodeRecovery": "None"}, "nodeRecovery None: a faulty node is only labelled, never replaced"),
    ({"storage__namespace": "default"}, "HyperPod resumes jobs only in 'kubeflow'.*set fsx.namespace: kubeflow"),
])
def test_a_resuming_job_is_refused_with_the_reason_where_nothing_would_resume_it(hyperpod_eks, changes, message):
    with pytest.raises(LaunchError, match=message):
        render_hyperpod_pytorchjob(without(hyperpod_eks, **changes), name="x", group_name="gpu", nodes=2,
                                   image="i", command=["t"])


def test_a_resuming_job_on_a_slurm_stack_is_refused_and_pointed_at_srun_auto_resume():
    with pytest.raises(LaunchError, match=r"no EKS-orchestrated HyperPod cluster.*srun --auto-resume"):
        render_hyperpod_pytorchjob(recorded("hyperpod"), name="x", group_name="worker-group-1", nodes=1, image="i",
                                   command=["t"])


def test_the_cli_renders_the_resuming_job_and_refuses_without_a_traceback(hyperpod_eks, tmp_path, capsys):
    from trainstack import cli

    outputs = tmp_path / "outputs.json"
    outputs.write_text(json.dumps({"trainstack": hyperpod_eks.model_dump(by_alias=True)}))
    assert cli.main(["launch", "hyperpod-pytorchjob", "--outputs", str(outputs), "--group", "gpu", "--nodes", "2",
                     "--image", "img:1", "--max-retries", "5", "--", "torchrun", "train.py"]) == 0
    assert "sagemaker.amazonaws.com/job-max-retry-count: '5'" in capsys.readouterr().out
    assert cli.main(["launch", "pytorchjob", "--outputs", str(RECORDED / "nemo-p4de.json"), "--group", "p4de",
                     "--nodes", "2", "--min-nodes", "1", "--rendezvous", "etcd", "--image", "i", "--", "t"]) == 2
    err = capsys.readouterr().err
    assert "turn on operators.etcd" in err and "Traceback" not in err


def test_a_hyperpod_job_name_leaves_room_for_the_pods_the_training_operator_names(hyperpod_eks):
    # 4 nodes: Master 0 and Workers 0..2; <name>-master-0 is the longest, 9 characters after the name.
    job = render_hyperpod_pytorchjob(hyperpod_eks, name="h" * 54, group_name="gpu", nodes=4, image="img:1",
                                     command=["t"])
    assert job["metadata"]["name"] == "h" * 54
    with pytest.raises(LaunchError, match="a PyTorchJob name must be a DNS-1035 label"):
        render_hyperpod_pytorchjob(hyperpod_eks, name="h" * 55, group_name="gpu", nodes=4, image="img:1",
                                   command=["t"])
