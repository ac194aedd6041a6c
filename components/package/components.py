"""The components as a Pulumi component package serves them to other languages.

Design: each class here is the library's component itself (a subclass), with one
more constructor: it takes the inputs as they come over the wire, named and typed by
the Args below, renames them to a stack file's keys (``wire.to_config``) and hands
them to the library class, which validates them through the config models as it
does for Python callers. So:

* the resources are the library's: the same code builds them, whichever language asks;
* a bad input gets the message a stack file (``TrainingStack``) or a Python caller
  (``GpuEksCluster``, ``LustreFileSystem``) gets: the models stay the one place of
  validation;
* each type token names one component: ``trainstack:index:GpuEksCluster`` is
  registered only by ``cluster.GpuEksCluster.__init__``; the class here adds no
  registration of its own, it is the same resource with a second front door. Pulumi's
  analyzer names a schema resource after its class, hence the same class names (a
  wrapper that built the library class as a child would register the token twice,
  parent and child).

Class docstrings stay on one line: the analyzer takes ``__doc__`` as it is, and Python
3.13 strips a docstring's indentation where 3.11 keeps it, so a multi-line one would
make the schema depend on the Python version. The analyzer reads the outputs from the
class annotations of the whole class hierarchy, so the library classes keep only
wire-shaped values (strings, Outputs) in class-level annotations; their other
attributes are declared in ``__init__``. The docstrings under the annotations here
are the schema's descriptions.

Not served (yet): the node groups (built inside ``GpuEksCluster``, which hands them
the cluster's live resources), and the Python-only Args that carry live Python
objects: ``GpuEksCluster``'s ``external_nodes`` (catalog entries), ``LustreFileSystem``'s
``eks`` mount (a Kubernetes provider object) and ``HyperPodCluster``'s ``eks`` (EKS
orchestration waits on the cluster's resources). ``TrainingStack`` does all of these
itself, so other languages reach them through it.
"""

from typing import Any, NotRequired, Optional, TypedDict

import pulumi

from .. import training_stack
from ..cluster import eks_cluster
from ..config import EksConfig, FsxConfig, HyperPodConfig, NetworkConfig, NodeGroupConfig, StackConfig
from ..hyperpod import cluster as hyperpod_cluster
from ..network import vpc
from ..outputs import KUBECONFIG_OUTPUT, OUTPUT_NAME
from ..storage import lustre
from . import config_types
from .wire import to_config

TrainingStackArgs = config_types.StackConfig
"""A whole stack: the keys of a stack file (``trainstack:profile`` ... without the namespace)."""


class TrainingStack(training_stack.TrainingStack):
    """A training cluster from one stack configuration: VPC, EKS, node groups, FSx, HyperPod, add-ons, buckets."""

    contract: pulumi.Output[dict[str, Any]]
    """The outputs contract the job launchers read: a JSON document versioned by its ``contractVersion``."""
    kubeconfig: Optional[pulumi.Output[str]]
    """Kubeconfig of the EKS cluster (a secret); absent without EKS."""

    def __init__(self, name: str, args: TrainingStackArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, to_config(StackConfig, args), opts)
        self.contract = pulumi.Output.from_input(self.outputs[OUTPUT_NAME])
        self.kubeconfig = self.outputs[KUBECONFIG_OUTPUT]


class GpuEksClusterArgs(TypedDict):
    settings: NotRequired[config_types.EksConfig]
    """The ``eks`` block of a stack file."""
    node_groups: NotRequired[list[config_types.NodeGroupConfig]]
    """Accelerated node groups, as the ``nodeGroups`` list of a stack file."""
    cluster_name: str
    """The EKS cluster name (unique per account and region)."""
    region: str
    """AWS region of the cluster, e.g. us-east-1."""
    vpc_id: pulumi.Input[str]
    """The VPC of the cluster."""
    private_subnet_ids: dict[str, pulumi.Input[str]]
    """Private subnet id by availability zone: nodes, and the control plane's network interfaces."""
    public_subnet_ids: NotRequired[dict[str, pulumi.Input[str]]]
    """Public subnet id by availability zone (public load balancers)."""


