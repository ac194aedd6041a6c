"""StackConfig: one validated model of a stack's ``trainstack:`` configuration.

Each top-level field is one Pulumi config key (``trainstack:nodeGroups`` …).
Validation runs once, before any resource is registered. The checks that need more than
one block (zones against the network, reservations against node groups, profile rules)
are config/checks/'s, run on the built stack by ``config.validate``.
"""

from __future__ import annotations

import re
from typing import Any, Literal, Optional

from pydantic import field_validator, model_validator

from .. import catalog
from .addons import CostConfig, HelmChartsConfig, ObservabilityConfig, OperatorsConfig
from .base import ConfigModel, ConfigValueError
from .checkpoints import CheckpointWriters
from .cluster import EksConfig
from .datasets import DatasetConfig
from .device_wait import DeviceWait
from .existing_cluster import ExistingClusterConfig
from .hyperpod import HyperPodConfig
from .network import NetworkConfig
from .nodegroups import NodeGroupConfig
from .offerings import check_region
from .profiles import with_profile_defaults
from .scheduling import SchedulingConfig
from .storage import CheckpointBucketConfig, FsxConfig
from .system_load import SystemNodeSizes, system_node_sizes
from .usage import UsageConfig


class StackConfig(ConfigModel):
    """A whole stack: every ``trainstack:`` key of a stack file, validated together."""

    profile: Literal["dev", "production"]
    """dev or production: the profile sets secure and cost defaults. ``dev``: cheap and reachable (one NAT,
    public endpoint with an allowlist, groups scale to zero).
    ``production``: private endpoint, NAT per zone, PERSISTENT_2 only."""
    region: str
    """AWS region of every resource in the stack, e.g. us-east-1."""
    network: NetworkConfig
    """The VPC: a new one sized for nodes and pods, or an existing one."""
    eks: Optional[EksConfig] = None
    """An EKS cluster; required for nodeGroups (or existingCluster)."""
    existing_cluster: Optional[ExistingClusterConfig] = None
    """An EKS cluster made elsewhere, instead of ``eks``: trainstack adds only its Kubernetes layer and
    makes no AWS resource; ``nodeGroups`` then describe the cluster's groups as they are
    (config/existing_cluster.py)."""
    node_groups: list[NodeGroupConfig] = []
    """Accelerated node groups (GPU or Trainium)."""
    fsx: Optional[FsxConfig] = None
    """FSx for Lustre; omit for none."""
    checkpoint_bucket: CheckpointBucketConfig = CheckpointBucketConfig()
    """The S3 bucket for checkpoints (on by default)."""
    datasets: list[DatasetConfig] = []
    """S3 buckets or prefixes jobs on EKS read through Mountpoint for Amazon S3; omit for none."""
    hyperpod: Optional[HyperPodConfig] = None
    """A SageMaker HyperPod cluster (Slurm or EKS orchestration); omit for none."""
    observability: ObservabilityConfig = ObservabilityConfig()
    """Metrics and logs: Container Insights, DCGM exporter, Prometheus, Neuron monitor."""
    operators: OperatorsConfig = OperatorsConfig()
    """Job operators installed on the EKS cluster."""
    helm_charts: HelmChartsConfig = HelmChartsConfig()
    """Where the Helm charts come from: their repositories, or a directory of pulled charts."""
    scheduling: Optional[SchedulingConfig] = None
    """Kueue queues, quotas from the groups' capacity, priorities and topology-aware placement
    (needs operators.kueue); omit for none."""
    cost: CostConfig = CostConfig()
    """Cost guard rails the policy pack enforces."""
    usage: Optional[UsageConfig] = None
    """Expected usage per month, for the usage-based charges (config/usage.py); none estimated without it."""
    tags: dict[str, str] = {}
    """Tags on every AWS resource (provider default tags)."""
    device_wait: Optional[DeviceWait] = None
    """``trainstack up`` is done only when every accelerated node shows the GPUs, Neuron devices and EFA
    interfaces its instance type has, within a timeout (config/device_wait.py); omit for no wait."""

    @field_validator("region")
    @classmethod
    def _region(cls, region: str) -> str:
        check_region(region)
        return region

    @field_validator("tags")
    @classmethod
    def _tags(cls, tags: dict[str, str]) -> dict[str, str]:
        for key, value in tags.items():
            if key.lower().startswith("aws:") or not 1 <= len(key) <= 128 or len(value) > 256:
                raise ConfigValueError(
                    "tag keys are 1-128 characters and may not start with 'aws:'; values are at most 256.",
                    fix="rename or shorten the tag.", path=(key,), value=value)
            if not re.match(r"^[\w .:/=+\-@]*$", key + value):
                raise ConfigValueError("tags may contain letters, digits, spaces and _ . : / = + - @ only.",
                                       fix="remove the other characters.", path=(key,), value=value)
        return tags

    @model_validator(mode="before")
    @classmethod
    def _profile_defaults(cls, data: Any) -> Any:
        return with_profile_defaults(data)

    @property
    def zones(self) -> list[str]:
        return self.network.private_zones

    @property
    def system_node_sizes(self) -> Optional[SystemNodeSizes]:
        """The EKS system group's min, desired and max sizes: as given, else as what runs on it at the stack's size
        sets them (config/system_load.py); None without a cluster trainstack makes."""
        return system_node_sizes(self.eks.system_nodes, self.node_groups) if self.eks is not None else None

    @property
    def hyperpod_zone(self) -> str:
        """The HyperPod cluster's one zone: as given, else FSx's, else the first private zone."""
        zone = self.hyperpod.zone if self.hyperpod is not None else None
        return zone or (self.fsx.zone if self.fsx else self.network.private_zones[0])

    @property
    def job_namespaces(self) -> list[str]:
        """Where jobs run, so where every claim they mount must be (a claim is namespaced): the FSx
        claim's namespace (``default`` without FSx) first, then each team's."""
        existing = self.existing_cluster.file_system if self.existing_cluster is not None else None
        first = self.fsx.namespace if self.fsx is not None else existing.namespace if existing else "default"
        teams = {team.namespace for team in self.scheduling.teams} if self.scheduling is not None else set()
        return [first, *sorted(teams - {first})]

    @property
    def checkpoint_writers(self) -> Optional[CheckpointWriters]:
        """The largest accelerated group at its largest: the instances that write one checkpoint together
        (each rank its shard). EKS node groups have EFA as configured; HyperPod sets EFA up on every
        instance type that supports it, but reaches FSx over it only where trainstack's lifecycle
        script puts LNet on it (Slurm: ``hyperpod_fsx_over_tcp``)."""
        groups = [CheckpointWriters(instance_type=g.instance_type, count=g.max_size, efa=g.efa_enabled)
                  for g in self.node_groups]
        for worker in self.hyperpod.workers if self.hyperpod is not None else []:
            instance = catalog.get_hyperpod(worker.instance_type)
            if instance.accelerator is not None:
                groups.append(CheckpointWriters(instance_type=worker.instance_type, count=worker.count,
                                                efa=instance.efa.supported and not self.hyperpod_fsx_over_tcp))
        return max(groups, key=lambda g: g["count"], default=None)

    @property
    def hyperpod_fsx_over_tcp(self) -> bool:
        """HyperPod on EKS beside an EFA-enabled FSx: its nodes mount it over TCP. LNet goes on a node's
        EFA devices at boot (EKS User Guide, fsx-csi-tuning-efa); trainstack does that in EKS node groups'
        user data and in Slurm instance groups' lifecycle scripts, and gives EKS-orchestrated instance
        groups no lifecycle script (their nodes are set up by HyperPod and join the cluster as they are)."""
        return bool(self.fsx is not None and self.fsx.efa and self.hyperpod is not None
                    and self.hyperpod.orchestrator == "eks")

    def fsx_throughput_warning(self) -> Optional[str]:
        """A warning when FSx's aggregate throughput per accelerator at max size is under the team's floor."""
        if self.fsx is None:
            return None
        accelerators = sum(g.max_size * g.accelerator.count for g in self.node_groups)
        throughput, floor = self.fsx.throughput_mbps, self.fsx.min_throughput_per_accelerator_mbps
        if not accelerators or throughput / accelerators >= floor:
            return None
        return (f"fsx: {throughput} MB/s for {accelerators} accelerators at max size is "
                f"{throughput / accelerators:.1f} MB/s each, below fsx.minThroughputPerAcceleratorMbps "
                f"({floor:g}); raise storageCapacityGiB or perUnitStorageThroughput.")
