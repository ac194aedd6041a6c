"""Validation jobs: are the devices the outputs advertise really there, and does
all-reduce across nodes reach a bandwidth floor?"""

from __future__ import annotations

from ..outputs import StackOutputs
from .placement import check_nodes, group, pod_placement, resources
from .pytorchjob import render_pytorchjob

DEVICE_CHECK = r"""
set -eu
expected_accelerators={accelerators}
expected_efa={efa}
if [ "{kind}" = "nvidia-gpu" ]; then found=$(nvidia-smi -L | wc -l); else found=$(ls /dev/neuron* | wc -l); fi
efa=$(ls -d /sys/class/infiniband/*/ 2>/dev/null | wc -l)
echo "accelerators: $found of $expected_accelerators; EFA devices: $efa of $expected_efa"
[ "$found" -eq "$expected_accelerators" ] && [ "$efa" -eq "$expected_efa" ]
"""

ALL_REDUCE = r"""
import os, sys, time, torch, torch.distributed as dist
dist.init_process_group("nccl")
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
tensor = torch.ones({elements}, dtype=torch.float32, device="cuda")
for _ in range(5):
    dist.all_reduce(tensor)
torch.cuda.synchronize()
start = time.perf_counter()
for _ in range({iterations}):
    dist.all_reduce(tensor)
torch.cuda.synchronize()
seconds = (time.perf_counter() - start) / {iterations}
world = dist.get_world_size()
bus_gbps = tensor.numel() * 4 * 2 * (world - 1) / world / seconds * 8 / 1e9
if dist.get_rank() == 0:
    print(f"all-reduce bus bandwidth {{bus_gbps:.1f}} Gbit/s (floor {floor})")
sys.exit(0 if bus_gbps >= {floor} else 1)
"""


def render_device_check(outputs: StackOutputs, *, name: str, group_name: str, nodes: int, image: str) -> dict:
    """A Job with one pod per node, each claiming the whole node's devices and counting them."""
    target = group(outputs, group_name)
    check_nodes(target, group_name, nodes)
    script = DEVICE_CHECK.format(accelerators=target.accelerators_per_node, efa=target.efa_interfaces_per_node,
                                 kind=target.accelerator_kind)
    spec = {**pod_placement(target), "restartPolicy": "Never",
            # One pod per node: the pods claim every device, so two cannot share a node.
            "containers": [{"name": "check", "image": image, "command": ["/bin/sh", "-c", script],
                            "resources": resources(target, target.accelerators_per_node)}]}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"completions": nodes, "parallelism": nodes, "backoffLimit": 0, "template": {"spec": spec}}}


def render_all_reduce(outputs: StackOutputs, *, name: str, group_name: str, nodes: int, image: str,
                      floor_gbps: float, megabytes: int = 1024, iterations: int = 20) -> dict:
    """A PyTorchJob timing NCCL all-reduce over every GPU of the nodes; it fails below ``floor_gbps``.

    torchrun takes its node count, rank and rendezvous from the PET_* variables the
    training operator sets, one process per GPU.
    """
    program = ALL_REDUCE.format(elements=megabytes * 1024 * 1024 // 4, iterations=iterations, floor=floor_gbps)
    shell = f"cat > /tmp/all_reduce.py <<'PROGRAM'\n{program}\nPROGRAM\nexec torchrun /tmp/all_reduce.py"
    return render_pytorchjob(outputs, name=name, group_name=group_name, nodes=nodes, image=image,
                             command=["/bin/sh", "-c", shell])
