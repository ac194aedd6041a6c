"""MPIJob (Kubeflow MPI operator, v2beta1) for Neuron: a launcher and one worker per node.

A lost worker fails the launcher's mpirun; the launcher restarts under the caller's
restart policy, up to the backoff limit, and the script resumes from the checkpoint
location in its environment. MPIJob v2beta1 has no elastic mode: every worker is needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from ..outputs import StackOutputs
from .arguments import check_image, check_namespace, check_replica_job_name
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
from .restarts import backoff_limit_for, checkpoint_env, run_policy


def render_mpijob(outputs: StackOutputs, *, name: str, group_name: str, nodes: int, image: str,
                  command: Sequence[str], devices_per_worker: Optional[int] = None,
                  namespace: Optional[str] = None, restart_policy: str = "OnFailure",
                  backoff_limit: Optional[int] = None, min_nodes: Optional[int] = None) -> dict:
    check_image(image)
    check_namespace(namespace)
    target = group(outputs, group_name)
    if target.accelerator_kind != "neuron":
        raise LaunchError(f"group '{group_name}' runs {target.accelerator_kind}; MPIJobs here are for Neuron groups.")
    if not outputs.operators.mpi_operator:
        raise LaunchError(f"stack {outputs.stack} does not run the MPI operator; turn on operators.mpiOperator.")
    check_nodes(target, group_name, nodes)
    check_replica_job_name(name, [f"{name}-launcher", f"{name}-worker-{nodes - 1}"], "MPIJob")
    if min_nodes is not None and min_nodes != nodes:
        raise LaunchError(f"MPIJob v2beta1 has no elastic mode: mpirun needs all {nodes} workers, so a minimum of "
                          f"{min_nodes} cannot apply; leave the minimum unset (the launcher restarts instead).")
    devices = devices_per_node(target, group_name, devices_per_worker)
    limit = backoff_limit_for(restart_policy, backoff_limit)
    job_metadata = metadata(outputs, name, namespace)
    vols, mounts = volumes(outputs)
    checkpoints = checkpoint_env(outputs, job_metadata)
    worker = {"spec": {**pod_placement(target), "volumes": vols, "containers": [{
        "name": "worker", "image": image, "resources": resources(target, devices), "volumeMounts": mounts,
        "env": fabric_env(target) + checkpoints}]}}
    # The launcher only starts mpirun; it needs no devices and stays off accelerator nodes.
    launcher = {"spec": {"containers": [{
        "name": "launcher", "image": image, "command": list(command),
        "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}, **({"env": checkpoints} if checkpoints else {})}]}}
    cores = target.neuron_cores_per_node or 0
    return {
        "apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": job_metadata,
        "spec": {
            # One MPI slot per NeuronCore the worker's devices hold.
            "slotsPerWorker": cores * devices // target.accelerators_per_node if cores else devices,
            "runPolicy": {"cleanPodPolicy": "Running", **run_policy(limit).get("runPolicy", {})},
            "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "restartPolicy": restart_policy, "template": launcher},
                "Worker": {"replicas": nodes, "restartPolicy": restart_policy, "template": worker},
            },
        },
    }
