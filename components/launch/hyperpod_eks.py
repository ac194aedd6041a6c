"""A PyTorchJob that HyperPod resumes after it replaces a faulty node (EKS orchestration).

HyperPod's job auto-resume watches Kubeflow PyTorchJobs that carry its annotations
(``sagemaker.amazonaws.com/enable-job-auto-resume``, ``.../job-max-retry-count``),
run in the ``kubeflow`` namespace or one whose name starts with ``hyperpod``, use
``restartPolicy: OnFailure``, and are managed by the Kubeflow training operator
1.7.0, 1.8.0 or 1.8.1 (trainstack installs 1.8.1). When a node fails its health
checks, HyperPod marks it ``UnschedulablePendingReplacement`` (or ``...Reboot``),
replaces it, and restarts the job, which then runs only on nodes labelled
``sagemaker.amazonaws.com/node-health-status=Schedulable``. Sources: SageMaker
developer guide (run jobs with kubectl; node health labels) and aws/sagemaker-hyperpod-cli
``command_constants.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from ..catalog import EFA_HUGEPAGES, EFA_RESOURCE, HUGEPAGES_RESOURCE
from ..names import GPU_RESOURCE, NEURON_RESOURCE, NODE_GROUP_LABEL
from ..outputs import HyperPodGroup, StackOutputs
from .arguments import check_image, check_namespace, check_replica_job_name
from .expansion import as_written
from .limits import check_job
from .placement import (
    NODE_MEMORY_SHARE,
    SHM_SIZE,
    LaunchError,
    check_device_count,
    check_node_count,
    dataset_volumes,
    fabric_env,
)
from .rendezvous import run_id_env
from .restarts import checkpoint_env
from .torchrun import TorchJob, check_torch_command
from .ultraserver import keep_in_unit

AUTO_RESUME_ANNOTATION = "sagemaker.amazonaws.com/enable-job-auto-resume"
MAX_RETRY_ANNOTATION = "sagemaker.amazonaws.com/job-max-retry-count"
NODE_HEALTH_LABEL = "sagemaker.amazonaws.com/node-health-status"
HEALTHY = "Schedulable"
RESUME_NAMESPACE = "kubeflow"
DEFAULT_MAX_RETRIES = 3


def render_hyperpod_pytorchjob(outputs: StackOutputs, *, name: str, group_name: str, nodes: int, image: str,
                               command: Sequence[str], gpus_per_node: Optional[int] = None,
                               namespace: Optional[str] = None,
                               max_retries: int = DEFAULT_MAX_RETRIES) -> dict[str, Any]:
    """``max_retries``: how many times HyperPod restarts the job after a fault before giving up."""
    check_image(image)
    check_namespace(namespace)
    target = _resumable_group(outputs, group_name)
    check_node_count(nodes, target.count, f"instance group '{group_name}' has {target.count} instances")
    check_replica_job_name(name, [f"{name}-master-0", *([f"{name}-worker-{nodes - 2}"] if nodes > 1 else [])],
                           "PyTorchJob")
    gpus = target.accelerators_per_node if gpus_per_node is None else gpus_per_node
    check_device_count(gpus, target.accelerators_per_node,
                       f"instance group '{group_name}' ({target.instance_type}) has {target.accelerators_per_node} "
                       f"{target.accelerator_resource} per node")
    if max_retries < 1:
        raise LaunchError(f"max retries {max_retries} would never resume the job; use 1 or more.")
    on_gpus = target.accelerator_resource == GPU_RESOURCE
    check_torch_command(command, TorchJob(nodes, nodes, gpus if on_gpus else None,
                                          counted=gpus == target.accelerators_per_node))
    job_metadata = _metadata(outputs, name, namespace, max_retries)
    vols = [{"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": SHM_SIZE}}]
    mounts = [{"name": "shm", "mountPath": "/dev/shm"}]
    if outputs.storage is not None and outputs.storage.claim_name:
        vols.append({"name": "fsx", "persistentVolumeClaim": {"claimName": outputs.storage.claim_name}})
        mounts.append({"name": "fsx", "mountPath": outputs.storage.mount_path})
    kind = "neuron" if target.accelerator_resource == NEURON_RESOURCE else "nvidia-gpu"
    dataset_vols, dataset_mounts = dataset_volumes(outputs)
    vols, mounts = vols + dataset_vols, mounts + dataset_mounts
    env = fabric_env(kind, target.efa_interfaces_per_node, target.instance_type)
    pod = {"spec": {
        "nodeSelector": node_selector(group_name),
        # Only nodes HyperPod's health checks have passed; a replaced node joins as Schedulable.
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": NODE_HEALTH_LABEL, "operator": "In", "values": [HEALTHY]}]}]}}},
        "volumes": vols,
        "containers": [{"name": "pytorch", "image": image, "command": as_written(command),
                        "resources": pod_resources(target, gpus), "volumeMounts": mounts,
                        "env": env + checkpoint_env(outputs, job_metadata)
                        + run_id_env(name, job_metadata.get("namespace"))}],
    }}
    # On an UltraServer every replica stays inside one unit's NVLink domain (HyperPod labels its nodes).
    pod = keep_in_unit(pod, target.instance_type, nodes, name, hyperpod=True)
    # HyperPod's auto-resume requires OnFailure on every replica.
    replicas: dict[str, Any] = {"Master": {"replicas": 1, "restartPolicy": "OnFailure", "template": pod}}
    if nodes > 1:
        replicas["Worker"] = {"replicas": nodes - 1, "restartPolicy": "OnFailure", "template": pod}
    return check_job({"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": job_metadata,
                      "spec": {"pytorchReplicaSpecs": replicas, "nprocPerNode": str(gpus)}})


def _resumable_group(outputs: StackOutputs, group_name: str) -> HyperPodGroup:
    """The instance group, once the stack can resume jobs at all; otherwise say why not."""
    hyperpod = outputs.hyperpod
    if hyperpod is None or hyperpod.orchestrator != "eks":
        raise LaunchError(f"stack {outputs.stack} has no EKS-orchestrated HyperPod cluster, so nothing would resume "
                          "the job; on a Slurm HyperPod cluster use `trainstack launch sbatch` (srun --auto-resume).")
    if not outputs.operators.training_operator:
        raise LaunchError(f"stack {outputs.stack} runs no Kubeflow training operator: HyperPod's job auto-resume "
                          "restarts PyTorchJobs that the training operator (1.7.0-1.8.1) manages, so without it the "
                          "job would never start, let alone resume. Turn on operators.trainingOperator.")
    if hyperpod.node_recovery != "Automatic":
        raise LaunchError(f"HyperPod cluster {hyperpod.cluster_name} has nodeRecovery None: a faulty node is only "
                          "labelled, never replaced, so a resuming job would wait for a healthy node that does not "
                          "come. Set hyperpod.nodeRecovery: Automatic.")
    target = next((g for g in hyperpod.instance_groups if g.name == group_name), None)
    if target is None:
        known = ", ".join(g.name for g in hyperpod.instance_groups)
        raise LaunchError(f"HyperPod cluster {hyperpod.cluster_name} has no instance group '{group_name}' "
                          f"(groups: {known}).")
    if not target.accelerator_resource:
        raise LaunchError(f"instance group '{group_name}' ({target.instance_type}) has no accelerators.")
    return target


def _metadata(outputs: StackOutputs, name: str, namespace: Optional[str], max_retries: int) -> dict[str, Any]:
    storage = outputs.storage
    claim_namespace = storage.namespace if storage is not None and storage.claim_name else None
    chosen = namespace or claim_namespace or RESUME_NAMESPACE
    if not (chosen == RESUME_NAMESPACE or chosen.startswith("hyperpod")):
        raise LaunchError(f"namespace '{chosen}': HyperPod resumes jobs only in '{RESUME_NAMESPACE}' or a namespace "
                          "whose name starts with 'hyperpod'"
                          + (f"; the FSx claim is in '{chosen}', so set fsx.namespace: {RESUME_NAMESPACE}."
                             if chosen == claim_namespace else "."))
    if claim_namespace is not None and storage is not None and chosen not in storage.claim_namespaces:
        raise LaunchError(f"the FSx claim is in namespace '{claim_namespace}' and claims are namespaced; a job in "
                          f"'{chosen}' could not mount it. Set fsx.namespace: {chosen}, or run the job in "
                          f"'{claim_namespace}'.")
    check_no_team_owns(outputs, chosen, claim_namespace)
    return {"name": name, "namespace": chosen,
            "annotations": {AUTO_RESUME_ANNOTATION: "true", MAX_RETRY_ANNOTATION: str(max_retries)}}


def check_no_team_owns(outputs: StackOutputs, namespace: str, claim_namespace: Optional[str]) -> None:
    """HyperPod's job runs in no team's namespace: Kueue manages every job there (``manageJobsWithoutQueueName``,
    addons/kueue.py) and would keep this one, which names no queue, suspended for ever: HyperPod's instance groups
    are in no team's queue. Found with a team in ``kubeflow``, the FSx claim's namespace
    (tests/analysis/test_feature_combinations.py)."""
    queues = outputs.scheduling.queues if outputs.scheduling is not None else {}
    team = next((name for name, queue in queues.items() if queue.namespace == namespace), None)
    if team is not None:
        raise LaunchError(f"namespace '{namespace}' is team {team}'s: Kueue keeps every job there until a queue "
                          "admits it, and HyperPod's instance groups are in no team's queue, so the job would never "
                          f"start. Run it in a namespace no team has ('{RESUME_NAMESPACE}' or one whose name starts "
                          "with 'hyperpod')" + (", with fsx.namespace set to it." if namespace == claim_namespace
                                                else "."))


def node_selector(group_name: str) -> dict[str, str]:
    """The labels a worker selects its instance group's nodes by (trainstack labels HyperPod's nodes as EKS's)."""
    return {NODE_GROUP_LABEL: group_name}


def pod_resources(target: HyperPodGroup, devices: int) -> dict[str, Any]:
    """A worker's requests and limits: its devices, every EFA interface and huge pages, most of the memory."""
    limits = {str(target.accelerator_resource): str(devices)}
    if target.efa_interfaces_per_node:
        limits[EFA_RESOURCE] = str(target.efa_interfaces_per_node)
        limits[HUGEPAGES_RESOURCE] = EFA_HUGEPAGES
    if target.memory_gib_per_node:
        limits["memory"] = f"{int(target.memory_gib_per_node * NODE_MEMORY_SHARE)}Gi"
    return {"requests": dict(limits), "limits": dict(limits)}
