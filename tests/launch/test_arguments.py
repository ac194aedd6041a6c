"""Launch arguments are refused as Kubernetes and the operators would refuse them, in the
library (LaunchError naming the argument, the value and the fix) and, through it, by the
CLI with exit 2: DNS-1035 job names whose derived pod and Service names still fit in 63
characters, DNS-1123 Job names and namespaces, a non-empty image, a finite positive floor."""

import json
import math
from pathlib import Path

import kubernetes_validate
import pytest
from trainstack import cli, launch
from trainstack.launch import LaunchError
from trainstack.outputs import parse_outputs

RECORDED = Path(__file__).resolve().parents[1] / "data" / "outputs"
K8S_VERSION = "1.33"


def recorded(stack):
    return parse_outputs(json.loads((RECORDED / f"{stack}.json").read_text()))


def pytorchjob(name, nodes=2, **changes):
    """An elastic job (one node may go): every replica a Worker, pods <name>-worker-0 .. <name>-worker-<nodes-1>."""
    arguments = {"name": name, "group_name": "p5", "nodes": nodes, "min_nodes": nodes - 1, "image": "img:1",
                 "command": ["train"]}
    return launch.render_pytorchjob(recorded("fsdp-p5"), **{**arguments, **changes})


@pytest.mark.parametrize("name, says", [
    ("Bad_Name!", "name Bad_Name!: a PyTorchJob name must be a DNS-1035 label"),
    ("x" * 300, "at most 63 characters; it has 300"),
    ("7b-pretrain", "begin with a lower-case letter"),
    ("llama.pretrain", "a PyTorchJob name must be a DNS-1035 label"),
    ("", "a PyTorchJob name must be a DNS-1035 label"),
])
def test_a_pytorchjob_name_kubernetes_refuses_is_refused_naming_it_and_the_fix(name, says):
    with pytest.raises(LaunchError, match="Fix: pass --name") as refused:
        pytorchjob(name)
    assert says in str(refused.value) and len(str(refused.value)) < 600


def test_the_longest_pytorchjob_name_leaves_room_for_the_last_worker_pods_name():
    # 16 nodes: the last pod and Service is <name>-worker-15, 10 characters after the name.
    job = pytorchjob("a" * 53, nodes=16)
    assert job["metadata"]["name"] == "a" * 53
    with pytest.raises(LaunchError, match=f"the operator derives the name {'a' * 54}-worker-15 from it"):
        pytorchjob("a" * 54, nodes=16)
    # Fewer nodes, a shorter index: the same name fits.
    assert pytorchjob("a" * 54, nodes=10)["metadata"]["name"] == "a" * 54


def test_a_job_of_fixed_size_names_its_master_pod_too():
    # Not elastic: Master 0 and Worker 0 (2 nodes).
    outputs = recorded("nemo-p4de")
    launch.render_pytorchjob(outputs, name="a" * 54, group_name="p4de", nodes=2, image="img:1", command=["t"])
    with pytest.raises(LaunchError, match="-master-0"):
        launch.render_pytorchjob(outputs, name="a" * 55, group_name="p4de", nodes=2, image="img:1", command=["t"])


def test_an_mpijob_name_leaves_room_for_its_launcher_and_last_worker():
    outputs = recorded("trn1")
    job = launch.render_mpijob(outputs, name="a" * 54, group_name="trn1", nodes=4, image="img:1", command=["t"])
    assert job["metadata"]["name"] == "a" * 54
    with pytest.raises(LaunchError, match="an MPIJob name must be a DNS-1035 label"):
        launch.render_mpijob(outputs, name="a" * 55, group_name="trn1", nodes=4, image="img:1", command=["t"])


