"""The validation jobs carry the package's program files unchanged, pass the stack's
figures as arguments, and end with one verdict."""

import json
import resource
import stat
import subprocess
import sys
from pathlib import Path

import kubernetes_validate
import pytest
from support import rendered_jobs
from support.openapi_models import check
from trainstack.launch import LaunchError, render_all_reduce, render_device_check
from trainstack.launch.programs import program_text
from trainstack.outputs import parse_outputs

RECORDED = Path(__file__).resolve().parents[1] / "data" / "outputs"
PROGRAMS = Path(__file__).resolve().parents[2] / "components" / "launch" / "programs"
K8S_VERSION = "1.33"


def recorded(stack):
    return parse_outputs(json.loads((RECORDED / f"{stack}.json").read_text()))


def executable(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


# A p5.48xlarge's 2 TiB as /proc/meminfo's MemTotal (kB) would print it.
P5_MEMORY_KIB = 2048 * 1024 * 1024


def worker_command(job):
    """The command of the master's pod (an all-reduce needs all its nodes: a Master and Workers, one pod spec)."""
    return job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["command"]


def test_device_check_is_a_valid_job_running_the_packaged_script_with_the_groups_counts():
    job = render_device_check(recorded("fsdp-p5"), name="check", group_name="p5", nodes=2, image="img:1")
    kubernetes_validate.validate(job, K8S_VERSION, strict=True)
    command = job["spec"]["template"]["spec"]["containers"][0]["command"]
    assert command == ["/bin/sh", "-c", (PROGRAMS / "device_check.sh").read_text(), "device_check",
                       "nvidia-gpu", "8", "32", "fabric"]
    assert job["spec"]["completions"] == job["spec"]["parallelism"] == 2 and job["spec"]["backoffLimit"] == 0


def test_device_check_for_fewer_gpus_claims_and_expects_that_many_and_every_efa_interface():
    job = render_device_check(recorded("fsdp-p5"), name="check", group_name="p5", nodes=1, image="img:1",
                              accelerators_per_node=2)
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert container["command"][-4:] == ["nvidia-gpu", "2", "32", "fabric"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "2"
    assert container["resources"]["limits"]["vpc.amazonaws.com/efa"] == "32"


def test_the_device_check_script_passes_shellcheck():
    subprocess.run([str(Path(sys.executable).parent / "shellcheck"), str(PROGRAMS / "device_check.sh")],
                   check=True)


@pytest.fixture
def pod(tmp_path):
    """A fake pod: nvidia-smi and fi_info on PATH, an EFA device folder, and a runner."""
    bin_dir, efa_dir = tmp_path / "bin", tmp_path / "infiniband"
    bin_dir.mkdir()
    efa_dir.mkdir()
    # Two GPUs, one split into MIG devices: -L lists 4 lines, the GPU query 2.
    executable(bin_dir / "nvidia-smi", """#!/bin/sh
if [ "$1" = "-L" ]; then
  printf 'GPU 0: NVIDIA H200 (UUID: GPU-0)\\n  MIG 3g.71gb Device 0: (UUID: MIG-0)\\n'
  printf '  MIG 3g.71gb Device 1: (UUID: MIG-1)\\nGPU 1: NVIDIA H200 (UUID: GPU-1)\\n'
elif [ "$1" = "--query-gpu=index,fabric.state,fabric.status" ]; then
  if [ -z "${FABRIC:-}" ]; then echo 'Field "fabric.state" is not a valid field to query.'; exit 2; fi
  printf "$FABRIC"
else
  printf '0\\n1\\n'
fi
""")

    def run(*args: str, efa_devices: int = 0, domains: tuple[str, ...] | None = None, fabric: str = "",
            locked: str | None = "unlimited", node_kib: int = P5_MEMORY_KIB, limit_bytes: int | None = None):
        """``locked``: what the shell's ``ulimit -l`` prints (a function shadowing the builtin); None keeps the real
        builtin, with the process's limit lowered to ``limit_bytes``. ``node_kib``: the fake /proc/meminfo's
        MemTotal."""
        (tmp_path / "meminfo").write_text(f"MemTotal:       {node_kib} kB\nMemFree:        1024 kB\n")
        for index in range(efa_devices):
            (efa_dir / f"uverbs{index}").touch()
        if domains is not None:
            # fi_info lists a domain once per fabric that offers it (efa and efa-direct).
            lines = "".join(f"provider: efa\\n    domain: {d}\\nprovider: efa\\n    domain: {d}\\n" for d in domains)
            executable(bin_dir / "fi_info", f"#!/bin/sh\nprintf '{lines}'\n")
        env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "EFA_DEVICE_DIR": str(efa_dir), "FABRIC": fabric,
               "MEMINFO": str(tmp_path / "meminfo")}
        fake_limit = f"ulimit() {{ echo '{locked}'; }}\n" if locked is not None else ""

        def lower_limit() -> None:
            if limit_bytes is not None:
                resource.setrlimit(resource.RLIMIT_MEMLOCK, (limit_bytes, limit_bytes))

        return subprocess.run(["/bin/sh", "-c", fake_limit + program_text("device_check.sh"), "device_check", *args],
                              capture_output=True, text=True, env=env, preexec_fn=lower_limit)

    return run


def test_device_check_counts_gpus_not_the_mig_devices_listed_under_them(pod):
    result = pod("nvidia-gpu", "2", "0")
    assert "accelerators (nvidia-gpu): 2 of 2" in result.stdout and result.returncode == 0


def test_device_check_fails_when_the_pod_was_given_no_efa_devices_and_says_so(pod):
    result = pod("nvidia-gpu", "2", "16")
    assert "EFA devices: 0 of 16: EFA ABSENT" in result.stdout and "vpc.amazonaws.com/efa" in result.stdout
    assert result.returncode == 1


def test_device_check_passes_with_the_pods_efa_devices_all_usable_by_libfabric(pod):
    result = pod("nvidia-gpu", "2", "2", efa_devices=2, domains=("rdmap16s27-rdm", "rdmap32s27-rdm"))
    assert "EFA devices: 2 of 2" in result.stdout and "libfabric EFA domains: 2 of 2" in result.stdout
    assert result.returncode == 0


def test_device_check_fails_when_libfabric_cannot_open_every_efa_device(pod):
    result = pod("nvidia-gpu", "2", "2", efa_devices=2, domains=("rdmap16s27-rdm",))
    assert "libfabric EFA domains: 1 of 2" in result.stdout and result.returncode == 1


def test_device_check_fails_on_a_missing_gpu(pod):
    result = pod("nvidia-gpu", "8", "0")
    assert "accelerators (nvidia-gpu): 2 of 8" in result.stdout and result.returncode == 1


def test_an_efa_pod_under_containerds_default_8_mib_locked_memory_fails_the_check_saying_where_to_raise_it(pod):
    """The real ``ulimit -l`` of a process limited as containerd's default leaves an AL2023 pod (8 MiB,
    catalog/efa_node.py), on a node of 2 TiB."""
    limit = min(8 * 1024 * 1024, resource.getrlimit(resource.RLIMIT_MEMLOCK)[1])
    result = pod("nvidia-gpu", "2", "2", efa_devices=2, domains=("rdmap16s27-rdm", "rdmap32s27-rdm"),
                 locked=None, limit_bytes=limit)
    assert (f"locked memory (ulimit -l): {limit // 1024} KiB: TOO LOW FOR EFA, below the node's {P5_MEMORY_KIB} KiB"
            in result.stdout), result.stdout
    assert "nodeadm NodeConfig spec.containerd.baseRuntimeSpec" in result.stdout
    assert result.returncode == 1 and result.stdout.endswith("device check: FAIL\n")


def test_an_unlimited_locked_memory_limit_passes_an_efa_pod(pod):
    result = pod("nvidia-gpu", "2", "2", efa_devices=2, domains=("rdmap16s27-rdm", "rdmap32s27-rdm"))
    assert "locked memory (ulimit -l): unlimited" in result.stdout and result.returncode == 0, result.stdout


def test_a_limit_of_at_least_the_nodes_memory_is_unlimited_in_effect_and_passes(pod):
    """trainstack's EFA nodes set 2**53 bytes (catalog/efa_node.py), which ``ulimit -l`` prints in KiB."""
    result = pod("nvidia-gpu", "2", "2", efa_devices=2, domains=("rdmap16s27-rdm", "rdmap32s27-rdm"),
                 locked=str(2 ** 53 // 1024))
    assert f"locked memory (ulimit -l): {2 ** 53 // 1024} KiB, at least the node's {P5_MEMORY_KIB} KiB" in result.stdout
    assert result.returncode == 0


def test_one_kib_below_the_nodes_memory_fails_an_efa_pod(pod):
    result = pod("nvidia-gpu", "2", "2", efa_devices=2, domains=("rdmap16s27-rdm", "rdmap32s27-rdm"),
                 locked=str(P5_MEMORY_KIB - 1))
    assert "TOO LOW FOR EFA" in result.stdout and result.returncode == 1


def test_a_pod_without_efa_prints_its_locked_memory_and_is_not_failed_by_it(pod):
    result = pod("nvidia-gpu", "2", "0", locked="8192")
    assert (f"locked memory (ulimit -l): 8192 KiB, below the node's {P5_MEMORY_KIB} KiB (no EFA expected)"
            in result.stdout)
    assert result.returncode == 0


def test_a_shell_whose_ulimit_prints_no_number_fails_an_efa_pod_and_says_what_it_printed(pod):
    result = pod("nvidia-gpu", "2", "2", efa_devices=2, domains=("rdmap16s27-rdm", "rdmap32s27-rdm"),
                 locked="ulimit: bad option")
    assert "locked memory (ulimit -l): unknown, this shell printed 'ulimit: bad option'" in result.stdout
    assert result.returncode == 1


# What nvidia-smi printed on a 4 x H200 host (docs/validation/nvidia-smi-fabric-h200.txt), for this pod's two GPUs.
REGISTERED = "0, Completed, Success\n1, Completed, Success\n"


def test_on_nvswitch_the_device_check_passes_when_every_gpu_is_registered_in_the_nvlink_fabric(pod):
    result = pod("nvidia-gpu", "2", "0", "fabric", fabric=REGISTERED)
    assert "fabric manager: every GPU's NVLink fabric registration Completed, Success" in result.stdout
    assert result.returncode == 0


def test_a_gpu_the_fabric_manager_has_not_registered_fails_the_check_naming_it(pod):
    result = pod("nvidia-gpu", "2", "0", "fabric", fabric="0, Completed, Success\n1, In Progress, N/A\n")
    assert "FABRIC NOT READY" in result.stdout and "1, In Progress, N/A" in result.stdout
    assert "nvidia-fabricmanager" in result.stdout and result.returncode == 1


def test_a_gpu_registered_with_an_error_status_fails_the_check_too(pod):
    result = pod("nvidia-gpu", "2", "0", "fabric", fabric="0, Completed, Success\n1, Completed, Failure\n")
    assert "1, Completed, Failure" in result.stdout and result.returncode == 1


def test_a_driver_whose_nvidia_smi_has_no_fabric_fields_leaves_the_fabric_unchecked_and_says_so(pod):
    result = pod("nvidia-gpu", "2", "0", "fabric")
    assert "fabric manager: not checked" in result.stdout and result.returncode == 0


@pytest.mark.parametrize(("stack", "group", "checked"), [
    ("fsdp-p5", "p5", True), ("b200-dra", "b200", True), ("nemo-p4de", "p4de", False), ("dev", "gpu", False)])
def test_the_fabric_is_checked_on_nvswitch_types_of_hopper_and_later(stack, group, checked):
    """H100, H200, B200 report their fabric registration (NVML: "Hopper or newer"); the A100 of p4de predates it,
    and g5's A10G has no NVSwitch."""
    job = render_device_check(rendered_jobs.outputs_of(stack), name="check", group_name=group, nodes=1, image="img:1")
    assert (job["spec"]["template"]["spec"]["containers"][0]["command"][-1] == "fabric") is checked


def check_for(rendezvous=None, stack="fsdp-p5"):
    arguments = {"rendezvous": rendezvous} if rendezvous else {}
    return render_device_check(recorded(stack), name="check", group_name="p5", nodes=1, image="img:1", **arguments)


def test_the_device_check_for_a_job_on_etcd_imports_python_etcds_module_in_the_jobs_image():
    command = check_for("etcd")["spec"]["template"]["spec"]["containers"][0]["command"]
    assert command[-1].startswith("import:etcd:torch's etcd rendezvous imports it and torch does not install it: "
                                  "add python-etcd to the image (pip install python-etcd)")
    # c10d, the default, needs nothing beyond torch: nothing to import.
    assert not any(arg.startswith("import:") for arg in check_for()["spec"]["template"]["spec"]["containers"][0][
        "command"])


def test_a_device_check_for_etcd_on_a_stack_without_etcd_is_refused():
    with pytest.raises(LaunchError, match=r"--rendezvous etcd: stack nemo-p4de runs no etcd; turn on operators\.etcd"):
        render_device_check(recorded("nemo-p4de"), name="check", group_name="p4de", nodes=1, image="img:1",
                            rendezvous="etcd")


def run_in_image(tmp_path, command, **env):
    """The rendered check's script and arguments, run as the pod would with this Python first on PATH (it has no
    python-etcd) and a fake nvidia-smi."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    executable(bin_dir / "nvidia-smi", "#!/bin/sh\nprintf '0\\n1\\n'\n")
    (bin_dir / "python3").unlink(missing_ok=True)
    (bin_dir / "python3").symlink_to(sys.executable)
    imports = [argument for argument in command if argument.startswith("import:")]
    # The fake node's two GPUs, no EFA interface, no fabric to read; the rendered imports as they are.
    return subprocess.run(["/bin/sh", "-c", command[2], "device_check", "nvidia-gpu", "2", "0", *imports],
                          capture_output=True, text=True,
                          env={"PATH": f"{bin_dir}:/usr/bin:/bin", "EFA_DEVICE_DIR": str(tmp_path), **env})


def test_an_image_without_python_etcd_fails_the_check_with_the_line_that_says_what_to_add(tmp_path):
    import importlib.util
    assert importlib.util.find_spec("etcd") is None  # the test's Python is the image without it
    result = run_in_image(tmp_path, check_for("etcd")["spec"]["template"]["spec"]["containers"][0]["command"])
    assert result.returncode == 1 and result.stdout.endswith("device check: FAIL\n")
    assert ("python module etcd: IMPORT FAILED (ModuleNotFoundError: No module named 'etcd'): torch's etcd "
            "rendezvous imports it and torch does not install it: add python-etcd to the image (pip install "
            "python-etcd), or launch with --rendezvous c10d") in result.stdout


def test_an_image_with_the_etcd_module_passes_the_check(tmp_path):
    site = tmp_path / "site-packages"
    (site / "etcd").mkdir(parents=True)
    (site / "etcd" / "__init__.py").write_text("")
    result = run_in_image(tmp_path, check_for("etcd")["spec"]["template"]["spec"]["containers"][0]["command"],
                          PYTHONPATH=str(site))
    assert result.returncode == 0, result.stdout
    assert f"python module etcd: imports ({tmp_path / 'bin' / 'python3'})" in result.stdout


def test_all_reduce_job_runs_the_packaged_program_with_the_default_floor_and_expected_figure():
    job = render_all_reduce(recorded("fsdp-p5"), name="nccl", group_name="p5", nodes=2, image="img:1")
    check(job, "KubeflowOrgV1PyTorchJob")
    command = worker_command(job)
    assert command[:5] == ["/bin/sh", "-c", command[2], "all-reduce", (PROGRAMS / "all_reduce.py").read_text()]
    args = command[5:]
    # Two p5.48xlarge: half the 3200 Gbit/s network EC2 gives the type.
    assert args[args.index("--floor-gbps") + 1] == "1600" and args[args.index("--expected-gbps") + 1] == "3200"
    assert "p5.48xlarge network 3200 Gbit/s" in args[args.index("--basis") + 1]


def test_all_reduce_on_one_node_is_held_to_half_the_nvlink_peak():
    job = render_all_reduce(recorded("fsdp-p5"), name="nccl", group_name="p5", nodes=1, image="img:1")
    args = worker_command(job)[5:]
    assert args[args.index("--floor-gbps") + 1] == "1800" and args[args.index("--expected-gbps") + 1] == "3600"
    assert "NVLink 4" in args[args.index("--basis") + 1] and "estimate" in args[args.index("--basis") + 1]


def test_an_explicit_floor_replaces_the_default_and_keeps_the_expected_figure():
    job = render_all_reduce(recorded("fsdp-p5"), name="nccl", group_name="p5", nodes=2, image="img:1",
                            floor_gbps=2500)
    args = worker_command(job)[5:]
    assert args[args.index("--floor-gbps") + 1] == "2500" and args[args.index("--expected-gbps") + 1] == "3200"


def test_a_missed_floor_fails_the_job_for_good_instead_of_restarting_it():
    job = render_all_reduce(recorded("nemo-p4de"), name="nccl", group_name="p4de", nodes=2, image="img:1")
    check(job, "KubeflowOrgV1PyTorchJob")
    assert {spec["restartPolicy"] for spec in job["spec"]["pytorchReplicaSpecs"].values()} == {"ExitCode"}


def test_the_rendered_launcher_hands_torchrun_the_program_unchanged(tmp_path):
    job = render_all_reduce(recorded("fsdp-p5"), name="nccl", group_name="p5", nodes=2, image="img:1",
                            floor_gbps=100)
    executable(tmp_path / "torchrun", '#!/bin/sh\ncat "$1"\nshift\nprintf "%s|" "$@"\n')
    result = subprocess.run(worker_command(job), capture_output=True, text=True, check=True,
                            env={"PATH": f"{tmp_path}:/usr/bin:/bin"})
    program = (PROGRAMS / "all_reduce.py").read_text()
    assert result.stdout.startswith(program)
    assert result.stdout[len(program):].startswith("--floor-gbps|100|--megabytes|1024|--iterations|20|")


@pytest.mark.parametrize("call, message", [
    (lambda o: render_all_reduce(o, name="x", group_name="p5", nodes=1, image="i", gpus_per_node=1),
     "all-reduce needs at least two GPUs; group 'p5' \\(p5.48xlarge\\) gives 1 per node"),
    (lambda o: render_all_reduce(o, name="x", group_name="p5", nodes=2, image="i", floor_gbps=0),
     "floor_gbps 0: the all-reduce floor is a finite bus bandwidth in Gbit/s above 0"),
    (lambda o: render_all_reduce(o, name="x", group_name="p5", nodes=17, image="i"),
     "scales to 16 nodes; 17 were asked for"),
])
def test_all_reduce_refuses_what_it_cannot_measure_with_the_numbers(call, message):
    with pytest.raises(LaunchError, match=message):
        call(recorded("fsdp-p5"))


def test_all_reduce_on_an_efa_type_holds_nccl_to_aws_ofi_nccl_and_elsewhere_to_nothing():
    outputs = recorded("fsdp-p5")
    # p5 has GPUDirect RDMA: the check also holds every connection over EFA to it.
    assert worker_command(render_all_reduce(outputs, name="nccl", group_name="p5", nodes=2, image="img:1"))[-3:] \
        == ["--network", "efa", "--rdma"]
    group = outputs.accelerated_groups["p5"]
    g6e = outputs.model_copy(update={"accelerated_groups": {
        "p5": group.model_copy(update={"instance_type": "g6e.48xlarge"})}})
    assert worker_command(render_all_reduce(g6e, name="nccl", group_name="p5", nodes=2, image="img:1",
                                            floor_gbps=100))[-2:] == ["--network", "efa"]
    without_efa = outputs.model_copy(update={"accelerated_groups": {
        "p5": group.model_copy(update={"efa_interfaces_per_node": 0})}})
    job = render_all_reduce(without_efa, name="nccl", group_name="p5", nodes=2, image="img:1", floor_gbps=100)
    assert "--network" not in worker_command(job)
