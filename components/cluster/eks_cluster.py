"""GpuEksCluster: an EKS cluster for accelerated training.

    KMS key (secrets encryption)
    control plane (pulumi-eks): API authentication mode with access entries,
        control plane logs, endpoint access from the profile
    core add-ons: vpc-cni, kube-proxy, eks-pod-identity-agent -> system nodes -> coredns
        (+ eks-node-monitoring-agent when accelerated groups run; node auto repair on the groups)
    EFA security group (when a group uses EFA)
    accelerated node groups (GpuNodeGroup / TrainiumNodeGroup per group)
    device plugins (NVIDIA where GPUs are, Neuron where Trainium is, EFA where EFA is); on DRA groups the DRA
        drivers, and GPU Feature Discovery where P6e-GB200 needs its clique label
    Cluster Autoscaler (Pod Identity): the managed node groups
    Karpenter (Pod Identity, node role, interruption queue) and a KarpenterNodePool per group with
        autoscaler: karpenter, which has no managed node group (docs/adr/0007-one-autoscaler-per-group.md)

pulumi-eks serves the control plane and kubeconfig; its default node group,
security groups and add-ons are off, so everything that decides correctness is
ours and visible in the offline plan. With a private endpoint, ``pulumi up`` must
run where the VPC is reachable: the Kubernetes resources talk to the API server.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, Optional, TypedDict

import pulumi
import pulumi_aws as aws
import pulumi_eks as eks
import pulumi_kubernetes as k8s

from .. import catalog
from ..addons.device_plugins import efa_device_plugin, neuron_device_plugin, nvidia_device_plugin
from ..addons.dra_drivers import aws_dranet, neuron_dra_driver, nvidia_dra_driver
from ..addons.feature_discovery import gpu_feature_discovery
from ..catalog import AcceleratorKind, eks_versions, timeouts
from ..catalog.ultraservers import needs_compute_domain, needs_gpu_feature_discovery
from ..config import EksConfig, NodeGroupConfig, validate
from ..config.cluster_size import coredns_configuration, vpc_cni_for
from ..config.component_args import check_args
from ..config.controller_resources import cluster_autoscaler_resources
from ..config.node_pool import is_pool
from ..config.offerings import check_component, group_placements, system_placement
from ..config.resource_names import pulumi_eks_cluster_logical
from ..config.system_load import SystemNodeSizes, check_component_system_nodes, cluster_size_of
from ..names import GPU_EKS_CLUSTER_COMPONENT
from ..network import efa_security_group
from ..nodegroups import NODE_GROUP_FOR, AcceleratedNodeGroup, ClusterAttachment
from ..nodegroups.karpenter_pool import KarpenterNodePool, KarpenterNodePoolArgs, pool_marks
from ..nodegroups.node_health import NODE_MONITORING_AGENT, node_monitoring_configuration
from ..nodegroups.pool import NodeGroupPool
from .autoscaler import cluster_autoscaler
from .control_plane_tier import CONTROL_PLANE_TIER_INPUT, scaling_tier_transform
from .control_plane_timeouts import timeouts_transform
from .core_addons import AFTER_NODES, BEFORE_NODES, core_addon
from .iam import node_role
from .karpenter import karpenter
from .system_nodes import SYSTEM_LABELS, system_node_group

CLUSTER_ADMIN_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"


class GpuEksClusterArgs(TypedDict):
    """The ``eks`` config block, the ``nodeGroups`` list and the network the cluster lives in."""

    settings: NotRequired[EksConfig | dict]
    """The ``eks`` config block; without it, its defaults."""
    node_groups: NotRequired[Sequence[NodeGroupConfig | dict]]
    """Accelerated node groups (the ``nodeGroups`` config list); without it, the system nodes alone."""
    cluster_name: str
    """The EKS cluster name (unique per account and region)."""
    region: str
    """The stack's region: its offerings of the groups' types are checked, and the autoscaler and the EFA
    device plugin's image registry are of it."""
    vpc_id: pulumi.Input[str]
    """The VPC the cluster and its nodes live in."""
    private_subnet_ids: Mapping[str, pulumi.Input[str]]
    """Private subnet id per zone: nodes, and the control plane's network interfaces."""
    private_subnets_by_zone: NotRequired[Mapping[str, Sequence[pulumi.Input[str]]]]
    """Every private subnet id per zone, in the order configured: a node group pool's parts spread over them, part
    i on subnet i mod n (config/subnet_placement.py). Without it each zone has ``private_subnet_ids``' one."""
    public_subnet_ids: NotRequired[Mapping[str, pulumi.Input[str]]]
    """Public subnet id per zone, handed to the EKS cluster with the private ones (internet-facing load
    balancers); the node groups use the private subnets."""
    lustre_over_efa: NotRequired[bool]
    """The stack's FSx for Lustre file system is EFA-enabled (its EFA clients set LNet up at boot)."""
    network_policy: NotRequired[bool]
    """Enforce Kubernetes NetworkPolicy (the VPC CNI's network policy agent): on for stacks with teams, whose
    namespaces are fenced by it (tenancy/isolation.py). Default false."""
    external_nodes: NotRequired[Sequence[catalog.InstanceType]]
    """Instance types of nodes that join from elsewhere (HyperPod on EKS): their device
    plugins are installed too."""


