"""The EKS cluster: control plane, core add-ons, system nodes, autoscaler."""

from .eks_cluster import GpuEksCluster, GpuEksClusterArgs

__all__ = ["GpuEksCluster", "GpuEksClusterArgs"]
