"""SageMaker HyperPod: the cluster, its instance groups, lifecycle scripts and role."""

from .cluster import HyperPodCluster, HyperPodClusterArgs, HyperPodEksArgs

__all__ = ["HyperPodCluster", "HyperPodClusterArgs", "HyperPodEksArgs"]
