"""PyTorchJob (Kubeflow training operator) for FSDP: one worker pod per node.

It survives a lost node within the limits the caller sets (restart policy, backoff
limit, and an elastic minimum of nodes to keep training on, over the rendezvous
rendezvous.py chooses), and tells the training script where its checkpoints live
(restarts.py). On a stack with teams its pods run as the team's ServiceAccount (queueing.py).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Optional

from ..outputs import AcceleratedGroup, StackOutputs
from .arguments import check_image, check_namespace, check_replica_job_name
from .claims import pod_claims, refuse_dra_on_the_training_operator
from .expansion import as_written
from .limits import check_job
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
from .queueing import Admission, QueueRequest, admission, annotate_pods, label_job
from .rendezvous import DEFAULT_BACKEND, Rendezvous, choose_rendezvous, run_id, run_id_env
from .restarts import backoff_limit_for, checkpoint_env, run_policy
from .team_identity import run_as_team
from .torchrun import TorchJob, check_torch_command


def _check_pod_names(name: str, nodes: int, rendezvous: Rendezvous) -> None:
    """The pods and Services the operator will name, checked against Kubernetes' limits: Worker 0..n-1 for an
    elastic job, else Master 0 and Worker 0..n-2."""
    check_replica_job_name(name, [f"{name}-worker-{nodes - 1}"] if rendezvous.elastic else
                           [f"{name}-master-0", *([f"{name}-worker-{nodes - 2}"] if nodes > 1 else [])], "PyTorchJob")


def _node_pod(outputs: StackOutputs, target: AcceleratedGroup, group_name: str, gpus: int, image: str,
              command: Sequence[str], job_metadata: dict, granted: Admission, own_id: list[dict[str, str]]) -> dict:
    """The pod every replica runs: the group's placement and devices, the stack's volumes, the fabric's and the
    checkpoint's environment, run as the team's ServiceAccount (the operator copies the template into each pod)."""
    vols, mounts = volumes(outputs, job_metadata.get("namespace"))
    pod: dict = {
        "spec": {
            **pod_placement(target),
            **pod_claims(target, group_name, gpus),
            "volumes": vols,
            "containers": [{
                "name": "pytorch", "image": image, "command": as_written(command),
                "resources": resources(target, gpus), "volumeMounts": mounts,
                "env": fabric_env(target.accelerator_kind, target.efa_interfaces_per_node, target.instance_type)
                + checkpoint_env(outputs, job_metadata, granted.checkpoint_prefix) + own_id,
            }],
        },
    }
    run_as_team(pod, granted)
    return pod


def render_pytorchjob(outputs: StackOutputs, *, name: str, group_name: str, nodes: int, image: str,
                      command: Sequence[str], gpus_per_node: Optional[int] = None,
                      namespace: Optional[str] = None, restart_policy: str = "OnFailure",
                      backoff_limit: Optional[int] = None, min_nodes: Optional[int] = None,
                      queue: Optional[QueueRequest] = None, rendezvous: str = DEFAULT_BACKEND) -> dict:
    """``min_nodes``: keep training on at least this many nodes while a lost one is replaced
    (elastic); default ``nodes``, the job waits for the full count. ``rendezvous``: ``c10d``, or
    ``etcd`` for an elastic job on a stack with etcd (rendezvous.py says why). ``queue``: the
    team, topology and priority on a stack with Kueue queues (queueing.py)."""
    check_image(image)
    check_namespace(namespace)
    target = group(outputs, group_name)
    if target.accelerator_kind != "nvidia-gpu":
        raise LaunchError(f"group '{group_name}' runs {target.accelerator_kind}; PyTorchJobs here are for GPU "
                          "groups (use an MPIJob for Neuron).")
    refuse_dra_on_the_training_operator(outputs, target, group_name)
    if not outputs.operators.training_operator:
        raise LaunchError(f"stack {outputs.stack} does not run the Kubeflow training operator; turn on "
                          "operators.trainingOperator.")
    check_nodes(target, group_name, nodes)
    gpus = devices_per_node(target, group_name, gpus_per_node)
    limit = backoff_limit_for(restart_policy, backoff_limit)
    meeting = choose_rendezvous(outputs, nodes=nodes, min_nodes=min_nodes, backend=rendezvous)
    _check_pod_names(name, nodes, meeting)
    check_torch_command(command, TorchJob(meeting.minimum, nodes, gpus, counted=gpus == target.accelerators_per_node))
    granted = admission(outputs, group_name, nodes, queue, namespace)
    job_metadata = metadata(outputs, name, granted.namespace or namespace)
    # Every job's rendezvous under its own id (rendezvous.py): the elastic policy's rdzvId, which the operator hands
    # torchrun; a job of fixed size has no elastic policy, so its containers carry PET_RDZV_ID themselves.
    rdzv_id = run_id(name, job_metadata.get("namespace"), meeting.backend)
    own_id = [] if meeting.elastic else run_id_env(name, job_metadata.get("namespace"))
    pod = _node_pod(outputs, target, group_name, gpus, image, command, job_metadata, granted, own_id)
    spec: dict = {"pytorchReplicaSpecs": {}, "nprocPerNode": str(gpus), **run_policy(limit)}
    if meeting.elastic:
        spec["elasticPolicy"] = meeting.elastic_policy(limit, rdzv_id)
        spec["pytorchReplicaSpecs"]["Worker"] = {"replicas": nodes, "restartPolicy": restart_policy,
                                                 "template": annotate_pods(pod, granted)}
    else:
        # Master and Worker are two Kueue pod sets: grouped, they share one network block.
        pod_sets = "nodes" if nodes > 1 else None
        spec["pytorchReplicaSpecs"]["Master"] = {"replicas": 1, "restartPolicy": restart_policy,
                                                 "template": annotate_pods(copy.deepcopy(pod), granted, pod_sets)}
        if nodes > 1:
            spec["pytorchReplicaSpecs"]["Worker"] = {"replicas": nodes - 1, "restartPolicy": restart_policy,
                                                     "template": annotate_pods(copy.deepcopy(pod), granted, pod_sets)}
    return check_job(label_job({"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": job_metadata,
                                "spec": spec}, granted))
