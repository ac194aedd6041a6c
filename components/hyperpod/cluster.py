"""HyperPodCluster: SageMaker HyperPod with Slurm or EKS orchestration.

    execution role (managed instance policy + scoped network grants)
    lifecycle scripts in a sagemaker-* bucket, addressed by content hash (Slurm)
    the cluster (pulumi-aws-native; pulumi-aws has no HyperPod resource):
        instance groups from config, Slurm configured through the API,
        FSx mounted through instance storage, automatic node recovery
    with EKS orchestration, HyperPod's add-ons on the EKS cluster (switches):
        cert-manager + the HyperPod training operator, task governance

The cluster lives in one private subnet (EFA does not cross zones) with the
security groups it is given (the EFA group, and FSx's client group).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NotRequired, Optional, TypedDict

import pulumi

from ..catalog import timeouts
from ..config import AddonVersions, ConfigError, ConfigIssue, HyperPodConfig, validate
from ..config.component_args import check_args
from ..config.offerings import check_component, hyperpod_placements
from ..names import HYPERPOD_CLUSTER_COMPONENT
from . import dependencies_chart, dependencies_check
from .eks_addons import hyperpod_eks_addons
from .iam import execution_role
from .instance_groups import render_instance_groups
from .lifecycle import upload_lifecycle

if TYPE_CHECKING:
    import pulumi_aws as aws

HYPERPOD_AUTH_MODES = ("API", "API_AND_CONFIG_MAP")

class HyperPodEksArgs(TypedDict):
    """The EKS cluster that orchestrates HyperPod."""

    cluster_arn: pulumi.Input[str]
    """The EKS cluster's ARN: HyperPod's nodes join it."""
    authentication_mode: str
    """The EKS cluster's authentication mode; HyperPod needs access entries (API modes)."""
    cluster_name: NotRequired[pulumi.Input[str]]
    """Where HyperPod's add-ons go (required when ``trainingOperator`` or ``taskGovernance`` is on)."""
    kubeconfig: pulumi.Input[str]
    """The EKS cluster's kubeconfig (GpuEksCluster.kubeconfig): during a deploy the component reads the cluster
    for HyperPod's dependencies chart, and creates the HyperPod cluster only once it is there
    (dependencies_check.py)."""
    addon_versions: NotRequired[AddonVersions]
    """``eks.addonVersions``: pins for HyperPod's add-ons too."""
    ready_for_workloads: NotRequired[list[pulumi.Resource]]
    """What the EKS cluster needs before add-on pods can run (GpuEksCluster.ready_for_workloads)."""
    training_operator: NotRequired[bool]
    """trainstack installs the Kubeflow training operator on this cluster (the HyperPod chart's is then off)."""
    mpi_operator: NotRequired[bool]
    """trainstack installs the MPI operator on this cluster (the HyperPod chart's is then off)."""


class HyperPodClusterArgs(TypedDict):
    """The ``hyperpod`` config block and the network, file system and EKS cluster it uses."""

    settings: HyperPodConfig | dict
    """The ``hyperpod`` config block."""
    region: str
    """The stack's region: the instance types must be offered for HyperPod there, and the execution role's
    grants are scoped to it."""
    subnet_id: pulumi.Input[str]
    """The private subnet of the cluster's zone."""
    security_group_ids: Sequence[pulumi.Input[str]]
    """The security groups of the instances' network interfaces, 1 to 5: the EFA group and the file system's
    client group."""
    fsx_mount: NotRequired[dict]
    """``{dns_name, mount_name, mount_path}`` (LustreFileSystem.hyperpod_mount)."""
    lustre_over_efa: NotRequired[bool]
    """The file system is EFA-enabled: Slurm nodes with EFA put LNet on their EFA devices at
    OnInitComplete and remount it (scripts/on_init_complete.sh)."""
    eks: NotRequired[HyperPodEksArgs]
    """The EKS cluster; required for EKS orchestration."""