class GpuEksCluster(eks_cluster.GpuEksCluster):
    """An EKS cluster for training: control plane, core add-ons, system nodes, GPU/Trainium groups with EFA."""

    cluster_name: str
    """The EKS cluster name."""
    kubeconfig: pulumi.Output[str]
    """Kubeconfig (exec auth through the AWS CLI), a secret."""
    cluster_security_group_id: pulumi.Output[str]
    """The security group EKS creates for the control plane and nodes."""

    def __init__(self, name: str, args: GpuEksClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        library_args: eks_cluster.GpuEksClusterArgs = {
            "settings": to_config(EksConfig, args.get("settings", {})),
            "node_groups": [to_config(NodeGroupConfig, group) for group in args.get("node_groups", [])],
            "cluster_name": args["cluster_name"], "region": args["region"], "vpc_id": args["vpc_id"],
            "private_subnet_ids": args["private_subnet_ids"],
        }
        if "public_subnet_ids" in args:
            library_args["public_subnet_ids"] = args["public_subnet_ids"]
        super().__init__(name, library_args, opts)


class LustreFileSystemArgs(TypedDict):
    settings: config_types.FsxConfig
    """The ``fsx`` block of a stack file."""
    vpc_id: pulumi.Input[str]
    """The VPC of the file system."""
    subnet_id: pulumi.Input[str]
    """The private subnet of ``settings.zone``."""
    client_security_group_ids: NotRequired[list[pulumi.Input[str]]]
    """Security groups of the clients (EKS's cluster group, HyperPod's); if empty, a group for clients to join."""


class LustreFileSystem(lustre.LustreFileSystem):
    """An FSx for Lustre file system, its security group and S3 link; protected from deletion by default."""

    file_system_id: pulumi.Output[str]
    """The file system id, ``fs-...``."""
    dns_name: pulumi.Output[str]
    """DNS name clients mount."""
    mount_name: pulumi.Output[str]
    """Mount name clients mount (``dnsName@tcp:/mountName``)."""
    mount_path: str
    """Where clients mount it."""
    client_security_group_ids: list[pulumi.Input[str]]
    """Security groups allowed to mount it."""
    throughput_mbps: int
    """Aggregate throughput in MB/s: capacity in TiB times the per-unit throughput."""

    def __init__(self, name: str, args: LustreFileSystemArgs, opts: Optional[pulumi.ResourceOptions] = None):
        library_args: lustre.LustreFileSystemArgs = {
            "settings": to_config(FsxConfig, args["settings"]), "vpc_id": args["vpc_id"],
            "subnet_id": args["subnet_id"]}
        if "client_security_group_ids" in args:
            library_args["client_security_group_ids"] = args["client_security_group_ids"]
        super().__init__(name, library_args, opts)


class NetworkArgs(TypedDict):
    settings: config_types.NetworkConfig
    """The ``network`` block of a stack file: a new VPC or an existing one."""
    region: str
    """AWS region of the VPC, e.g. us-east-1."""


class Network(vpc.Network):
    """A VPC with private and public subnets per zone sized for nodes and pods, or an existing VPC."""

    vpc_id: pulumi.Output[str]
    """The VPC id."""
    private_subnet_ids: dict[str, pulumi.Output[str]]
    """Private subnet id by availability zone (what GpuEksCluster's privateSubnetIds takes)."""
    public_subnet_ids: dict[str, pulumi.Output[str]]
    """Public subnet id by availability zone."""

    def __init__(self, name: str, args: NetworkArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, {"settings": to_config(NetworkConfig, args["settings"]), "region": args["region"]},
                         opts)


class HyperPodLustreMount(TypedDict):
    """An FSx for Lustre file system for HyperPod's lifecycle scripts to mount on every node."""

    dns_name: pulumi.Input[str]
    """The file system's DNS name (LustreFileSystem's dnsName)."""
    mount_name: pulumi.Input[str]
    """The file system's mount name (LustreFileSystem's mountName)."""
    mount_path: str
    """Where the nodes mount it, e.g. /fsx."""


class HyperPodClusterArgs(TypedDict):
    settings: config_types.HyperPodConfig
    """The ``hyperpod`` block of a stack file (Slurm orchestration; EKS orchestration through TrainingStack)."""
    region: str
    """AWS region of the cluster, e.g. us-west-2."""
    subnet_id: pulumi.Input[str]
    """The private subnet of the cluster's zone."""
    security_group_ids: list[pulumi.Input[str]]
    """Security groups of the instances (1 to 5)."""
    fsx_mount: NotRequired[HyperPodLustreMount]
    """An FSx for Lustre file system to mount on every node."""


class HyperPodCluster(hyperpod_cluster.HyperPodCluster):
    """A SageMaker HyperPod cluster: instance groups, lifecycle scripts, execution role."""

    cluster_name: str
    """The HyperPod cluster name."""
    cluster_arn: pulumi.Output[str]
    """The HyperPod cluster ARN."""
    partitions: dict[str, str]
    """Slurm partition by worker group."""
    ssm_target_prefixes: pulumi.Output[dict[str, str]]
    """SSM target prefix by instance group: ``sagemaker-cluster:<cluster-id>_<group>-`` + instance id."""

    def __init__(self, name: str, args: HyperPodClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        library_args: hyperpod_cluster.HyperPodClusterArgs = {
            "settings": to_config(HyperPodConfig, args["settings"]), "region": args["region"],
            "subnet_id": args["subnet_id"], "security_group_ids": args["security_group_ids"]}
        if "fsx_mount" in args:
            library_args["fsx_mount"] = dict(args["fsx_mount"])
        super().__init__(name, library_args, opts)


COMPONENTS: list[type[pulumi.ComponentResource]] = [TrainingStack, Network, GpuEksCluster, LustreFileSystem,
                                                    HyperPodCluster]
"""What the package serves, in schema order."""
