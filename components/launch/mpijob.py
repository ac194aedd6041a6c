"""MPIJob (Kubeflow MPI operator, v2beta1) for Neuron: a launcher and one worker per node."""

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


def render_mpijob(outputs: StackOutputs, *, name: str, group_name: str, nodes: int, image: str,
                  command: Sequence[str], devices_per_worker: Optional[int] = None,
                  namespace: Optional[str] = None) -> dict:
    target = group(outputs, group_name)
    if target.accelerator_kind != "neuron":
        raise LaunchError(f"group '{group_name}' runs {target.accelerator_kind}; MPIJobs here are for Neuron groups.")
    if not outputs.operators.mpi_operator:
        raise LaunchError(f"stack {outputs.stack} does not run the MPI operator; turn on operators.mpiOperator.")
    check_nodes(target, group_name, nodes)
    devices = devices_per_node(target, group_name, devices_per_worker)
    vols, mounts = volumes(outputs)
    worker = {"spec": {**pod_placement(target), "volumes": vols, "containers": [{
        "name": "worker", "image": image, "resources": resources(target, devices), "volumeMounts": mounts,
        "env": fabric_env(target)}]}}
    # The launcher only starts mpirun; it needs no devices and stays off accelerator nodes.
    launcher = {"spec": {"containers": [{
        "name": "launcher", "image": image, "command": list(command),
        "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}]}}
    cores = target.neuron_cores_per_node or 0
    return {
        "apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": metadata(outputs, name, namespace),
        "spec": {
            # One MPI slot per NeuronCore the worker's devices hold.
            "slotsPerWorker": cores * devices // target.accelerators_per_node if cores else devices,
            "runPolicy": {"cleanPodPolicy": "Running"},
            "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "template": launcher},
                "Worker": {"replicas": nodes, "template": worker},
            },
        },
    }