class GpuEksCluster(pulumi.ComponentResource):
    """An EKS cluster for accelerated training; GPU and Trainium groups may share it."""

    cluster_name: str
    kubeconfig: pulumi.Output[str]
    """Kubeconfig (exec auth through the AWS CLI), a secret."""
    cluster_security_group_id: pulumi.Output[str]

    def __init__(self, name: str, args: GpuEksClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        check_args(f"GpuEksCluster({name})", GpuEksClusterArgs, args)
        settings = validate(EksConfig, args.get("settings", {}), prefix=f"GpuEksCluster({name})", at=("settings",))
        configured = [validate(NodeGroupConfig, g, prefix=f"GpuEksCluster({name})", at=("nodeGroups", i))
                      for i, g in enumerate(args.get("node_groups", []))]
        zones = list(args["private_subnet_ids"])
        check_component(f"GpuEksCluster({name})", args["region"], groups=[
            system_placement(settings.system_nodes, zones, ("settings", "systemNodes")),
            *group_placements(configured, ("nodeGroups",))])
        system_sizes = check_component_system_nodes(f"GpuEksCluster({name})", settings.system_nodes, configured)
        # The tier is recorded as the component's input only where it is set, so other stacks' records are unchanged.
        tier = settings.control_plane_tier
        super().__init__(GPU_EKS_CLUSTER_COMPONENT, name, {CONTROL_PLANE_TIER_INPUT: tier} if tier else {}, opts)
        self.cluster_name = args["cluster_name"]
        self.owns_eks_addons = True
        """This program makes the cluster's EKS add-ons (the EBS CSI driver among them)."""
        self.region: str = args["region"]
        """Where the cluster runs; AWS's images are pulled from this region's registries."""
        self.control_plane: eks.Cluster = self._control_plane(name, settings, self._secrets_key(name), args)
        """The EKS control plane (``pulumi_eks.Cluster``): API endpoint, access entries, logs, kubeconfig."""
        self.cluster_security_group_id = self.control_plane.cluster_security_group_id
        self.kubeconfig = pulumi.Output.secret(self.control_plane.kubeconfig_json)
        self.size = cluster_size_of(settings.system_nodes, configured)
        """The most nodes and pods the groups hold: the add-ons that must grow with it are sized from it
        (config/cluster_size.py)."""
        self.system_sizes: SystemNodeSizes = system_sizes
        """The system group's sizes, which hold what runs there at that size (config/system_load.py)."""
        before_nodes, nodes_role, system = self._core_addons_and_system_nodes(name, settings, args)
        self.node_monitoring_agent = bool(configured) and settings.node_monitoring_agent
        """The agent runs where trainstack's own accelerated groups do."""
        after_nodes = self._addons_after_nodes(name, settings, configured, system)
        self.ready_for_workloads: list[pulumi.Resource] = [system, *after_nodes]
        """Add-ons that run pods (CSI drivers, operators) wait for these."""
        self.provider = k8s.Provider(f"{name}-k8s", kubeconfig=self.kubeconfig,
                                     opts=pulumi.ResourceOptions(parent=self))
        # Declared here, not on the class: class-level annotations are the component
        # package's outputs (trainstack.package), and a node group is no wire value.
        self.node_groups: dict[str, AcceleratedNodeGroup | NodeGroupPool] = self._managed_node_groups(
            name, settings, configured, args, nodes_role.arn, depends_on=[self.control_plane, *before_nodes])
        """The accelerated node groups created, by config name."""
        self._device_plugins(name, settings, configured, list(args.get("external_nodes", [])), system)
        cluster_autoscaler(name, cluster_name=self.cluster_name, kubernetes_version=settings.charts_version,
                           region=args["region"], system_node_selector=SYSTEM_LABELS, provider=self.provider,
                           parent=self, depends_on=[system, *after_nodes, *before_nodes],
                           resources=cluster_autoscaler_resources(self.size))
        self.karpenter_pools: dict[str, KarpenterNodePool] = self._karpenter_pools(
            name, configured, args, depends_on=[system, *after_nodes, *before_nodes])
        """The Karpenter groups' pools, by config name."""
        self.register_outputs({"clusterName": self.cluster_name, "kubeconfig": self.kubeconfig,
                               "clusterSecurityGroupId": self.cluster_security_group_id})

    def _secrets_key(self, name: str) -> aws.kms.Key:
        """The KMS key EKS encrypts Kubernetes secrets with."""
        child = pulumi.ResourceOptions(parent=self)
        key = aws.kms.Key(f"{name}-secrets", description=f"EKS secrets encryption for {self.cluster_name}",
                          enable_key_rotation=True, deletion_window_in_days=30, opts=child)
        aws.kms.Alias(f"{name}-secrets", name=f"alias/{self.cluster_name}-eks-secrets", target_key_id=key.key_id,
                      opts=child)
        return key

    def _core_addons_and_system_nodes(self, name: str, settings: EksConfig, args: GpuEksClusterArgs
                                      ) -> tuple[list[pulumi.Resource], aws.iam.Role, pulumi.Resource]:
        """The add-ons nodes need to become Ready, the node role, and the system nodes."""
        # The VPC CNI's address targets are set explicitly (config/vpc_cni.py says why):
        # its defaults keep a spare ENI of addresses on every node; a large stack's are config/cluster_size.py's.
        cni = vpc_cni_for(settings.vpc_cni, self.size)
        configurations = {"vpc-cni": cni.configuration_values(args.get("network_policy", False))}
        before_nodes: list[pulumi.Resource] = [
            core_addon(name, addon, cluster_name=self.cluster_name, versions=settings.addon_versions, parent=self,
                       depends_on=[self.control_plane], configuration=configurations.get(addon))
            for addon in BEFORE_NODES]
        nodes_role = node_role(f"{name}-nodes", parent=self)
        system = system_node_group(
            f"{name}-system", settings=settings.system_nodes, cluster_name=self.cluster_name,
            cluster_security_group_id=self.cluster_security_group_id, node_role_arn=nodes_role.arn,
            subnet_ids=list(args["private_subnet_ids"].values()), kubernetes_version=settings.nodes_version,
            parent=self, depends_on=[self.control_plane, *before_nodes],
            sizes=(self.system_sizes.min_size, self.system_sizes.desired_size, self.system_sizes.max_size))
        return before_nodes, nodes_role, system

    def _addons_after_nodes(self, name: str, settings: EksConfig, configured: list[NodeGroupConfig],
                            system: pulumi.Resource) -> list[pulumi.Resource]:
        """CoreDNS, and the node monitoring agent where accelerated groups run: DaemonSets and
        Deployments that wait for nodes to run on."""
        # CoreDNS autoscales on a stack whose nodes call for more than its two replicas (config/cluster_size.py).
        configurations = {"coredns": coredns_configuration(self.size)}
        after_nodes: list[pulumi.Resource] = [
            core_addon(name, addon, cluster_name=self.cluster_name, versions=settings.addon_versions, parent=self,
                       depends_on=[system], configuration=configurations.get(addon)) for addon in AFTER_NODES]
        if self.node_monitoring_agent:
            # It watches the accelerated groups; HyperPod nodes run HyperPod's own health monitoring agent.
            after_nodes.append(core_addon(
                name, NODE_MONITORING_AGENT, cluster_name=self.cluster_name, versions=settings.addon_versions,
                parent=self, depends_on=[system],
                configuration=node_monitoring_configuration(
                    any(g.accelerator.kind is AcceleratorKind.GPU for g in configured))))
        return after_nodes

    def _managed_node_groups(self, name: str, settings: EksConfig, configured: list[NodeGroupConfig],
                             args: GpuEksClusterArgs, node_role_arn: pulumi.Input[str], *,
                             depends_on: list[pulumi.Resource]) -> dict[str, AcceleratedNodeGroup | NodeGroupPool]:
        """The Cluster Autoscaler's groups: the EFA security group when one uses EFA, then one
        GpuNodeGroup or TrainiumNodeGroup each."""
        child = pulumi.ResourceOptions(parent=self)
        groups = [g for g in configured if g.autoscaler == "cluster-autoscaler"]
        efa_group = (efa_security_group(f"{name}-efa", args["vpc_id"], child)
                     if any(g.efa_enabled for g in groups) else None)
        self._efa_group = efa_group
        attachment = ClusterAttachment(
            cluster_name=self.cluster_name, kubernetes_version=settings.nodes_version,
            cluster_security_group_id=self.cluster_security_group_id,
            efa_security_group_id=efa_group.id if efa_group else None, node_role_arn=node_role_arn,
            subnet_ids=args["private_subnet_ids"], depends_on=depends_on,
            lustre_over_efa=args.get("lustre_over_efa", False), zone_subnets=args.get("private_subnets_by_zone", {}))
        return {g.name: NodeGroupPool(f"{name}-{g.name}", {"settings": g, "cluster": attachment,
                                                           "kind": NODE_GROUP_FOR[g.accelerator.kind]}, opts=child)
                if is_pool(g) else
                NODE_GROUP_FOR[g.accelerator.kind](f"{name}-{g.name}", {"settings": g, "cluster": attachment},
                                                   opts=child)
                for g in groups}

    def _device_plugins(self, name: str, settings: EksConfig, configured: list[NodeGroupConfig],
                        external: list[catalog.InstanceType], system: pulumi.Resource) -> None:
        """NVIDIA where GPUs are, Neuron where Trainium is, EFA where EFA is; each waits for the
        groups whose devices it serves (the deploy's critical path) and tolerates their taints."""
        elastic = [g for g in configured if g.autoscaler == "karpenter"]
        plugin_groups = {g.name for g in configured if g.device_allocation == "device-plugins"}

        def nodes_with(kind: AcceleratorKind) -> list[pulumi.Resource]:
            return [managed for g, group in self.node_groups.items()
                    if group.ACCELERATOR is kind and g in plugin_groups for managed in group.managed_groups]

        def taints_of(kind: Optional[AcceleratorKind] = None, efa: bool = False) -> list[dict]:
            """The taints of the groups a plugin serves: their DaemonSet must run under them."""
            taints = {g: group.taints for g, group in self.node_groups.items()}
            taints.update({g.name: pool_marks(g)[1] for g in elastic})
            return [t for g in configured if (kind is None or g.accelerator.kind is kind)
                    and (not efa or g.efa_enabled) and g.name in plugin_groups for t in taints[g.name]]

        # Karpenter's nodes come and go with no resource to wait for; their plugins are installed
        # like those of the nodes that join from elsewhere.
        external_kinds = {t.accelerator.kind for t in external if t.accelerator} | {
            g.accelerator.kind for g in elastic}
        self.accelerator_kinds = {g.ACCELERATOR for g in self.node_groups.values()} | external_kinds
        """Accelerators on this cluster's nodes, its own groups' and HyperPod's."""
        if nodes_with(AcceleratorKind.GPU) or AcceleratorKind.GPU in external_kinds:
            nvidia_device_plugin(name, provider=self.provider, parent=self,
                                 depends_on=[system, *nodes_with(AcceleratorKind.GPU)],
                                 group_taints=taints_of(AcceleratorKind.GPU))
        if nodes_with(AcceleratorKind.NEURON) or AcceleratorKind.NEURON in external_kinds:
            neuron_device_plugin(name, kubernetes_version=settings.charts_version, system_node_selector=SYSTEM_LABELS,
                                 provider=self.provider, parent=self,
                                 depends_on=[system, *nodes_with(AcceleratorKind.NEURON)],
                                 group_taints=taints_of(AcceleratorKind.NEURON))
        with_efa = {g.name for g in configured if g.efa_enabled and g.name in plugin_groups}
        efa_groups = [managed for g, group in self.node_groups.items() if g in with_efa
                      for managed in group.managed_groups]
        if efa_groups or any(t.efa.supported for t in external) or any(g.efa_enabled for g in elastic):
            efa_device_plugin(name, region=self.region, provider=self.provider, parent=self,
                              depends_on=[system, *efa_groups], group_taints=taints_of(efa=True))
        self._dra_drivers(name, [g for g in configured if g.device_allocation == "dra"], system)

    def _dra_drivers(self, name: str, dra: list[NodeGroupConfig], system: pulumi.Resource) -> None:
        """The NVIDIA DRA driver where a DRA group has GPUs (ComputeDomains where a group's type has an NVLink domain
        across instances), the Neuron DRA driver where one has Trainium, and aws-dranet where one has EFA; each
        waits for the groups it serves and tolerates their taints; GPU Feature Discovery where a group's UltraServer
        label needs it. None without DRA groups."""

        def served(kind: Optional[AcceleratorKind]) -> list[NodeGroupConfig]:
            """The DRA groups with ``kind``'s accelerators; with None, those with EFA."""
            return [g for g in dra if (g.efa_enabled if kind is None else g.accelerator.kind is kind)]

        def groups_and_taints(of: list[NodeGroupConfig]) -> dict[str, Any]:
            return {"depends_on": [system, *(m for g in of for m in self.node_groups[g.name].managed_groups)],
                    "group_taints": [t for g in of for t in self.node_groups[g.name].taints]}

        common = {"provider": self.provider, "parent": self}
        if gpus := served(AcceleratorKind.GPU):
            nvidia_dra_driver(name, compute_domains=any(needs_compute_domain(g.instance_type) for g in gpus),
                              system_node_selector=SYSTEM_LABELS, **common, **groups_and_taints(gpus))
        if trainium := served(AcceleratorKind.NEURON):
            neuron_dra_driver(name, **common, **groups_and_taints(trainium))
        if efa := served(None):
            aws_dranet(name, region=self.region, **common, **groups_and_taints(efa))
        # The UltraServer label of P6e-GB200 nodes comes from GPU Feature Discovery alone (catalog/ultraservers.py):
        # installed for those groups only, so a stack without them renders none.
        if labelled := [g for g in dra if needs_gpu_feature_discovery(g.instance_type)]:
            gpu_feature_discovery(name, instance_types=[g.instance_type for g in labelled],
                                  system_node_selector=SYSTEM_LABELS, **common, **groups_and_taints(labelled))

    def _karpenter_pools(self, name: str, configured: list[NodeGroupConfig], args: GpuEksClusterArgs, *,
                         depends_on: list[pulumi.Resource]) -> dict[str, KarpenterNodePool]:
        """Karpenter (its controller, node role and interruption queue) and a pool per group with
        autoscaler: karpenter; none when no group asks for it. EFA pools share the managed groups' EFA
        security group (made here when no managed group has EFA)."""
        elastic = [g for g in configured if g.autoscaler == "karpenter"]
        if not elastic:
            return {}
        private_subnets: Mapping[str, pulumi.Input[str]] = args["private_subnet_ids"]
        if self._efa_group is None and any(g.efa_enabled for g in elastic):
            self._efa_group = efa_security_group(f"{name}-efa", args["vpc_id"], pulumi.ResourceOptions(parent=self))
        controller, pool_role = karpenter(
            name, cluster_name=self.cluster_name, region=args["region"], system_node_selector=SYSTEM_LABELS,
            provider=self.provider, parent=self, depends_on=depends_on)
        pools = {}
        for g in elastic:
            pool_args: KarpenterNodePoolArgs = {
                "settings": g, "subnet_id": private_subnets[g.zone],
                "security_group_id": self.cluster_security_group_id, "node_role_name": pool_role.name,
                "provider": self.provider, "depends_on": [controller]}
            if g.efa_enabled and self._efa_group is not None:
                pool_args["efa_security_group_id"] = self._efa_group.id
            pools[g.name] = KarpenterNodePool(f"{name}-{g.name}", pool_args, opts=pulumi.ResourceOptions(parent=self))
        return pools

    def _control_plane(self, name: str, settings: EksConfig, key: aws.kms.Key, args: GpuEksClusterArgs) -> eks.Cluster:
        access = settings.api_endpoint
        control_plane = eks.Cluster(
            pulumi_eks_cluster_logical(name),  # pulumi-eks names its service role from it
            name=self.cluster_name,
            version=settings.version,
            vpc_id=args["vpc_id"],
            private_subnet_ids=list(args["private_subnet_ids"].values()),
            public_subnet_ids=list(args.get("public_subnet_ids", {}).values()) or None,
            endpoint_private_access=access in ("private", "publicAndPrivate"),
            endpoint_public_access=access in ("public", "publicAndPrivate"),
            public_access_cidrs=settings.public_access_cidrs if access != "private" else None,
            # HyperPod on EKS and access entries need API mode; the EKS API default is CONFIG_MAP.
            authentication_mode=eks.AuthenticationMode.API,
            access_entries={
                f"admin-{index}": eks.AccessEntryArgs(principal_arn=arn, access_policies={
                    "cluster-admin": eks.AccessPolicyAssociationArgs(
                        policy_arn=CLUSTER_ADMIN_POLICY, access_scope={"type": "cluster"})})
                for index, arn in enumerate(settings.admin_principals)},
            encryption_config_key_arn=key.arn,
            enabled_cluster_log_types=list(settings.log_types),
            skip_default_node_group=True,
            skip_default_security_groups=True,
            bootstrap_self_managed_addons=False,
            use_default_vpc_cni=True,
            coredns_addon_options=eks.CoreDnsAddonOptionsArgs(enabled=False),
            kube_proxy_addon_options=eks.KubeProxyAddonOptionsArgs(enabled=False),
            create_oidc_provider=False,
            # pulumi-eks has no argument for the Provisioned Control Plane tier nor for timeouts: transforms set them
            # on its aws:eks/cluster:Cluster (control_plane_tier.py and control_plane_timeouts.py say why).
            opts=pulumi.ResourceOptions(parent=self, transforms=[
                timeouts_transform(timeouts.control_plane_timeouts()),
                *([scaling_tier_transform(settings.control_plane_tier)] if settings.control_plane_tier else [])]),
        )
        if access == "private":
            pulumi.log.warn(
                f"the API server of {self.cluster_name} is private: run `pulumi up` from inside the VPC (a bastion, "
                "VPN or in-VPC runner); device plugins and the autoscaler are installed through it and time out "
                "from outside.", resource=self)
        # A minor in extended support bills $0.60 an hour instead of $0.10 and is upgraded by EKS itself when that
        # support ends: the plan says so beside the cost line (estimate/cost.py) and as a warning that names the day.
        note = eks_versions.extended_support_note(settings.version, stack=pulumi.get_stack())
        if note is not None:
            pulumi.log.warn(f"eks.version: {note}", resource=control_plane)
        return control_plane
