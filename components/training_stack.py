"""TrainingStack: one validated StackConfig in, a training cluster out.

It composes the parts the stack's config asks for, in the order of the
architecture (docs/ARCHITECTURE.md, How data moves):

    AWS provider (the stack's region, default tags)
    Network
    GpuEksCluster (control plane, core add-ons, system nodes, GPU/Trainium groups,
                   device plugins, autoscaler)               when ``eks`` is set
    LustreFileSystem (FSx, its claim on EKS)                  when ``fsx`` is set
    S3Datasets (Mountpoint for S3 claims)                     when ``datasets`` are set (EKS)
    HyperPodCluster                                           when ``hyperpod`` is set
    ClusterAddons (monitoring, job operators)                 with EKS
    Teams (access, fences, data roles per team)               when ``scheduling`` is set
    CheckpointBucket, ECR repository
    outputs: the contract for job launchers (outputs.py) and the kubeconfig
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Optional

import pulumi
import pulumi_aws as aws

from . import catalog
from .addons import block_end, kueue
from .addons.cluster_addons import ClusterAddons, ClusterAddonsArgs
from .addons.observability import MONITORING
from .addons.trainer import MPI_RUNTIME, neuron_training_image
from .catalog.torch_runtime import CHECK_RUNTIME, TORCH_RUNTIME
from .cluster import GpuEksCluster
from .cluster.existing import ExistingCluster
from .config import FsxConfig, HyperPodConfig, StackConfig, validate_stack_config
from .config.component_args import check_mapping
from .config.ip_budget import ip_budget
from .config.resource_names import check_stack_names, cluster_name
from .config.ultraserver_capacity import upgrade_warning
from .helm import charts_from
from .names import PROFILE_CONFIG, STACK_TAG, TRAINING_STACK_COMPONENT
from .network import Network, efa_security_group
from .outputs import KUBECONFIG_OUTPUT, OUTPUT_NAME
from .registry import image_repository
from .stack_contract import build_contract
from .storage.checkpoint_bucket import CheckpointBucket
from .storage.lustre import LustreFileSystem, LustreFileSystemArgs
from .storage.lustre_existing import ExistingLustre, existing_lustre
from .storage.s3_datasets import S3Datasets, S3DatasetsArgs
from .tenancy import Tenant, tenants
from .tenancy.isolation import namespace_labels
from .tenancy.teams import Teams, TeamsArgs

if TYPE_CHECKING:
    from .hyperpod import HyperPodCluster


class TrainingStack(pulumi.ComponentResource):
    """A whole training cluster from one ``StackConfig`` (its Args): network, EKS and node groups, FSx,
    HyperPod, add-ons, buckets, and the outputs contract."""

    def __init__(self, name: str, config: StackConfig | Mapping[str, Any],
                 opts: Optional[pulumi.ResourceOptions] = None):
        if not isinstance(config, StackConfig):
            # A mapping's keys are a stack file's (trainstack:nodeGroups[0].zone); anything else is named here.
            check_mapping(f"TrainingStack({name})", config, "StackConfig",
                          "pass a StackConfig, or a mapping of a stack file's trainstack: keys (load_stack_config).")
        # A StackConfig built with StackConfig(...) has its schema alone: its checks run here (config/checks/).
        config = validate_stack_config(config)
        # Every name below is built from these two: a character one of their owners refuses stops here.
        check_stack_names(pulumi.get_project(), name)
        super().__init__(TRAINING_STACK_COMPONENT, name, {}, opts)
        self.config = config
        self.aws_provider: Optional[aws.Provider] = None
        """The stack's AWS provider; none on an existing cluster's stack, which makes no AWS resource."""
        self.network: Optional[Network] = None
        self.cluster: Optional[GpuEksCluster | ExistingCluster] = None
        """The cluster: made here (``eks``), or made elsewhere and described (``existingCluster``)."""
        self.lustre: Optional[LustreFileSystem | ExistingLustre] = None
        self.checkpoints: Optional[CheckpointBucket] = None
        self.datasets: Optional[S3Datasets] = None
        self.hyperpod: Optional[HyperPodCluster] = None
        self.addons: Optional[ClusterAddons] = None
        self.teams: Optional[Teams] = None
        """Each team's access, fences and data role (``scheduling``)."""
        self.tenants: list[Tenant] = tenants(config)
        """The stack's teams as tenants (none without ``scheduling``): what every part that serves a team reads."""
        self.repository: Optional[aws.ecr.Repository] = None
        self.tags: dict[str, str] = {}

        with charts_from(config.helm_charts.directory):
            if config.existing_cluster is not None:
                self._kubernetes_layer(name, config)
            else:
                self._aws_and_kubernetes(name, config)

        # Declared here, not on the class: class-level annotations are the component
        # package's outputs (trainstack.package), which serves these two one by one.
        self.outputs: dict[str, Any] = {
            OUTPUT_NAME: build_contract(
                name, config, cluster=self.cluster, lustre=self.lustre, hyperpod=self.hyperpod,
                repository_url=self.repository.repository_url if self.repository else None,
                checkpoint_bucket=self.checkpoints.bucket_name if self.checkpoints else None,
                operators=self.operators_contract(), datasets=self.datasets, teams=self.tenants),
            KUBECONFIG_OUTPUT: self.cluster.kubeconfig if self.cluster else None,
        }
        """The stack outputs: ``trainstack`` (the outputs contract, see outputs.py) and ``kubeconfig`` (secret)."""
        self.register_outputs(self.outputs)

    def _aws_and_kubernetes(self, name: str, config: StackConfig) -> None:
        """Everything, from the network up: the stack makes its own cluster (``eks``) or none."""
        # One explicit provider: the region comes from our validated config, not from
        # whatever AWS_REGION the machine running `pulumi up` happens to have.
        self.tags = {**config.tags, STACK_TAG: name, PROFILE_CONFIG: config.profile}
        self.aws_provider = aws.Provider(f"{name}-aws", region=config.region, default_tags={"tags": self.tags},
                                         opts=pulumi.ResourceOptions(parent=self))
        in_region = pulumi.ResourceOptions(parent=self, providers=[self.aws_provider])

        self.network = network = Network(f"{name}-network", {"settings": config.network, "region": config.region},
                                         opts=in_region)
        budget = ip_budget(config)
        # The steady state was checked with the config; the worst case is a warning, not a refusal.
        for warning in budget.warnings() if budget is not None else []:
            pulumi.log.warn(warning, resource=self)
        for group in config.node_groups if config.eks is not None else []:  # groups trainstack itself manages
            upgrade = upgrade_warning(group.name, group.instance_type, group.autoscaler)
            if upgrade is not None:
                pulumi.log.warn(upgrade, resource=self)
        self.cluster = cluster = self._cluster(name, config, network, in_region) if config.eks is not None else None

        # HyperPod's security group exists before FSx, which lets it in as a client.
        hyperpod_group = (efa_security_group(f"{name}-hyperpod", network.vpc_id, in_region, https_egress=True)
                          if config.hyperpod is not None else None)
        # The bucket exists before FSx, which exports checkpoints to it.
        self.checkpoints = (
            CheckpointBucket(f"{name}-checkpoints", {"settings": config.checkpoint_bucket}, opts=in_region)
            if config.checkpoint_bucket.enabled else None)
        self.lustre = lustre = (self._lustre(name, config, config.fsx, network, cluster, in_region,
                                             [hyperpod_group.id] if hyperpod_group else [])
                                if config.fsx is not None else None)
        self.hyperpod = (self._hyperpod(name, config, config.hyperpod, hyperpod_group, network, cluster, lustre,
                                        in_region)
                         if config.hyperpod is not None and hyperpod_group is not None else None)
        self.addons = (ClusterAddons(f"{name}-addons", self._addons_args(config, cluster), opts=in_region)
                       if cluster is not None else None)
        # After the add-ons, which make the team namespaces no FSx claim makes.
        self.datasets = (self._datasets(name, config, cluster, in_region)
                         if config.datasets and cluster is not None else None)
        if cluster is not None:
            self.teams = self._teams(name, config, cluster, in_region)

        self.repository = (image_repository(f"{name}-images", f"{pulumi.get_project()}-{name}/training".lower(),
                                            in_region)
                           if self.cluster is not None or self.hyperpod is not None else None)

    def _kubernetes_layer(self, name: str, config: StackConfig) -> None:
        """Only the Kubernetes layer, onto a cluster made elsewhere (``existingCluster``): no AWS provider,
        so no AWS resource can be made by mistake; config refuses the blocks that would need one."""
        existing = config.existing_cluster
        assert existing is not None
        cluster = ExistingCluster(f"{name}-eks", {"settings": existing, "node_groups": config.node_groups,
                                                  "region": config.region}, opts=pulumi.ResourceOptions(parent=self))
        self.cluster = cluster
        self.lustre = (existing_lustre(f"{name}-fsx", existing.file_system, namespaces=config.job_namespaces,
                                       cluster_name=cluster.cluster_name, provider=cluster.provider, parent=self,
                                       namespace_labels=self._namespace_labels(),
                                       team_directories=self._team_directories())
                       if existing.file_system is not None else None)
        self.addons = ClusterAddons(f"{name}-addons", self._addons_args(config, cluster),
                                    opts=pulumi.ResourceOptions(parent=self))
        self.teams = self._teams(name, config, cluster, pulumi.ResourceOptions(parent=self))

    def _cluster(self, name: str, config: StackConfig, network: Network, opts: pulumi.ResourceOptions
                 ) -> GpuEksCluster:
        """The EKS cluster with the accelerated groups; HyperPod's instance types when it joins the cluster."""
        assert config.eks is not None
        hyperpod = config.hyperpod
        return GpuEksCluster(f"{name}-eks", {
            "settings": config.eks, "node_groups": config.node_groups, "region": config.region,
            "cluster_name": cluster_name(pulumi.get_project(), name),
            "vpc_id": network.vpc_id, "private_subnet_ids": network.private_subnet_ids,
            "private_subnets_by_zone": network.private_subnets_by_zone, "public_subnet_ids": network.public_subnet_ids,
            "lustre_over_efa": bool(config.fsx and config.fsx.efa),
            # Enforced wherever the teams' NetworkPolicies are rendered (_teams): the same predicate, the tenants.
            "network_policy": bool(self.tenants),
            "external_nodes": [catalog.get_hyperpod(g.instance_type) for g in hyperpod.groups]
            if hyperpod is not None and hyperpod.orchestrator == "eks" else [],
        }, opts=opts)

    def _datasets(self, name: str, config: StackConfig, cluster: GpuEksCluster,
                  opts: pulumi.ResourceOptions) -> S3Datasets:
        """Mountpoint for S3 claims, in every namespace jobs run in (the FSx claim's and each team's); with teams,
        only in the namespaces of the teams given each dataset, read with each team's own role."""
        namespaces = config.job_namespaces
        # The namespaces are made with the FSx claims when there is FSx; else with Kueue's objects.
        claim = [self.lustre] if isinstance(self.lustre, LustreFileSystem) and namespaces != ["default"] else []
        queues = self.addons.team_namespaces if self.addons is not None else []
        args: S3DatasetsArgs = {
            "datasets": config.datasets, "region": config.region, "namespaces": namespaces,
            "cluster_name": cluster.cluster_name, "provider": cluster.provider,
            "depends_on": [*cluster.ready_for_workloads, *claim, *queues]}
        if self.tenants:
            args["readers"] = {d.name: [t.namespace for t in self.tenants if d.name in t.datasets]
                               for d in config.datasets}
        return S3Datasets(f"{name}-datasets", args, opts=opts)

    def operators_contract(self) -> dict:
        """Which job operators the cluster runs, for the launchers."""
        if self.addons is None:
            return {"trainingOperator": False, "mpiOperator": False, "etcdEndpoint": None}
        operators = {"trainingOperator": self.addons.training_operator, "mpiOperator": self.addons.mpi_operator,
                     "etcdEndpoint": self.addons.etcd_endpoint}
        # Only stacks running Trainer v2 carry the key: the others' outputs stay as they were.
        if not self.addons.trainer:
            return operators
        trainer = {"trainerRuntime": TORCH_RUNTIME, "trainerCheckRuntime": CHECK_RUNTIME}
        # Only stacks with Neuron groups have the MPI runtime (addons/trainer.py).
        mpi = {"trainerMpiRuntime": MPI_RUNTIME, "trainerMpiImage": neuron_training_image(self.config.region)}
        return {**operators, **trainer, **(mpi if self.addons.trainer_mpi else {})}

    def _addons_args(self, config: StackConfig, cluster: GpuEksCluster | ExistingCluster) -> ClusterAddonsArgs:
        """Monitoring and operators; with a scheduling block, Kueue's configuration and objects too."""
        args: ClusterAddonsArgs = {"observability": config.observability, "operators": config.operators,
                                   "cluster": cluster}
        ends = block_end.block_ends(config.node_groups, config.scheduling)
        if ends:
            args["block_ends"] = ends
        if config.scheduling is not None:
            taints = {name: group.taints for name, group in (cluster.node_groups | cluster.karpenter_pools).items()}
            # The FSx claims' namespaces are created with the claims (storage/lustre_eks.py); the others here.
            lustre: list[pulumi.Resource] = (
                [self.lustre] if isinstance(self.lustre, LustreFileSystem) else
                list(self.lustre.claims) if self.lustre is not None else [])
            existing = {*(self.lustre.claim_namespaces if self.lustre is not None else []), "default", "kube-system"}
            args["kueue"] = kueue.KueueSetup(
                kueue.manager_configuration(config.scheduling, config.node_groups),
                kueue.kueue_objects(config.scheduling, config.node_groups, taints),
                namespaces=sorted({t.namespace for t in config.scheduling.teams} - existing), depends_on=lustre,
                namespace_labels=self._namespace_labels())
        return args

    def _namespace_labels(self) -> dict[str, dict[str, str]]:
        """Each team namespace's labels (its Pod Security level), for whichever part makes the namespace."""
        return {tenant.namespace: namespace_labels(tenant) for tenant in self.tenants}

    def _team_directories(self) -> dict[str, str]:
        """Each team namespace's directory on FSx, its claim's root (storage/lustre_directories.py)."""
        return {t.namespace: t.fsx_directory for t in self.tenants if t.fsx_directory is not None}

    def _teams(self, name: str, config: StackConfig, cluster: GpuEksCluster | ExistingCluster,
               opts: pulumi.ResourceOptions) -> Optional[Teams]:
        """Each team's access, fences and data role, once its namespace exists (made with its FSx claim or its
        queue). On a cluster made elsewhere, the Kubernetes objects only: its access entries and IAM are its
        owner's."""
        if not self.tenants or self.addons is None:
            return None
        made_by = ([self.lustre] if isinstance(self.lustre, LustreFileSystem) else
                   list(self.lustre.claims) if self.lustre is not None else [])
        args: TeamsArgs = {"tenants": self.tenants, "provider": cluster.provider,
                           "depends_on": [*made_by, *self.addons.team_namespaces],
                           "viewers": config.scheduling.viewers if config.scheduling is not None else [],
                           "scrapers": [MONITORING] if config.observability.prometheus else []}
        if isinstance(cluster, GpuEksCluster):
            args["cluster_name"] = cluster.cluster_name
            args["datasets"] = config.datasets
            args["checkpoint_bucket"] = self.checkpoints.bucket_name if self.checkpoints is not None else None
            args["kms_key_arn"] = config.checkpoint_bucket.kms_key_arn
        return Teams(f"{name}-teams", args, opts=opts)

    def export_outputs(self) -> None:
        for key, value in self.outputs.items():
            pulumi.export(key, value)

    def _lustre(self, name: str, config: StackConfig, fsx: FsxConfig, network: Network,
                cluster: Optional[GpuEksCluster], opts: pulumi.ResourceOptions,
                clients: list[pulumi.Input[str]]) -> LustreFileSystem:
        args: LustreFileSystemArgs = {
            "settings": fsx, "vpc_id": network.vpc_id,
            "subnet_id": network.private_subnet_ids[fsx.zone], "client_security_group_ids": clients}
        writers = config.checkpoint_writers
        if writers is not None:
            args["checkpoint_writers"] = writers
        if self.checkpoints is not None:
            args["checkpoint_bucket"] = self.checkpoints.bucket_name
        if cluster is not None:
            args["client_security_group_ids"] = [cluster.cluster_security_group_id, *clients]
            args["eks"] = {"cluster_name": cluster.cluster_name, "provider": cluster.provider,
                           "depends_on": cluster.ready_for_workloads, "job_namespaces": config.job_namespaces,
                           "namespace_labels": self._namespace_labels(),
                           "team_directories": self._team_directories()}
        lustre = LustreFileSystem(f"{name}-fsx", args, opts=opts)
        warning = config.fsx_throughput_warning()
        if warning is not None:
            pulumi.log.warn(warning, resource=self)
        if config.hyperpod_fsx_over_tcp:
            pulumi.log.warn("fsx.efa: HyperPod's EKS-orchestrated nodes mount this file system over TCP; trainstack "
                            "puts LNet on EFA in EKS node groups and Slurm lifecycle scripts only.", resource=self)
        return lustre

    def _hyperpod(self, name: str, config: StackConfig, settings: HyperPodConfig, group: aws.ec2.SecurityGroup,
                  network: Network, cluster: Optional[GpuEksCluster], lustre: Optional[LustreFileSystem],
                  opts: pulumi.ResourceOptions) -> Optional[HyperPodCluster]:
        import pulumi_aws_native as aws_native  # only stacks with HyperPod need it

        from .hyperpod import HyperPodCluster, HyperPodClusterArgs

        native = aws_native.Provider(f"{name}-aws-native", region=config.region, default_tags={"tags": self.tags},
                                     opts=pulumi.ResourceOptions(parent=self))
        args: HyperPodClusterArgs = {
            "settings": settings, "region": config.region,
            "subnet_id": network.private_subnet_ids[config.hyperpod_zone], "security_group_ids": [group.id]}
        if settings.orchestrator == "eks" and cluster is not None:
            # HyperPod's nodes join the EKS cluster as EKS's managed nodes do: in the cluster
            # security group (EKS user guide, sec-group-reqs), as AWS's HyperPod EKS template has
            # them (aws-samples/awsome-distributed-training 7.sagemaker-hyperpod-eks @ 7217859f).
            # Why: docs/adr/0010-hyperpod-eks-nodes-in-the-cluster-security-group.md
            args["security_group_ids"] = [group.id, cluster.cluster_security_group_id]
        if lustre is not None:
            args["fsx_mount"] = lustre.hyperpod_mount
            args["lustre_over_efa"] = bool(config.fsx and config.fsx.efa)
        # StackConfig refuses EKS orchestration without eks; were the cluster missing,
        # HyperPodCluster would refuse the missing ``eks`` args with the fix.
        if settings.orchestrator == "eks" and cluster is not None and config.eks is not None:
            cluster_name = cluster.cluster_name
            account = aws.get_caller_identity_output(
                opts=pulumi.InvokeOutputOptions(parent=self, provider=self.aws_provider)).account_id
            args["eks"] = {"authentication_mode": "API", "cluster_arn": account.apply(
                lambda a: f"arn:aws:eks:{config.region}:{a}:cluster/{cluster_name}"),
                "cluster_name": cluster_name, "kubeconfig": cluster.kubeconfig,
                "addon_versions": config.eks.addon_versions,
                "ready_for_workloads": cluster.ready_for_workloads,
                "training_operator": config.operators.training_operator, "mpi_operator": config.operators.mpi_operator}
        assert self.aws_provider is not None  # made first, by _aws_and_kubernetes
        return HyperPodCluster(f"{name}-hyperpod", args, opts=pulumi.ResourceOptions.merge(
            opts, pulumi.ResourceOptions(providers=[self.aws_provider, native])))

