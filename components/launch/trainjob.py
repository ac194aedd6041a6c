"""TrainJob (Kubeflow Trainer v2, trainer.kubeflow.org/v1alpha1) for GPU groups: the same
placement, devices, fabric environment, FSx mount, checkpoint location and queue as the
v1 PyTorchJob launcher, against the stack's torch ClusterTrainingRuntime.

The runtime (addons/trainer.py) holds what is the same for every job; what depends on the
stack travels in the TrainJob: ``trainer`` (image, command, nodes, processes and devices
per node, environment) and one ``runtimePatches`` entry that places the ``node`` pods on
the group (node selector, tolerations, FSx volume and mount, topology request). Field names:
kubeflow/trainer ``pkg/apis/trainer/v1alpha1/trainjob_types.go`` at v2.3.0, where the
trainer's settings go to the container named ``node`` of the replicated job ``node``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from ..outputs import StackOutputs
from .placement import LaunchError, check_nodes, devices_per_node, fabric_env, group, metadata, resources, volumes
from .queueing import QueueRequest, admission, annotate_pods, label_job
from .restarts import checkpoint_env

API_VERSION = "trainer.kubeflow.org/v1alpha1"
NODE = "node"
PATCH_MANAGER = "trainstack.io/launch"


def render_trainjob(outputs: StackOutputs, *, name: str, group_name: str, nodes: int, image: str,
                    command: Sequence[str], gpus_per_node: Optional[int] = None, namespace: Optional[str] = None,
                    queue: Optional[QueueRequest] = None, runtime: Optional[str] = None) -> dict[str, Any]:
    """``runtime``: the ClusterTrainingRuntime to name; the stack's torch runtime by default."""
    target = group(outputs, group_name)
    runtime = runtime or outputs.operators.trainer_runtime
    if runtime is None:
        raise LaunchError(f"stack {outputs.stack} does not run Kubeflow Trainer v2; turn on operators.trainer (and "
                          "off operators.trainingOperator), or launch a PyTorchJob.")
    if target.accelerator_kind != "nvidia-gpu":
        raise LaunchError(f"group '{group_name}' runs {target.accelerator_kind}; trainstack's TrainJob runtime is "
                          "torch for GPU groups (use an MPIJob for Neuron).")
    if target.scheduler_name:
        raise LaunchError(f"group '{group_name}' needs scheduler {target.scheduler_name}, which a TrainJob's "
                          "runtime patch cannot set.")
    check_nodes(target, group_name, nodes)
    gpus = devices_per_node(target, group_name, gpus_per_node)
    granted = admission(outputs, group_name, nodes, queue, namespace)
    job_metadata = metadata(outputs, name, granted.namespace or namespace)
    # The runtime brings /dev/shm; the FSx claim is the stack's.
    vols, mounts = volumes(outputs)
    fsx = [v for v in vols if v["name"] != "shm"]
    pod_spec: dict[str, Any] = {
        "nodeSelector": dict(target.node_selector),
        "tolerations": [t.model_dump(exclude_none=True) for t in target.tolerations]}
    if fsx:
        pod_spec["volumes"] = fsx
        pod_spec["containers"] = [{"name": NODE, "volumeMounts": [m for m in mounts if m["name"] != "shm"]}]
    pod = annotate_pods({"spec": pod_spec}, granted)
    job = {
        "apiVersion": API_VERSION, "kind": "TrainJob", "metadata": job_metadata,
        "spec": {
            "runtimeRef": {"name": runtime},
            "trainer": {
                "image": image, "command": list(command), "numNodes": nodes, "numProcPerNode": gpus,
                "resourcesPerNode": resources(target, gpus),
                "env": fabric_env(target.accelerator_kind, target.efa_interfaces_per_node)
                + checkpoint_env(outputs, job_metadata),
            },
            "runtimePatches": [{"manager": PATCH_MANAGER, "trainingRuntimeSpec": {"template": {"spec": {
                "replicatedJobs": [{"name": NODE, "template": {"spec": {"template": pod}}}]}}}}],
        },
    }
    return label_job(job, granted)
