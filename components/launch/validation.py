"""Validation jobs: are the devices the outputs advertise really there, and does
all-reduce across the GPUs reach a bandwidth floor?

The programs the pods run are files of ``trainstack.launch.programs``; the jobs carry
their text unchanged and pass the stack's figures as arguments.
"""

from __future__ import annotations

from typing import Any, Optional

from ..catalog.fabric_env import gpudirect_rdma
from ..catalog.interconnect import reports_fabric_registration
from ..outputs import StackOutputs
from .arguments import check_batch_job_name, check_floor, check_image
from .claims import pod_claims
from .floors import Floor, default_floor
from .limits import check_job
from .placement import LaunchError, check_nodes, devices_per_node, group, pod_placement, resources
from .programs import program_text
from .pytorchjob import render_pytorchjob
from .queueing import QueueRequest, admission, annotate_pods, label_job
from .rendezvous import DEFAULT_BACKEND, IMAGE_IMPORTS, check_backend
from .team_identity import run_as_team
from .trainjob import render_trainjob
from .ultraserver import keep_in_unit

# `sh -c SCRIPT NAME ARGS...`: the program arrives as $1, is written to a file, and
# torchrun runs it with the remaining arguments. No quoting or heredoc touches its text.
ALL_REDUCE_LAUNCH = 'printf "%s" "$1" > /tmp/all_reduce.py && shift && exec torchrun /tmp/all_reduce.py "$@"'

# Pod exits 1-127 fail a PyTorchJob replica for good under the training operator's
# ExitCode policy (128 and above, signals, are retried): a floor missed is a verdict,
# not a fault to restart from. Nor does torchrun's elastic agent restart it: the all-reduce
# needs all its nodes, so it is never elastic and has no elasticPolicy.maxRestarts
# (rendezvous.py; controllers/restarts.py finds one that is).
VERDICT_RESTART_POLICY = "ExitCode"


def render_device_check(outputs: StackOutputs, *, name: str, group_name: str, nodes: int, image: str,
                        accelerators_per_node: Optional[int] = None,
                        queue: Optional[QueueRequest] = None, rendezvous: str = DEFAULT_BACKEND) -> dict[str, Any]:
    """A Job with one pod per node, each claiming the node's devices and counting what it was given.

    ``accelerators_per_node`` claims fewer accelerators than the node has (default: all);
    every EFA interface is always claimed, which keeps the pods on separate nodes. On a stack
    with Kueue queues the check goes through the team's queue like any job (``queue``).
    ``rendezvous``: the one the training job in ``image`` will use; the check imports in the
    image what it needs beyond torch (``etcd``: python-etcd's module), so a missing one fails here,
    not on every worker at rendezvous.
    """
    check_batch_job_name(name)
    check_image(image)
    imports = IMAGE_IMPORTS[check_backend(outputs, rendezvous)]
    target = group(outputs, group_name)
    check_nodes(target, group_name, nodes)
    accelerators = devices_per_node(target, group_name, accelerators_per_node)
    command = ["/bin/sh", "-c", program_text("device_check.sh"), "device_check",
               target.accelerator_kind, str(accelerators), str(target.efa_interfaces_per_node)]
    if reports_fabric_registration(target.instance_type):
        command.append("fabric")  # NVSwitch, Hopper and later: each GPU's fabric registration is checked too
    command += [f"import:{needed.module}:{needed.fix}" for needed in imports]
    spec = {**pod_placement(target), **pod_claims(target, group_name, accelerators), "restartPolicy": "Never",
            "containers": [{"name": "check", "image": image, "command": command,
                            "resources": resources(target, accelerators)}]}
    granted = admission(outputs, group_name, nodes, queue, None, mounts_storage=False)
    job_metadata = {"name": name, **({"namespace": granted.namespace} if granted.namespace else {})}
    # On an UltraServer the check runs where the job's pods would: all of them inside one unit.
    template = annotate_pods(keep_in_unit({"spec": spec}, target.instance_type, nodes, name), granted)
    # A team's check runs as the team, as the training jobs it comes before do (team_identity.py).
    run_as_team(template, granted)
    return check_job(label_job({"apiVersion": "batch/v1", "kind": "Job", "metadata": job_metadata,
                                "spec": {"completions": nodes, "parallelism": nodes, "backoffLimit": 0,
                                         "template": template}}, granted))


