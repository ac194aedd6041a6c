"""PyTorchJob (Kubeflow training operator) for FSDP: one worker pod per node."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from ..outputs import StackOutputs
from .placement import (
    LaunchError,
    check_nodes,
    devices_per_node,
    fabric_env,
    group,
    metadata,
    pod_placement,
    resources,
    volumes,
)


def render_pytorchjob(outputs: StackOutputs, *, name: str, group_name: str, nodes: int, image: str,
                      command: Sequence[str], gpus_per_node: Optional[int] = None,
                      namespace: Optional[str] = None) -> dict:
    target = group(outputs, group_name)
    if target.accelerator_kind != "nvidia-gpu":
        raise LaunchError(f"group '{group_name}' runs {target.accelerator_kind}; PyTorchJobs here are for GPU "
                          "groups (use an MPIJob for Neuron).")
    if not outputs.operators.training_operator:
        raise LaunchError(f"stack {outputs.stack} does not run the Kubeflow training operator; turn on "
                          "operators.trainingOperator.")
    check_nodes(target, group_name, nodes)
    gpus = devices_per_node(target, group_name, gpus_per_node)
    vols, mounts = volumes(outputs)
    pod = {
        "spec": {
            **pod_placement(target),
            "volumes": vols,
            "containers": [{
                "name": "pytorch", "image": image, "command": list(command),
                "resources": resources(target, gpus), "volumeMounts": mounts, "env": fabric_env(target),
            }],
        },
    }
    spec: dict = {"pytorchReplicaSpecs": {}, "nprocPerNode": str(gpus)}
    etcd = outputs.operators.etcd_endpoint
    if etcd:
        host, port = etcd.rsplit(":", 1)
        spec["elasticPolicy"] = {"rdzvBackend": "etcd", "rdzvHost": host, "rdzvPort": int(port),
                                 "minReplicas": nodes, "maxReplicas": nodes}
        spec["pytorchReplicaSpecs"]["Worker"] = {"replicas": nodes, "restartPolicy": "OnFailure", "template": pod}
    else:
        spec["pytorchReplicaSpecs"]["Master"] = {"replicas": 1, "restartPolicy": "OnFailure", "template": pod}
        if nodes > 1:
            spec["pytorchReplicaSpecs"]["Worker"] = {"replicas": nodes - 1, "restartPolicy": "OnFailure",
                                                     "template": pod}
    return {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": metadata(outputs, name, namespace),
            "spec": spec}
