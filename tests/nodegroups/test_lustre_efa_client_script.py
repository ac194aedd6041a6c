"""The Lustre-over-EFA boot script puts LNet on the node's EFA devices, picked by their driver, or fails
loudly saying why: the EFA Lustre network driver (kefalnd) missing, no EFA device, or any lnetctl step that
exits non-zero. Run here with bash against a fake /sys/class/infiniband (each device's PCI function bound to
a driver by a symlink, as sysfs shows it) and stand-ins for modprobe, ip, hostname and lnetctl."""

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from trainstack import catalog
from trainstack.nodegroups.lustre_efa_client import lustre_efa_client_script

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

P5_EFA = [f"rdmap{bus}s0" for bus in range(100, 132)]  # 32 EFA devices
B200_EFA = [f"rdmap{bus}s0" for bus in range(140, 148)]  # 8 EFA devices
NVIDIA_RDMA = ["mlx5_0", "mlx5_1"]  # listed beside the EFA devices, sorted before them


@dataclass
class Run:
    code: int
    stderr: str
    calls: list[str]  # lnetctl's and modprobe's arguments, in order
    kernel_log: str


def sysfs(root: Path, devices: dict[str, str]) -> Path:
    """A /sys/class/infiniband whose devices (name -> driver) point at PCI functions bound to their driver."""
    infiniband = root / "class" / "infiniband"
    for index, (name, driver) in enumerate(devices.items()):
        (root / "bus" / "pci" / "drivers" / driver).mkdir(parents=True, exist_ok=True)
        function = root / "devices" / "pci0000:00" / f"0000:{index + 16:02x}:00.0"
        function.mkdir(parents=True)
        (function / "driver").symlink_to(root / "bus" / "pci" / "drivers" / driver)
        (infiniband / name).mkdir(parents=True)
        (infiniband / name / "device").symlink_to(function)
    infiniband.mkdir(parents=True, exist_ok=True)
    return infiniband


def run(tmp_path: Path, instance_type: str, devices: dict[str, str], *, lnetctl_fails: str = "",
        kefalnd: bool = True) -> Run:
    bin_dir, calls, kmsg = tmp_path / "bin", tmp_path / "calls", tmp_path / "kmsg"
    bin_dir.mkdir()
    calls.touch()
    stand_ins = {
        "modprobe": f"echo \"modprobe $*\" >> {calls}\n"
                    + ("" if kefalnd else "[ \"$1\" = kefalnd ] && { echo 'modprobe: FATAL: Module kefalnd not found' "
                                          ">&2; exit 1; }\n") + "exit 0",
        "ip": "echo 'lo UNKNOWN 127.0.0.1/8'; echo 'ens5 UP 10.0.0.5/24'",
        "hostname": "echo 10.0.0.5",
        "lnetctl": f"echo \"lnetctl $*\" >> {calls}\n"
                   f"[[ -n \"$LNETCTL_FAILS\" && \"$*\" == \"$LNETCTL_FAILS\"* ]] && "
                   "{ echo \"lnetctl: $*: Invalid argument\" >&2; exit 22; }\nexit 0",
    }
    for name, body in stand_ins.items():
        (bin_dir / name).write_text(f"#!/usr/bin/env bash\n{body}\n")
        (bin_dir / name).chmod(0o755)
    script = lustre_efa_client_script(catalog.get(instance_type))
    for real, fake in (("/sbin/modprobe", bin_dir / "modprobe"), ("/sbin/ip", bin_dir / "ip"),
                       ("/sys/class/infiniband", sysfs(tmp_path / "sys", devices)), ("/dev/kmsg", kmsg)):
        script = script.replace(real, str(fake))
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "LC_ALL": "C", "LNETCTL_FAILS": lnetctl_fails}
    ran = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30, env=env)
    return Run(ran.returncode, ran.stderr, calls.read_text().splitlines(),
               kmsg.read_text() if kmsg.exists() else "")


def efa_adds(result: Run) -> list[str]:
    prefix = "lnetctl net add --net efa --if "
    return [call[len(prefix):].split()[0] for call in result.calls if call.startswith(prefix)]


def test_a_p5_puts_lnet_on_every_fourth_efa_device_tcp_on_its_interface_and_prefers_efa(tmp_path):
    result = run(tmp_path, "p5.48xlarge", dict.fromkeys(P5_EFA, "efa"))
    assert (result.code, result.stderr) == (0, "")
    assert efa_adds(result) == P5_EFA[::4]
    assert result.calls[:3] == ["modprobe lnet", "modprobe kefalnd ipif_name=ens5", "modprobe ksocklnd"]
    assert "lnetctl net add --net tcp --if ens5" in result.calls
    assert result.calls[-3:] == ["lnetctl set discovery 1", "lnetctl udsp add --src efa --priority 0",
                                 "modprobe lustre"]


def test_on_a_blackwell_type_only_the_efa_devices_are_picked_not_the_nvidia_rdma_devices_beside_them(tmp_path):
    devices = {**dict.fromkeys(NVIDIA_RDMA, "mlx5_core"), **dict.fromkeys(B200_EFA, "efa")}
    result = run(tmp_path, "p6-b200.48xlarge", devices)
    assert (result.code, result.stderr) == (0, "")
    assert efa_adds(result) == [B200_EFA[0], B200_EFA[-1]]


def test_a_p5_counts_its_fourths_among_the_efa_devices_alone(tmp_path):
    devices = {**dict.fromkeys(NVIDIA_RDMA, "mlx5_core"), **dict.fromkeys(P5_EFA, "efa")}
    assert efa_adds(run(tmp_path, "p5.48xlarge", devices)) == P5_EFA[::4]


def test_a_node_with_one_efa_device_puts_lnet_on_it_once(tmp_path):
    assert efa_adds(run(tmp_path, "g5.8xlarge", {"rdmap0s6": "efa"})) == ["rdmap0s6"]


def test_no_efa_device_fails_with_the_reason_in_the_kernel_log_before_lnet_is_touched(tmp_path):
    result = run(tmp_path, "p6-b200.48xlarge", dict.fromkeys(NVIDIA_RDMA, "mlx5_core"))
    assert result.code == 1
    assert "no EFA device under" in result.stderr and "none bound to the efa driver" in result.stderr
    assert "no EFA device under" in result.kernel_log
    assert not [call for call in result.calls if call.startswith("lnetctl")]


@pytest.mark.parametrize("step", ["lnet configure", "net add --net tcp", "net add --net efa", "set discovery",
                                  "udsp add"])
def test_any_lnetctl_step_that_fails_stops_the_script_naming_it(tmp_path, step):
    result = run(tmp_path, "p6-b200.48xlarge", dict.fromkeys(B200_EFA, "efa"), lnetctl_fails=step)
    assert result.code == 1
    assert f"trainstack: lnetctl {step}" in result.stderr and "failed (exit 22)" in result.stderr
    assert "LNet is not on EFA" in result.kernel_log
    failed_at = next(i for i, call in enumerate(result.calls) if call.startswith(f"lnetctl {step}"))
    assert result.calls[failed_at + 1:] == []  # nothing after it: not Lustre, not the next step


def test_without_the_efa_lustre_driver_the_script_fails_with_the_reason(tmp_path):
    result = run(tmp_path, "p5.48xlarge", dict.fromkeys(P5_EFA, "efa"), kefalnd=False)
    assert result.code == 1
    assert "FSx for Lustre over EFA was asked for (fsx.efa) but this AMI has no EFA Lustre network driver" \
        in result.stderr
    assert not [call for call in result.calls if call.startswith("lnetctl")]  # nothing configured half-way
