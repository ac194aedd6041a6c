"""StackConfig: one validated model of a stack's ``trainstack:`` configuration.

Each top-level field is one Pulumi config key (``trainstack:nodeGroups`` …).
Validation runs once, before any resource is registered; the cross-field checks
here are the ones that need more than one block (zones against the network,
reservations against node groups, profile rules).
"""

from __future__ import annotations

import re
from typing import Any, Literal, Optional

from pydantic import field_validator, model_validator

from .. import catalog
from ..catalog import hyperpod_eks
from ..catalog.addons import EKS_AMI_RELEASE
from ..catalog.image_registries import UnknownRegistryRegion, dlc_registry, eks_registry
from .addons import CostConfig, HelmChartsConfig, ObservabilityConfig, OperatorsConfig
from .base import ConfigModel, ConfigValueError
from .checkpoints import CheckpointWriters
from .cluster import VPC_CNI_MIN_FOR_EFA_ONLY, EksConfig, vpc_cni_version_tuple
from .datasets import DatasetConfig
from .device_wait import DeviceWait
from .existing_cluster import ExistingClusterConfig
from .hyperpod import HyperPodConfig
from .ip_budget import check_ip_budget
from .job_operators import check_job_operators
from .kubernetes_version import check_minor_pins
from .network import NetworkConfig
from .nodegroups import NodeGroupConfig
from .offerings import check_offerings, check_region, check_zones
from .principals import admin_listings, refuse_repeats, team_listings
from .profiles import with_profile_defaults
from .scheduling import SchedulingConfig, cohort_of_groups
from .storage import EFA_GUIDE, CheckpointBucketConfig, FsxConfig
from .system_load import SystemNodeSizes, check_system_nodes, system_node_sizes
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

    @model_validator(mode="after")
    def _cross_checks(self) -> StackConfig:
        check_zones(self)
        self._check_existing_cluster()
        self._check_node_groups()
        self._check_system_nodes()
        check_ip_budget(self)
        self._check_fsx()
        self._check_datasets()
        self._check_device_wait()
        self._check_hyperpod()
        check_offerings(self)
        self._check_image_registries()
        self._check_scheduling()
        self._check_dataset_teams()
        self._check_team_paths()
        self._check_profile()
        check_job_operators(self)
        check_minor_pins(self)
        return self

    def _check_node_groups(self) -> None:
        if self.node_groups and self.eks is None and self.existing_cluster is None:
            raise ConfigValueError("node groups need an EKS cluster.",
                                   fix="add an eks block (eks: {} takes every default), or existingCluster.",
                                   path=("nodeGroups",), value=[g.name for g in self.node_groups])
        seen: set[str] = set()
        held: dict[str, NodeGroupConfig] = {}
        """Each reservation or block and the one group that holds it, managed node group or Karpenter pool."""
        for index, group in enumerate(self.node_groups):
            if group.name in seen:
                raise ConfigValueError(f"node group name '{group.name}' is used twice.",
                                       fix="give each node group its own name.",
                                       path=("nodeGroups", index, "name"), value=group.name)
            seen.add(group.name)
            for reservation_id in group.capacity.reservation_ids:  # a pool's each, or the group's one
                holder = held.get(reservation_id)
                if holder is not None:
                    raise ConfigValueError(
                        f"{group.capacity.type} {reservation_id} is already held by node group "
                        f"'{holder.name}' (autoscaler: {holder.autoscaler}); two groups on one reservation compete "
                        "for its instances and neither can count on them.",
                        fix="give each reservation or block to one group: remove it here, or from "
                        f"'{holder.name}'.", path=("nodeGroups", index, "capacity", "reservationId"),
                        value=reservation_id)
                held[reservation_id] = group
            if group.zone not in self.network.private_zones:
                raise ConfigValueError(
                    f"node group zone {group.zone} has no private subnet in the network "
                    f"(zones: {', '.join(self.network.private_zones)}).",
                    fix=f"add {group.zone} to network.zones (or an existing subnet in it), or move the group.",
                    path=("nodeGroups", index, "zone"), value=group.zone)
        pinned_cni = self.eks.addon_versions.vpc_cni if self.eks else None
        if pinned_cni and any(g.efa_enabled for g in self.node_groups) and \
                vpc_cni_version_tuple(pinned_cni) < VPC_CNI_MIN_FOR_EFA_ONLY:
            raise ConfigValueError(
                f"vpc-cni {pinned_cni} cannot run beside efa-only interfaces (needs 1.18.5 or later).",
                fix="pin vpc-cni v1.18.5-eksbuild.1 or later, or remove the pin.",
                path=("eks", "addonVersions", "vpcCni"), value=pinned_cni)

    def _check_system_nodes(self) -> None:
        if self.eks is None:
            return
        try:
            check_system_nodes(self.eks.system_nodes, self.node_groups)
        except ConfigValueError as error:
            raise ConfigValueError(error.message, fix=error.fix, path=("eks", "systemNodes", *error.path),
                                   value=error.value) from None

    def _check_existing_cluster(self) -> None:
        """An existing cluster's stack makes no AWS resource: refuse each block that would make one,
        with where that part comes from instead."""
        if self.existing_cluster is None:
            return
        if self.eks is not None:
            raise ConfigValueError("eks makes a cluster and existingCluster adds to one that exists; a stack does "
                                   "one of the two.", fix="remove eks, or existingCluster.",
                                   path=("existingCluster",), value=self.existing_cluster.name)
        if self.network.existing_vpc is None:
            raise ConfigValueError(
                "an existing cluster runs in an existing VPC; trainstack checks its node groups' zones and pod "
                "addresses against the VPC's subnets.",
                fix="describe the cluster's VPC in network.existingVpc (vpcId, privateSubnets with id, zone, cidr).",
                path=("network", "existingVpc"), value=None)
        made_in_aws = {
            ("fsx",): (self.fsx is not None, "creates a file system", "existingCluster.fileSystem (one that exists)"),
            ("hyperpod",): (self.hyperpod is not None, "creates a HyperPod cluster", "a stack of its own"),
            ("datasets",): (bool(self.datasets), "creates IAM roles and the Mountpoint for S3 add-on",
                            "a stack with an eks block"),
            ("checkpointBucket", "enabled"): (self.checkpoint_bucket.enabled, "creates an S3 bucket",
                                              "checkpointBucket.enabled: false"),
            ("observability", "containerInsights"): (self.observability.container_insights,
                                                     "installs an EKS add-on and its IAM role",
                                                     "observability.containerInsights: false"),
        }
        for path, (asked, what, instead) in made_in_aws.items():
            if asked:
                raise ConfigValueError(
                    f"{'.'.join(path)} {what} in AWS; with existingCluster trainstack makes no AWS resource.",
                    fix=f"use {instead}.", path=path, value=True)
        for index, group in enumerate(self.node_groups):
            if group.autoscaler == "karpenter":
                raise ConfigValueError(
                    f"node group '{group.name}' asks for a Karpenter pool, which needs Karpenter's IAM roles and "
                    "interruption queue in AWS; an existing cluster's groups are described, not made.",
                    fix="describe the group as it is (autoscaler: cluster-autoscaler, its nodes already there).",
                    path=("nodeGroups", index, "autoscaler"), value="karpenter")

    def _check_image_registries(self) -> None:
        """AWS's images this stack renders come from the region's registry (catalog.image_registries):
        the EFA device plugin's where EKS nodes have EFA, the Neuron training container's where
        Kubeflow Trainer runs beside Neuron nodes. A region the tables do not name is refused here."""
        if self.eks is None:
            return
        joining = ([catalog.get_hyperpod(g.instance_type) for g in self.hyperpod.groups]
                   if self.hyperpod is not None and self.hyperpod.orchestrator == "eks" else [])
        kinds = {g.accelerator.kind for g in self.node_groups} | {t.accelerator.kind for t in joining if t.accelerator}
        try:
            if any(g.efa_enabled for g in self.node_groups) or any(t.efa.supported for t in joining):
                eks_registry(self.region)
            if self.operators.trainer and catalog.AcceleratorKind.NEURON in kinds:
                dlc_registry(self.region, neuron=True)
        except UnknownRegistryRegion as error:
            raise ConfigValueError(error.problem, fix=error.fix, path=("region",), value=self.region) from None

    def _check_fsx(self) -> None:
        if self.fsx is None:
            return
        if self.fsx.zone not in self.network.private_zones:
            raise ConfigValueError(f"FSx zone {self.fsx.zone} has no private subnet in the network.",
                                   fix=f"use one of {', '.join(self.network.private_zones)}.",
                                   path=("fsx", "zone"), value=self.fsx.zone)
        for group in self.node_groups:
            if group.zone != self.fsx.zone:
                raise ConfigValueError(
                    f"FSx is in {self.fsx.zone} but node group '{group.name}' is in {group.zone}; "
                    "Lustre traffic across zones is slow and billed.",
                    fix=f"put the file system in {group.zone}, or the node group in {self.fsx.zone}.",
                    path=("fsx", "zone"), value=self.fsx.zone)
        clients = [g.instance_type for g in self.node_groups] + (
            [catalog.get_hyperpod(g.instance_type).name for g in self.hyperpod.groups] if self.hyperpod else [])
        if self.fsx.efa and any(t.startswith("trn2") for t in clients):
            raise ConfigValueError(f"EFA-enabled FSx does not support trn2 clients ({EFA_GUIDE}).",
                                   fix="set fsx.efa: false for stacks with trn2 node groups or instance groups.",
                                   path=("fsx", "efa"), value=True)
        export = self.fsx.checkpoints is not None and self.fsx.checkpoints.export_to_bucket
        if export and not self.checkpoint_bucket.enabled:
            raise ConfigValueError("fsx.checkpoints.exportToBucket exports checkpoints to the stack's checkpoint "
                                   "bucket, which checkpointBucket.enabled: false turns off.",
                                   fix="enable the checkpoint bucket, or set fsx.checkpoints.exportToBucket: false.",
                                   path=("fsx", "checkpoints", "exportToBucket"), value=True)
        if self.fsx.deployment_type == "SCRATCH_2" and self.profile == "production":
            raise ConfigValueError("SCRATCH_2 keeps no replica and no backup; production data needs PERSISTENT_2.",
                                   fix="use deploymentType: PERSISTENT_2, or profile: dev.",
                                   path=("fsx", "deploymentType"), value="SCRATCH_2")

    def _check_device_wait(self) -> None:
        if self.device_wait is not None and not self.node_groups:
            raise ConfigValueError("deviceWait waits for the nodes of the accelerated groups, and the stack has none "
                                   "(HyperPod's nodes are HyperPod's to check).",
                                   fix="remove deviceWait, or add nodeGroups.", path=("deviceWait",),
                                   value=self.device_wait.model_dump(by_alias=True))

    def _check_datasets(self) -> None:
        if self.datasets and self.eks is None:
            raise ConfigValueError("datasets are mounted by the Mountpoint for S3 CSI driver, an EKS add-on.",
                                   fix="add an eks block, or remove datasets.", path=("datasets",),
                                   value=[d.name for d in self.datasets])
        names: set[str] = set()
        paths = {self.fsx.mount_path} if self.fsx else set()
        for index, dataset in enumerate(self.datasets):
            for key, value, seen in (("name", dataset.name, names), ("mountPath", dataset.mount_path, paths)):
                if value in seen:
                    raise ConfigValueError(f"dataset {key} {value} is taken (datasets and fsx mount into one pod).",
                                           fix=f"give each dataset its own {key}.",
                                           path=("datasets", index, key), value=value)
                seen.add(value)
            stores = {g.name: g.instance.nvme_instance_store_gb or 0 for g in self.node_groups}
            if dataset.cache_gib is not None and stores and min(stores.values()) < dataset.cache_gib * 1.074:
                group = min(stores, key=lambda name: stores[name])
                raise ConfigValueError(
                    f"a {dataset.cache_gib} GiB cache does not fit the local NVMe instance store of node group "
                    f"'{group}' ({stores[group]} GB; the catalog, from EC2 InstanceStorageInfo).",
                    fix="lower cacheGiB, or remove it (no data cache) where a group has no instance store.",
                    path=("datasets", index, "cacheGiB"), value=dataset.cache_gib)

    def _check_hyperpod(self) -> None:
        if self.hyperpod is None:
            return
        if self.hyperpod.orchestrator == "eks" and self.eks is None:
            raise ConfigValueError("HyperPod with EKS orchestration needs the EKS cluster.",
                                   fix="add an eks block, or use orchestrator: slurm.",
                                   path=("hyperpod", "orchestrator"), value="eks")
        if self.hyperpod.orchestrator == "eks" and self.eks is not None and \
                self.eks.version not in hyperpod_eks.HYPERPOD_EKS_KUBERNETES_VERSIONS:
            supported = ', '.join(hyperpod_eks.HYPERPOD_EKS_KUBERNETES_VERSIONS)
            raise ConfigValueError(
                f"SageMaker HyperPod does not support Kubernetes {self.eks.version} for EKS orchestration "
                f"(it supports {supported}; {hyperpod_eks.HYPERPOD_EKS_VERSIONS_SOURCE}).",
                fix=f"set eks.version to one of {supported}, "
                "or use orchestrator: slurm.", path=("eks", "version"), value=self.eks.version)
        pinned_cni = self.eks.addon_versions.vpc_cni if self.eks is not None else None
        if self.hyperpod.orchestrator == "eks" and pinned_cni and \
                vpc_cni_version_tuple(pinned_cni) < hyperpod_eks.HYPERPOD_EKS_MIN_VPC_CNI:
            raise ConfigValueError(
                f"SageMaker HyperPod needs the VPC CNI 1.18.3 or later; vpc-cni is pinned to {pinned_cni}.",
                fix="pin vpc-cni v1.18.3-eksbuild.1 or later, or remove the pin.",
                path=("eks", "addonVersions", "vpcCni"), value=pinned_cni)
        zone = self.hyperpod_zone
        if zone not in self.network.private_zones:
            raise ConfigValueError(f"HyperPod zone {zone} has no private subnet in the network.",
                                   fix=f"use one of {', '.join(self.network.private_zones)}.",
                                   path=("hyperpod", "zone"), value=zone)
        if self.hyperpod.task_governance and self.operators.kueue:
            # Task governance is Kueue-based (EKS user guide, add-on list) and runs its own Kueue;
            # a second Kueue release would fight it over the same CRDs and webhooks. That the add-on
            # bundles Kueue is an assumption not confirmed from a primary source here, so the
            # conservative choice is to refuse both together.
            raise ConfigValueError("HyperPod task governance brings its own Kueue; operators.kueue would install "
                                   "a second one.", fix="remove operators.kueue (or set it to false).",
                                   path=("operators", "kueue"), value=True)
        if self.fsx is not None and self.fsx.zone != zone:
            raise ConfigValueError(
                f"HyperPod runs in {zone} but FSx is in {self.fsx.zone}; the file system must share the zone.",
                fix="set hyperpod.zone and fsx.zone to the same zone.", path=("hyperpod", "zone"), value=zone)

    def _check_scheduling(self) -> None:
        if self.scheduling is None:
            return
        if not self.operators.kueue:
            raise ConfigValueError("scheduling makes Kueue's queues and quotas; Kueue is not installed.",
                                   fix="set operators.kueue: true.", path=("operators", "kueue"), value=False)
        if not self.node_groups:
            raise ConfigValueError("scheduling shares the accelerated node groups; this stack has none.",
                                   fix="add nodeGroups, or remove scheduling.", path=("scheduling",), value=None)
        try:
            cohort_of_groups(self.scheduling, {g.name: g.owned_nodes for g in self.node_groups})
        except ConfigValueError as error:
            error.path = ("scheduling", *error.path)
            raise
        # One access entry per principal and cluster, across the admins, the members and the viewers (principals.py).
        admins = self.eks.admin_principals if self.eks is not None else []
        refuse_repeats(admin_listings(admins) + team_listings(
            [(t.name, t.members) for t in self.scheduling.teams], self.scheduling.viewers))

    def _check_team_paths(self) -> None:
        """With teams, each team's FSx claim mounts only ``/teams/<team>`` (storage/lustre_directories.py): a path
        the stack links or exports elsewhere on the file system would be out of every team's reach."""
        if self.scheduling is None or self.fsx is None:
            return
        homes = [f"/teams/{team.name}/" for team in self.scheduling.teams]
        paths: list[tuple[tuple[str | int, ...], str, str]] = []
        if self.fsx.data_repository is not None:
            paths.append((("fsx", "dataRepository", "fileSystemPath"), self.fsx.data_repository.file_system_path,
                          "the S3 data repository"))
        if self.fsx.checkpoints is not None and self.fsx.checkpoints.export_to_bucket:
            paths.append((("fsx", "checkpoints", "path"), self.fsx.checkpoints.path, "the checkpoint export"))
        for path, value, what in paths:
            if not any(f"{value.rstrip('/')}/".startswith(home) for home in homes):
                raise ConfigValueError(
                    f"{what} is at {value}, outside every team's directory: on a stack with teams, each team's FSx "
                    "claim mounts only /teams/<team>, so no team's pods would see it.",
                    fix=f"put it inside the directory of the team that uses it ({homes[0]}...).", path=path,
                    value=value)

    def _check_dataset_teams(self) -> None:
        teams = [t.name for t in self.scheduling.teams] if self.scheduling is not None else []
        for index, dataset in enumerate(self.datasets):
            for team_index, team in enumerate(dataset.teams or []):
                if team not in teams:
                    raise ConfigValueError(
                        f"dataset '{dataset.name}' is given to team '{team}', which is no team of the stack "
                        f"(teams: {', '.join(teams) or 'none: no scheduling block'}).",
                        fix="name a team of scheduling.teams, or remove teams (every team reads it).",
                        path=("datasets", index, "teams", team_index), value=team)

    def _check_profile(self) -> None:
        """Refuse what the profile forbids (its defaults are filled in before validation: config.profiles)."""
        production = self.profile == "production"
        if self.eks is not None:
            access = self.eks.endpoint_access
            if production and access != "private":
                raise ConfigValueError(
                    "production stacks keep the Kubernetes API private.",
                    fix="remove endpointAccess (or set it to private) and run `pulumi up` from inside the VPC "
                    "(a bastion, VPN or CI runner there), or use profile: dev.",
                    path=("eks", "endpointAccess"), value=access)
            for index, group in enumerate(self.node_groups):
                if production and group.autoscaler == "karpenter" and group.ami_version in (None, "latest"):
                    # Karpenter's nodeclasses.md (v1.14.1, amiSelectorTerms alias): @latest drifts every
                    # node to each new AMI as it is published; production pins and rolls on purpose.
                    raise ConfigValueError(
                        f"Karpenter group '{group.name}' would follow al2023@latest: every AMI release AWS "
                        "publishes would drift and replace its nodes, pods and all.",
                        fix=f"set amiVersion to a release, e.g. {EKS_AMI_RELEASE} (awslabs/amazon-eks-ami "
                        "releases), and roll it on purpose by changing it; or use profile: dev.",
                        path=("nodeGroups", index, "amiVersion"), value=group.ami_version)

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
