"""trainstack: Pulumi components for AWS distributed-training clusters.

    from trainstack import TrainingStack, load_stack_config

or one part at a time, inside your own Pulumi program:

    from trainstack import GpuEksCluster, LustreFileSystem, Network

Each component takes a typed Args (``GpuEksClusterArgs`` ...) whose ``settings`` are a
config block as a stack file spells it, validated by the same models as a stack file;
``TrainingStack`` takes a whole ``StackConfig``. docs/library.md.

Components import pulumi-aws on first use, so the CLI and the config models stay
quick to load.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .config import ConfigError, StackConfig, load_stack_config, validate_stack_config

if TYPE_CHECKING:  # what a type checker sees behind the lazy imports below
    from .addons.cluster_addons import ClusterAddons, ClusterAddonsArgs
    from .cluster.eks_cluster import GpuEksCluster, GpuEksClusterArgs
    from .cluster.system_nodes import system_node_group
    from .hyperpod.cluster import HyperPodCluster, HyperPodClusterArgs
    from .network.efa_security_group import efa_security_group
    from .network.vpc import Network, NetworkArgs
    from .nodegroups.accelerated import AcceleratedNodeGroup, AcceleratedNodeGroupArgs, ClusterAttachment
    from .nodegroups.gpu import GpuNodeGroup
    from .nodegroups.karpenter_pool import KarpenterNodePool, KarpenterNodePoolArgs
    from .nodegroups.trainium import TrainiumNodeGroup
    from .storage.checkpoint_bucket import CheckpointBucket, CheckpointBucketArgs
    from .storage.lustre import LustreFileSystem, LustreFileSystemArgs
    from .storage.s3_datasets import S3Datasets, S3DatasetsArgs
    from .training_stack import TrainingStack

_LAZY = {
    # The whole stack, from one StackConfig.
    "TrainingStack": "trainstack.training_stack",
    # The network: a VPC (or an existing one) and the EFA security group.
    "Network": "trainstack.network.vpc",
    "NetworkArgs": "trainstack.network.vpc",
    "efa_security_group": "trainstack.network.efa_security_group",
    # The EKS cluster and the node groups it builds.
    "GpuEksCluster": "trainstack.cluster.eks_cluster",
    "GpuEksClusterArgs": "trainstack.cluster.eks_cluster",
    "system_node_group": "trainstack.cluster.system_nodes",
    "AcceleratedNodeGroup": "trainstack.nodegroups.accelerated",
    "AcceleratedNodeGroupArgs": "trainstack.nodegroups.accelerated",
    "ClusterAttachment": "trainstack.nodegroups.accelerated",
    "GpuNodeGroup": "trainstack.nodegroups.gpu",
    "TrainiumNodeGroup": "trainstack.nodegroups.trainium",
    "KarpenterNodePool": "trainstack.nodegroups.karpenter_pool",
    "KarpenterNodePoolArgs": "trainstack.nodegroups.karpenter_pool",
    # Storage.
    "LustreFileSystem": "trainstack.storage.lustre",
    "LustreFileSystemArgs": "trainstack.storage.lustre",
    "S3Datasets": "trainstack.storage.s3_datasets",
    "S3DatasetsArgs": "trainstack.storage.s3_datasets",
    "CheckpointBucket": "trainstack.storage.checkpoint_bucket",
    "CheckpointBucketArgs": "trainstack.storage.checkpoint_bucket",
    # SageMaker HyperPod.
    "HyperPodCluster": "trainstack.hyperpod.cluster",
    "HyperPodClusterArgs": "trainstack.hyperpod.cluster",
    # The add-ons on an EKS cluster.
    "ClusterAddons": "trainstack.addons.cluster_addons",
    "ClusterAddonsArgs": "trainstack.addons.cluster_addons",
}
"""Where each exported component, Args and helper lives; imported when first asked for."""


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'trainstack' has no attribute {name!r}")


__all__ = ["AcceleratedNodeGroup", "AcceleratedNodeGroupArgs", "CheckpointBucket", "CheckpointBucketArgs",
           "ClusterAddons", "ClusterAddonsArgs", "ClusterAttachment", "ConfigError", "GpuEksCluster",
           "GpuEksClusterArgs", "GpuNodeGroup", "HyperPodCluster", "HyperPodClusterArgs", "KarpenterNodePool",
           "KarpenterNodePoolArgs", "LustreFileSystem", "LustreFileSystemArgs", "Network", "NetworkArgs",
           "S3Datasets", "S3DatasetsArgs", "StackConfig", "TrainiumNodeGroup", "TrainingStack",
           "efa_security_group", "load_stack_config", "system_node_group", "validate_stack_config"]
