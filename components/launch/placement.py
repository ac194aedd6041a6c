"""The pieces every accelerated pod needs, from the outputs contract: where it runs,
the devices it claims, shared memory, the shared file system, the fabric environment."""

from __future__ import annotations

from ..catalog import EFA_HUGEPAGES, EFA_RESOURCE, HUGEPAGES_RESOURCE
from ..catalog.fabric_env import efa_env
from ..outputs import AcceleratedGroup, StackOutputs

# Leave room on the node for the kubelet, system daemons and device plugins.
NODE_MEMORY_SHARE = 0.85
SHM_SIZE = "64Gi"
DRA_CLAIM = "devices"
"""A DRA group's pod claim, named by its containers (launch/claims.py makes the claim's template)."""


class LaunchError(ValueError):
    """The job cannot be placed on the stack as its outputs describe it."""


def group(outputs: StackOutputs, name: str) -> AcceleratedGroup:
    try:
        return outputs.accelerated_groups[name]
    except KeyError:
        known = ", ".join(outputs.accelerated_groups) or "none"
        hyperpod = outputs.hyperpod
        if hyperpod is not None and any(g.name == name for g in hyperpod.instance_groups):
            # A HyperPod instance group is not an EKS node group: its jobs have launchers of their own.
            instead = "sbatch" if hyperpod.orchestrator == "slurm" else "hyperpod-pytorchjob"
            raise LaunchError(f"'{name}' is an instance group of HyperPod cluster {hyperpod.cluster_name} "
                              f"({hyperpod.orchestrator}), not an accelerated group of stack {outputs.stack} "
                              f"(groups: {known}); launch it with `trainstack launch {instead}`.") from None
        raise LaunchError(f"stack {outputs.stack} has no accelerated group '{name}' (groups: {known}).") from None


def check_node_count(nodes: int, most: int, has: str) -> None:
    """A job runs on 1 to ``most`` nodes; ``has`` says where ``most`` comes from (``group 'p5' scales to 16 nodes``)."""
    if nodes < 1:
        raise LaunchError(f"nodes is {nodes}; it must be >= 1 (a job runs on at least one node).")
    if nodes > most:
        raise LaunchError(f"{has}; {nodes} were asked for.")


def check_nodes(target: AcceleratedGroup, name: str, nodes: int) -> None:
    check_node_count(nodes, target.max_nodes, f"group '{name}' scales to {target.max_nodes} nodes")


def devices_per_node(target: AcceleratedGroup, name: str, requested: int | None) -> int:
    count = target.accelerators_per_node if requested is None else requested
    check_device_count(count, target.accelerators_per_node,
                       f"group '{name}' ({target.instance_type}) has {target.accelerators_per_node} "
                       f"{target.accelerator_resource} per node")
    return count


def check_device_count(count: int, most: int, has: str) -> None:
    """A job uses 1 to ``most`` devices of each node; ``has`` says what the node has."""
    if count < 1:
        raise LaunchError(f"devices per node is {count}; it must be >= 1 (leave it unset for all {most}).")
    if count > most:
        raise LaunchError(f"{has}; {count} were asked for.")


def resources(target: AcceleratedGroup, devices: int) -> dict:
    """Whole-node requests: every EFA interface, huge pages, most of the memory. On a DRA group the
    accelerators and EFA interfaces come through the pod's claim (launch/claims.py), which the container
    names instead of requesting extended resources no device plugin advertises there.

    Quantities are strings, as the Kubernetes API types them."""
    dra = target.device_allocation == "dra"
    limits = {} if dra else {target.accelerator_resource: str(devices)}
    if target.efa_interfaces_per_node:
        if not dra:
            limits[EFA_RESOURCE] = str(target.efa_interfaces_per_node)
        limits[HUGEPAGES_RESOURCE] = EFA_HUGEPAGES
    memory = f"{int(target.memory_gib_per_node * NODE_MEMORY_SHARE)}Gi"
    # Huge pages need a memory request; requests equal limits for extended resources.
    requested = {"requests": {**limits, "memory": memory}, "limits": {**limits, "memory": memory}}
    return {**requested, "claims": [{"name": DRA_CLAIM}]} if dra else requested


def ranks_per_node(target: AcceleratedGroup, devices: int) -> int:
    """MPI ranks (slots) a node runs: one per NeuronCore its claimed devices hold, else one per device."""
    cores = target.neuron_cores_per_node or 0
    return cores * devices // target.accelerators_per_node if cores else devices


def pod_placement(target: AcceleratedGroup) -> dict:
    placement = {"nodeSelector": dict(target.node_selector),
                 "tolerations": [t.model_dump(exclude_none=True) for t in target.tolerations]}
    if target.scheduler_name:
        placement["schedulerName"] = target.scheduler_name
    return placement


def volumes(outputs: StackOutputs, namespace: str | None = None) -> tuple[list[dict], list[dict]]:
    """(volumes, mounts): a memory-backed /dev/shm for dataloaders and NCCL, the FSx claim, and the
    S3 datasets' claims (Mountpoint for S3) in ``namespace``, the job's, beside it."""
    vols = [{"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": SHM_SIZE}}]
    mounts = [{"name": "shm", "mountPath": "/dev/shm"}]
    storage = outputs.storage
    if storage is not None and storage.claim_name:
        vols.append({"name": "fsx", "persistentVolumeClaim": {"claimName": storage.claim_name}})
        mounts.append({"name": "fsx", "mountPath": storage.mount_path})
    dataset_vols, dataset_mounts = dataset_volumes(outputs, namespace)
    return vols + dataset_vols, mounts + dataset_mounts


def dataset_volumes(outputs: StackOutputs, namespace: str | None = None) -> tuple[list[dict], list[dict]]:
    """One volume and mount per S3 dataset whose claim is in ``namespace`` (on a stack with teams, only the datasets
    the job's team is given: a pod naming a claim its namespace lacks never starts), read-only where the dataset is."""
    given = [d for d in outputs.datasets if not d.namespaces or namespace in d.namespaces]
    vols = [{"name": f"dataset-{d.name}", "persistentVolumeClaim": {"claimName": d.claim_name,
                                                                      **({"readOnly": True} if d.read_only else {})}}
            for d in given]
    mounts = [{"name": f"dataset-{d.name}", "mountPath": d.mount_path, **({"readOnly": True} if d.read_only else {})}
              for d in given]
    return vols, mounts


def metadata(outputs: StackOutputs, name: str, namespace: str | None) -> dict:
    """Jobs run in the namespace of the FSx claim unless told otherwise (claims are namespaced)."""
    namespace = namespace or (outputs.storage.namespace if outputs.storage else None)
    return {"name": name, **({"namespace": namespace} if namespace else {})}


def fabric_env(accelerator_kind: str, efa_interfaces: int, instance_type: str) -> list[dict]:
    """The EFA environment of the accelerator's own documentation for the instance type
    (``catalog.fabric_env``), as container env entries; none on a node without EFA."""
    return [{"name": name, "value": value}
            for name, value in efa_env(accelerator_kind, efa_interfaces, instance_type).items()]