class HyperPodCluster(pulumi.ComponentResource):
    """A SageMaker HyperPod cluster (Slurm or EKS orchestration): instance groups, lifecycle scripts,
    execution role."""

    cluster_name: str
    cluster_arn: pulumi.Output[str]
    partitions: dict[str, str]
    """Slurm partition per worker group."""
    ssm_target_prefixes: pulumi.Output[dict]
    """Per group, the SSM target prefix: ``sagemaker-cluster:<cluster-id>_<group>-`` + instance id."""

    def __init__(self, name: str, args: HyperPodClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        settings = self._checked(name, args)
        eks = args.get("eks")
        super().__init__(HYPERPOD_CLUSTER_COMPONENT, name, {}, opts)
        import pulumi_aws_native as aws_native  # only stacks with HyperPod need it

        self.dependencies_command = self._expected_chart(settings, eks)
        """The command that installs HyperPod's dependencies chart (EKS orchestration), else None."""
        security_groups = list(args["security_group_ids"])
        role = execution_role(f"{name}-nodes", region=args["region"], subnet_ids=[args["subnet_id"]],
                              security_group_ids=security_groups, parent=self,
                              eks_cluster_arn=eks["cluster_arn"] if eks is not None and settings.orchestrator == "eks"
                              else None)
        fsx_mount = args.get("fsx_mount")
        lifecycle_uri = None
        if settings.orchestrator == "slurm":
            lifecycle_uri = upload_lifecycle(name, settings, fsx_mount["mount_path"] if fsx_mount else None,
                                             parent=self, lustre_over_efa=args.get("lustre_over_efa", False))
        orchestrator = ({"slurm": {"slurm_config_strategy": "Managed"}} if settings.orchestrator == "slurm"
                        else {"eks": {"cluster_arn": self._after_chart_check(eks) if eks is not None else None}})
        cluster = aws_native.sagemaker.Cluster(
            name,
            cluster_name=settings.cluster_name,
            orchestrator=orchestrator,
            instance_groups=render_instance_groups(settings, execution_role_arn=role.arn,
                                                   lifecycle_uri=lifecycle_uri, fsx_mount=fsx_mount),
            node_recovery=settings.node_recovery,
            vpc_config={"subnets": [args["subnet_id"]], "security_group_ids": security_groups},
            # The plan's estimate with its margin (catalog/timeouts.py): longer with deep health checks on start.
            opts=pulumi.ResourceOptions(parent=self, custom_timeouts=pulumi.CustomTimeouts(**timeouts.hyperpod_timeouts(
                any(group.deep_health_checks for group in settings.groups)))),
        )
        self.cluster: aws_native.sagemaker.Cluster = cluster
        """The SageMaker HyperPod cluster (``aws_native.sagemaker.Cluster``): instance groups, orchestrator."""
        self.execution_role: aws.iam.Role = role
        """The instances' execution role (``aws.iam.Role``)."""
        self.cluster_name = settings.cluster_name
        self.cluster_arn = cluster.cluster_arn
        self.node_recovery = settings.node_recovery
        self.eks_addons: Mapping[str, pulumi.Resource] = {}
        if eks is not None and settings.orchestrator == "eks" and (settings.training_operator
                                                                    or settings.task_governance):
            # Both act on HyperPod's nodes and jobs: they wait for the cluster as well as for EKS.
            self.eks_addons = hyperpod_eks_addons(
                name, settings, cluster_name=eks["cluster_name"], versions=eks.get("addon_versions", AddonVersions()),
                parent=self, depends_on=[cluster, *eks.get("ready_for_workloads", [])])
        self.training_operator = settings.training_operator
        self.task_governance = settings.task_governance
        self.partitions = ({w.name: w.slurm_partition for w in settings.workers}
                           if settings.orchestrator == "slurm" else {})
        group_names = [g.name for g in settings.groups]
        self.ssm_target_prefixes = cluster.cluster_arn.apply(lambda arn: ssm_target_prefixes(arn, group_names))
        self.instance_groups = [{"name": g.name, "instanceType": g.instance_type, "count": g.count}
                                for g in settings.groups]
        self.register_outputs({"clusterName": self.cluster_name, "clusterArn": self.cluster_arn,
                               "partitions": self.partitions, "ssmTargetPrefixes": self.ssm_target_prefixes,
                               "instanceGroups": self.instance_groups, "nodeRecovery": self.node_recovery,
                               "trainingOperator": self.training_operator, "taskGovernance": self.task_governance})

    def _expected_chart(self, settings: HyperPodConfig, eks: Optional[HyperPodEksArgs]) -> Optional[str]:
        """The chart's install command, said on every deploy: its switches are part of what runs in the cluster
        (the controller models read them), though this program cannot install it."""
        command = dependencies_command(settings, eks)
        if command is not None:
            pulumi.log.warn("HyperPod on EKS: the HyperPod cluster is created once HyperPod's dependencies chart is "
                            f"in the EKS cluster (the deploy reads it first), installed as: {command}", resource=self)
        return command

    @staticmethod
    def _after_chart_check(eks: HyperPodEksArgs) -> pulumi.Output[str]:
        """The EKS cluster's ARN, known only once the cluster was read and HyperPod's dependencies chart found with
        the right switches: the HyperPod cluster's registration waits on it, so a deploy that finds no chart stops
        before the HyperPod cluster (and its instances' bill) exists."""
        checked = dependencies_check.chart_checked(eks["kubeconfig"], _switches_off(eks),
                                                   eks.get("cluster_name", eks["cluster_arn"]))
        return pulumi.Output.all(eks["cluster_arn"], checked).apply(lambda values: str(values[0]))

    @classmethod
    def _checked(cls, name: str, args: HyperPodClusterArgs) -> HyperPodConfig:
        """``settings`` validated, once the args have every key they must, its region offers HyperPod and the
        groups' types, and the orchestrator and security groups are ones HyperPod takes."""
        check_args(f"HyperPodCluster({name})", HyperPodClusterArgs, args)
        settings = validate(HyperPodConfig, args["settings"], prefix=f"HyperPodCluster({name})", at=("settings",))
        zones = [settings.zone] if settings.zone else []
        check_component(f"HyperPodCluster({name})", args["region"], hyperpod=True,
                        groups=hyperpod_placements(settings, zones, ("settings",)))
        cls._check_orchestrator(name, settings, args.get("eks"))
        cls._check_security_groups(name, list(args["security_group_ids"]))
        return settings

    @staticmethod
    def _check_security_groups(name: str, security_groups: list[pulumi.Input[str]]) -> None:
        # AWS::SageMaker::Cluster VpcConfig.SecurityGroupIds: 1 to 5 items (CloudFormation schema).
        if not 1 <= len(security_groups) <= 5:
            raise ConfigError([ConfigIssue(
                f"HyperPodCluster({name}):security_group_ids", len(security_groups),
                "HyperPod's VPC configuration takes 1 to 5 security groups for its nodes' network interfaces.",
                "pass the EFA security group (and FSx's client group), at most 5.")])

    @staticmethod
    def _check_orchestrator(name: str, settings: HyperPodConfig, eks: Optional[HyperPodEksArgs]) -> None:
        if settings.orchestrator != "eks":
            return
        if eks is None:
            raise ConfigError([ConfigIssue(f"HyperPodCluster({name}):eks", None,
                                           "EKS orchestration needs the EKS cluster.",
                                           "pass eks={'cluster_arn': ..., 'authentication_mode': ...}.")])
        if (settings.training_operator or settings.task_governance) and "cluster_name" not in eks:
            raise ConfigError([ConfigIssue(f"HyperPodCluster({name}):eks.cluster_name", None,
                                           "HyperPod's add-ons go on the EKS cluster, whose name is missing.",
                                           "pass eks={..., 'cluster_name': <the EKS cluster's name>}.")])
        if "kubeconfig" not in eks:
            raise ConfigError([ConfigIssue(
                f"HyperPodCluster({name}):eks.kubeconfig", None,
                "HyperPod on EKS needs its dependencies chart in the EKS cluster before the HyperPod cluster is "
                "created (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-prerequisites"
                ".html); the component reads the cluster for it, through the cluster's kubeconfig.",
                "pass eks={..., 'kubeconfig': <the EKS cluster's kubeconfig, e.g. GpuEksCluster.kubeconfig>}.")])
        if "authentication_mode" in eks and eks["authentication_mode"] not in HYPERPOD_AUTH_MODES:
            raise ConfigError([ConfigIssue(
                f"HyperPodCluster({name}):eks.authentication_mode", eks["authentication_mode"],
                "HyperPod creates EKS access entries for its nodes, which CONFIG_MAP clusters do not have.",
                "switch the EKS cluster to API (or API_AND_CONFIG_MAP) authentication; trainstack's "
                "GpuEksCluster always uses API.")])
        check_args(f"HyperPodCluster({name})", HyperPodEksArgs, eks, under="eks.")


def ssm_target_prefixes(cluster_arn: Optional[str], group_names: list[str]) -> dict[str, str]:
    """Per instance group, the SSM target prefix of its nodes: ``sagemaker-cluster:<cluster-id>_<group>-``, the
    cluster id being the ARN's last segment (``arn:aws:sagemaker:<region>:<account>:cluster/<id>``, DescribeCluster's
    ClusterArn pattern: https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_DescribeCluster.html).
    Empty where no provider filled the ARN (Pulumi's unit-test mocks echo a resource's inputs, and the ARN is no
    input) rather than a failure inside an apply."""
    if not cluster_arn:
        return {}
    cluster_id = cluster_arn.rsplit("/", 1)[-1]
    return {g: f"sagemaker-cluster:{cluster_id}_{g}-" for g in group_names}


def dependencies_command(settings: HyperPodConfig, eks: Optional[HyperPodEksArgs]) -> Optional[str]:
    """The command that installs HyperPod's dependencies chart for this cluster (EKS orchestration), else None."""
    if settings.orchestrator != "eks" or eks is None:
        return None
    return dependencies_chart.install_command(_switches_off(eks))


def _switches_off(eks: HyperPodEksArgs) -> list[str]:
    """The chart's switches that must be off beside the job operators trainstack installs on this cluster."""
    return dependencies_chart.turned_off(training_operator=eks.get("training_operator", False),
                                         mpi_operator=eks.get("mpi_operator", False))