def test_a_device_check_job_takes_dns_subdomain_names_up_to_63_characters():
    outputs = recorded("fsdp-p5")
    for name in ("7b.check", "c" * 63):
        job = launch.render_device_check(outputs, name=name, group_name="p5", nodes=1, image="img:1")
        kubernetes_validate.validate(job, K8S_VERSION, strict=True)
    for name in ("c" * 64, "Check", "-check", "check."):
        with pytest.raises(LaunchError, match="a Job name is lower-case letters"):
            launch.render_device_check(outputs, name=name, group_name="p5", nodes=1, image="img:1")


@pytest.mark.parametrize("image", ["", " ", "img:1 --privileged", "img:1\n"])
def test_an_empty_image_or_one_with_white_space_is_refused_by_every_kubernetes_launcher(image):
    outputs = recorded("fsdp-p5")
    for render in (lambda: pytorchjob("job", image=image),
                   lambda: launch.render_device_check(outputs, name="c", group_name="p5", nodes=1, image=image),
                   lambda: launch.render_all_reduce(outputs, name="c", group_name="p5", nodes=2, image=image),
                   lambda: launch.render_mpijob(recorded("trn1"), name="m", group_name="trn1", nodes=1, image=image,
                                         command=[]),
                   lambda: launch.render_hyperpod_pytorchjob(outputs, name="h", group_name="p5", nodes=1, image=image,
                                                      command=[])):
        with pytest.raises(LaunchError, match="the container image is required and holds no spaces"):
            render()


@pytest.mark.parametrize("namespace", ["Kubeflow", "kube_flow", "n" * 64])
def test_a_namespace_that_is_not_a_dns_label_is_refused(namespace):
    with pytest.raises(LaunchError, match="a namespace is a DNS-1123 label"):
        pytorchjob("job", namespace=namespace)


@pytest.mark.parametrize("floor", [math.nan, math.inf, -math.inf, 0, -1])
def test_a_floor_that_is_not_a_finite_bandwidth_above_zero_is_refused(floor):
    with pytest.raises(LaunchError, match="the all-reduce floor is a finite bus bandwidth in Gbit/s above 0"):
        launch.render_all_reduce(recorded("fsdp-p5"), name="nccl", group_name="p5", nodes=2, image="img:1",
                          floor_gbps=floor)


@pytest.mark.parametrize("name", ["", "two words", "job\n#SBATCH --nodes=99"])
def test_a_slurm_job_name_that_would_break_the_sbatch_line_is_refused(name):
    with pytest.raises(LaunchError, match="a Slurm job name goes into an '#SBATCH --job-name=' line"):
        launch.render_sbatch(recorded("hyperpod"), name=name, group_name="worker-group-1", nodes=1,
                             command=["torchrun", "train.py"])


@pytest.mark.parametrize("argv, says", [
    (["pytorchjob", "--name", "Bad_Name!", "--image", "img:1"], "error: launch: name Bad_Name!: a PyTorchJob"),
    (["pytorchjob", "--name", "x" * 300, "--image", "img:1"], "error: launch: name " + "x" * 80 + "... (220 more"),
    (["pytorchjob", "--image", ""], "error: launch: image '': the container image is required"),
    (["all-reduce", "--image", "img:1", "--floor-gbps", "nan"], "error: launch: floor_gbps nan: "),
    (["all-reduce", "--image", "img:1", "--floor-gbps", "inf"], "error: launch: floor_gbps inf: "),
    (["all-reduce", "--image", "img:1", "--floor-gbps", "0"], "error: launch: floor_gbps 0.0: "),
    (["all-reduce", "--image", "img:1", "--floor-gbps", "-1"], "error: launch: floor_gbps -1.0: "),
    (["device-check", "--image", "img:1", "--name", "D" * 70], "error: launch: name DDD"),
])
def test_the_cli_refuses_the_same_arguments_with_exit_2_and_one_line(capsys, argv, says):
    kind, *rest = argv
    code = cli.main(["launch", kind, "--outputs", str(RECORDED / "fsdp-p5.json"), "--group", "p5", "--nodes", "2",
                     *rest])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith(says) and err.count("\n") == 1 and len(err) < 600 and "Traceback" not in err
