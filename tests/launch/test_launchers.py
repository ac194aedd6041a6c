"""Jobs rendered from recorded stack outputs (`pulumi stack output --json`), validated
against published schemas, asking for exactly the devices the catalog gives the type."""

import json
import re
import subprocess
from pathlib import Path

import kubernetes_validate
import pulumi
import pytest
from support.openapi_models import ModelMismatch, check
from trainstack import catalog
from trainstack.launch import LaunchError, render_mpijob, render_pytorchjob, render_sbatch
from trainstack.outputs import ContractError, parse_outputs

RECORDED = Path(__file__).resolve().parents[1] / "data" / "outputs"
K8S_VERSION = "1.33"  # newest schema set kubernetes-validate ships that covers our fields


def recorded(stack):
    return parse_outputs(json.loads((RECORDED / f"{stack}.json").read_text()))


def validate_pod_templates(job, *replicas):
    for replica in replicas:
        template = job["spec"][next(k for k in ("pytorchReplicaSpecs", "mpiReplicaSpecs") if k in job["spec"])][
            replica]["template"]
        kubernetes_validate.validate({"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"},
                                      "template": template}, K8S_VERSION, strict=True)


def container(job, replica):
    specs = job["spec"].get("pytorchReplicaSpecs") or job["spec"]["mpiReplicaSpecs"]
    return specs[replica]["template"]["spec"]["containers"][0]


def test_fsdp_pytorchjob_asks_for_the_whole_p5_as_the_catalog_gives_it():
    job = render_pytorchjob(recorded("fsdp-p5"), name="fsdp", group_name="p5", nodes=4, image="img:1",
                            command=["torchrun", "train.py"])
    check(job, "KubeflowOrgV1PyTorchJob")
    validate_pod_templates(job, "Master", "Worker")
    p5 = catalog.get("p5.48xlarge")
    limits = container(job, "Worker")["resources"]["limits"]
    assert int(limits["nvidia.com/gpu"]) == p5.accelerator.count == 8
    assert int(limits["vpc.amazonaws.com/efa"]) == p5.efa.max_interfaces == 32
    assert limits["hugepages-2Mi"] == "5120Mi"
    assert {k: v["replicas"] for k, v in job["spec"]["pytorchReplicaSpecs"].items()} == {"Master": 1, "Worker": 3}
    assert job["spec"]["nprocPerNode"] == "8"


def test_fsdp_pytorchjob_uses_shm_fsx_and_the_groups_placement():
    job = render_pytorchjob(recorded("fsdp-p5"), name="fsdp", group_name="p5", nodes=2, image="img:1",
                            command=["torchrun", "train.py"])
    pod = job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]
    assert pod["nodeSelector"] == {"trainstack.io/node-group": "p5"}
    assert pod["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true",
                                   "effect": "NoSchedule"}]
    assert {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "64Gi"}} in pod["volumes"]
    assert {"name": "fsx", "persistentVolumeClaim": {"claimName": "fsx-claim"}} in pod["volumes"]
    assert {"name": "fsx", "mountPath": "/fsx"} in container(job, "Worker")["volumeMounts"]
    assert container(job, "Worker")["env"][:3] == [{"name": "FI_PROVIDER", "value": "efa"},
                                                   {"name": "NCCL_SOCKET_IFNAME", "value": "^lo,docker,pod-id-link"},
                                                   {"name": "FI_EFA_USE_DEVICE_RDMA", "value": "1"}]


def test_a_job_of_fixed_size_uses_a_master_and_workers():
    job = render_pytorchjob(recorded("nemo-p4de"), name="nemo", group_name="p4de", nodes=2, image="img:1",
                            command=["torchrun", "train.py"])
    check(job, "KubeflowOrgV1PyTorchJob")
    assert "elasticPolicy" not in job["spec"]
    assert {k: v["replicas"] for k, v in job["spec"]["pytorchReplicaSpecs"].items()} == {"Master": 1, "Worker": 1}
    assert container(job, "Master")["resources"]["limits"]["vpc.amazonaws.com/efa"] == "4"


def test_neuron_mpijob_asks_for_trn1s_devices_and_efa_with_the_neuron_scheduler():
    job = render_mpijob(recorded("trn1"), name="llama2", group_name="trn1", nodes=4, image="img:1",
                        command=["mpirun", "python", "train.py"])
    validate_pod_templates(job, "Launcher", "Worker")
    trn1 = catalog.get("trn1.32xlarge")
    worker = job["spec"]["mpiReplicaSpecs"]["Worker"]
    limits = worker["template"]["spec"]["containers"][0]["resources"]["limits"]
    assert int(limits["aws.amazon.com/neuron"]) == trn1.accelerator.count == 16
    assert int(limits["vpc.amazonaws.com/efa"]) == trn1.efa.max_interfaces == 8
    assert worker["replicas"] == 4 and job["spec"]["slotsPerWorker"] == trn1.accelerator.neuron_cores == 32
    assert worker["template"]["spec"]["schedulerName"] == "my-scheduler"
    assert job["apiVersion"] == "kubeflow.org/v2beta1"
    assert "nodeSelector" not in job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]