def all_reduce_floor(outputs: StackOutputs, *, group_name: str, nodes: int, gpus_per_node: Optional[int] = None,
                     floor_gbps: Optional[float] = None) -> Floor:
    """The floor the job will hold the group to: ``floor_gbps`` if given, else the type's default."""
    if floor_gbps is not None:
        check_floor(floor_gbps)
    target = group(outputs, group_name)
    check_nodes(target, group_name, nodes)
    gpus = devices_per_node(target, group_name, gpus_per_node)
    if nodes * gpus < 2:
        raise LaunchError(f"all-reduce needs at least two GPUs; group '{group_name}' ({target.instance_type}) "
                          f"gives {gpus} per node and {nodes} node(s) were asked for: ask for more nodes.")
    if floor_gbps is None:
        return default_floor(target.instance_type, nodes, gpus)
    try:
        default = default_floor(target.instance_type, nodes, gpus)
    except LaunchError:
        return Floor(gbps=floor_gbps, expected_gbps=0, basis="")
    return Floor(gbps=floor_gbps, expected_gbps=default.expected_gbps, basis=default.basis)


def render_all_reduce(outputs: StackOutputs, *, name: str, group_name: str, nodes: int, image: str,
                      floor_gbps: Optional[float] = None, gpus_per_node: Optional[int] = None,
                      megabytes: int = 1024, iterations: int = 20,
                      queue: Optional[QueueRequest] = None) -> dict[str, Any]:
    """A PyTorchJob timing NCCL all-reduce over the GPUs of the nodes, failing below the floor; on a
    stack that runs Kubeflow Trainer v2 in place of the training operator, a TrainJob doing the same.

    The floor is ``floor_gbps`` or the instance type's default (:mod:`.floors`); the job
    prints it and the expected peak beside the measured bus bandwidth. torchrun takes
    its node count, rank and rendezvous from the PET_* variables the training operator
    sets, one process per GPU.
    """
    floor = all_reduce_floor(outputs, group_name=group_name, nodes=nodes, gpus_per_node=gpus_per_node,
                             floor_gbps=floor_gbps)
    args = ["--floor-gbps", f"{floor.gbps:g}", "--megabytes", str(megabytes), "--iterations", str(iterations)]
    if floor.expected_gbps:
        args += ["--expected-gbps", f"{floor.expected_gbps:g}", "--basis", floor.basis]
    target = group(outputs, group_name)
    if target.efa_interfaces_per_node:
        # Across nodes of an EFA type NCCL must run over aws-ofi-nccl and EFA, never TCP sockets;
        # on a type with GPUDirect RDMA, with the NIC reading GPU memory itself.
        args += ["--network", "efa", *(["--rdma"] if gpudirect_rdma(target.instance_type) else [])]
    command = ["/bin/sh", "-c", ALL_REDUCE_LAUNCH, "all-reduce", program_text("all_reduce.py"), *args]
    if not outputs.operators.training_operator and outputs.operators.trainer_check_runtime:
        # On Kubeflow Trainer v2 the check is a TrainJob of the never-restarting runtime; its torch
        # plugin sets the same PET_* variables torchrun reads (controllers/trainer.py).
        return render_trainjob(outputs, name=name, group_name=group_name, nodes=nodes, image=image,
                               command=command, gpus_per_node=gpus_per_node, queue=queue,
                               runtime=outputs.operators.trainer_check_runtime)
    job = render_pytorchjob(outputs, name=name, group_name=group_name, nodes=nodes, image=image,
                            command=command, gpus_per_node=gpus_per_node, queue=queue)
    for replica in job["spec"]["pytorchReplicaSpecs"].values():
        replica["restartPolicy"] = VERDICT_RESTART_POLICY
    return job
