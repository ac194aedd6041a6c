"""What the EKS AMI's bootstrap keeps out of a node's allocatable: the kubelet's kube-reserved CPU and memory and
its ``memory.available`` eviction threshold (awslabs/amazon-eks-ami v20260724, ``nodeadm/internal/kubelet/config.go``).

Both the controller models (a running node of an accelerated group, ``controllers/cluster_autoscaler.py``) and the
system group's sizing (``config/system_load.py``) read a node's allocatable from here.
"""

from __future__ import annotations

from .model import InstanceType

SOURCE = "awslabs/amazon-eks-ami v20260724 nodeadm/internal/kubelet/config.go"
EVICTION_MEMORY_MIB = 100  # nodeadm's evictionHard memory.available


def reserved_millicores(total: int) -> int:
    """nodeadm's getCPUMillicoresToReserve: 6%, 1%, 0.5%, 0.25% of the 1st, 2nd, 3rd-4th and further cores of
    ``total`` millicores."""
    bounds, per_ten_thousand = [0, 1000, 2000, 4000, total], [600, 100, 50, 25]
    reserved = 0
    for start, end, share in zip(bounds, bounds[1:], per_ten_thousand, strict=False):
        if total > start:
            reserved += (min(total, end) - start) * share // 10000
    return reserved


def reserved_memory_mib(default_max_pods: int) -> int:
    """nodeadm's kube-reserved memory, ``11 * maxPods + 255`` MiB, with maxPods its own default for the type
    (``eni_max_pods.go``: it reserves before the NodeConfig's maxPods drop-in applies)."""
    return 11 * default_max_pods + 255


def allocatable(instance: InstanceType, needed_for: str) -> tuple[int, int]:
    """A node's allocatable CPU in millicores and memory in MiB, before huge pages: the type's vCPUs and memory
    less kube-reserved and the eviction threshold. Refuses (``InstanceType.require``) a type whose facts the catalog
    lacks, naming ``needed_for``."""
    vcpus = instance.require("vCPUs", instance.vcpus, needed_for)
    memory_gib = instance.require("memory", instance.memory_gib, needed_for)
    default_max_pods = instance.require("max pods", instance.network.max_pods, needed_for)
    memory_mib = memory_gib * 1024 - reserved_memory_mib(default_max_pods) - EVICTION_MEMORY_MIB
    return vcpus * 1000 - reserved_millicores(vcpus * 1000), memory_mib