def test_hyperpod_sbatch_targets_the_partition_with_srun_torchrun(tmp_path):
    script = render_sbatch(recorded("hyperpod"), name="fsdp", group_name="worker-group-1", nodes=2,
                           command=["torchrun", "train.py", "--epochs", "1"])
    assert "#SBATCH --partition=dev\n" in script and "#SBATCH --nodes=2\n" in script
    assert "\nsrun --auto-resume=1 --export=ALL torchrun train.py --epochs 1\n" in script
    assert "\nexport PET_NNODES=2\nexport PET_NPROC_PER_NODE=1\n" in script
    path = tmp_path / "job.sbatch"
    path.write_text(script)
    subprocess.run(["bash", "-n", str(path)], check=True)


def test_the_model_check_refuses_a_misspelled_field():
    job = render_pytorchjob(recorded("fsdp-p5"), name="fsdp", group_name="p5", nodes=1, image="img:1",
                            command=["torchrun", "train.py"])
    job["spec"]["pytorchReplicaSpecs"]["Master"]["restartpolicy"] = "OnFailure"
    with pytest.raises(ModelMismatch, match="restartpolicy"):
        check(job, "KubeflowOrgV1PyTorchJob")


@pytest.mark.parametrize("call, message", [
    (lambda o: render_pytorchjob(o, name="x", group_name="p5", nodes=1, image="i", command=["t"], gpus_per_node=9),
     "has 8 nvidia.com/gpu per node; 9 were asked for"),
    (lambda o: render_pytorchjob(o, name="x", group_name="p4", nodes=1, image="i", command=["t"]),
     r"has no accelerated group 'p4' \(groups: p5\)"),
    (lambda o: render_pytorchjob(o, name="x", group_name="p5", nodes=17, image="i", command=["t"]),
     "scales to 16 nodes; 17 were asked for"),
    (lambda o: render_mpijob(o, name="x", group_name="p5", nodes=1, image="i", command=["t"]),
     "MPIJobs here are for Neuron groups"),
])
def test_bad_requests_are_refused_with_the_numbers(call, message):
    with pytest.raises(LaunchError, match=message):
        call(recorded("fsdp-p5"))


def test_an_older_contract_version_is_refused_with_the_fix():
    document = json.loads((RECORDED / "fsdp-p5.json").read_text())
    document["trainstack"]["contractVersion"] = 0
    with pytest.raises(ContractError,
                       match=re.escape("version 0; this trainstack reads versions 1 and 2. Fix: `pulumi up`")):
        parse_outputs(document)


def test_cli_renders_from_stdin_and_reports_errors_without_a_traceback(capsys, monkeypatch):
    import io

    from trainstack import cli

    monkeypatch.setattr("sys.stdin", io.StringIO((RECORDED / "trn1.json").read_text()))
    assert cli.main(["launch", "mpijob", "--group", "trn1", "--nodes", "2", "--image", "img:1", "--",
                     "mpirun", "python", "train.py"]) == 0
    assert "kind: MPIJob" in capsys.readouterr().out
    assert cli.main(["launch", "pytorchjob", "--outputs", str(RECORDED / "fsdp-p5.json"), "--group", "p5",
                     "--nodes", "99", "--image", "i", "--", "t"]) == 2
    err = capsys.readouterr().err
    assert "scales to 16 nodes; 99 were asked for" in err and "Traceback" not in err


@pytest.mark.parametrize("stack", ["fsdp-p5", "nemo-p4de", "trn1", "hyperpod", "hyperpod-eks"])
def test_the_recorded_outputs_are_what_the_shipped_stack_exports_today(stack):
    from trainstack.plan import find_project, run_plan

    fresh = run_plan(find_project(RECORDED), stack).outputs
    assert json.loads((RECORDED / f"{stack}.json").read_text()) == fresh


class ReferenceMocks(pulumi.runtime.Mocks):
    """Pulumi mocks answering a StackReference with a recorded stack's outputs."""

    def __init__(self, outputs):
        self.outputs = outputs

    def new_resource(self, args):
        if args.typ == "pulumi:pulumi:StackReference":
            return args.name, {"name": args.name, "outputs": self.outputs}
        return args.name, dict(args.inputs)

    def call(self, args):
        return {}


@pulumi.runtime.test
def test_another_program_renders_jobs_through_a_stack_reference():
    from trainstack.outputs import outputs_from_stack_reference

    pulumi.runtime.set_mocks(ReferenceMocks(json.loads((RECORDED / "fsdp-p5.json").read_text())), preview=False)
    outputs = outputs_from_stack_reference("org/trainstack/fsdp-p5")

    def check_job(contract):
        job = render_pytorchjob(contract, name="fsdp", group_name="p5", nodes=2, image="img:1", command=["t"])
        assert sum(r["replicas"] for r in job["spec"]["pytorchReplicaSpecs"].values()) == 2
        assert contract.stack == "fsdp-p5"

    return outputs.apply(check_job)
