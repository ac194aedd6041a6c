"""AcceleratedNodeGroup: the shared base of GPU and Trainium node groups.

One zone and its subnet; a launch template with the type's EFA layout, IMDSv2,
an encrypted gp3 root volume, the reservation or capacity block, and pods per
node sized for what the layout leaves on card 0; a cluster placement group only
on plain on-demand EFA capacity; labels and a taint so only accelerator work
lands here; and the Auto Scaling group tags that let the Cluster Autoscaler
scale the group from zero.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_aws as aws

from .. import catalog
from ..catalog import EFA_HUGEPAGES, EFA_RESOURCE, HUGEPAGES_RESOURCE, AcceleratorKind
from ..catalog import timeouts as catalog_timeouts
from ..catalog.efa_layout import layout_for
from ..config import ConfigError, ConfigIssue, NodeGroupConfig, validate
from ..config.component_args import check_args
from ..config.resource_names import EKS_NODEGROUP_MAX, autonamed
from ..config.subnet_placement import part_subnet_index
from ..names import (
    ACCELERATOR_LABEL,
    DEVICE_ALLOCATION_LABEL,
    EFA_INTERFACES_LABEL,
    EFA_PRESENT_LABEL,
    NEURONCORE_RESOURCE,
    NODE_GROUP_LABEL,
    NODE_GROUP_TAG,
)
from .capacity_purchase import buy_block
from .launch_template import capacity_record, capacity_settings, launch_template
from .lustre_efa_client import lustre_efa_client_script
from .node_health import node_repair_config

_TAINT_EFFECTS = {"NoSchedule": "NO_SCHEDULE", "PreferNoSchedule": "PREFER_NO_SCHEDULE", "NoExecute": "NO_EXECUTE"}


@dataclass
class ClusterAttachment:
    """What a node group needs from its cluster and network."""

    cluster_name: str
    """The EKS cluster the group's nodes join."""
    kubernetes_version: str
    """The minor the nodes run: the control plane's, or the previous one while an upgrade holds the node groups
    (``eks.upgrade``); moving it rolls the groups to the new version."""
    cluster_security_group_id: pulumi.Input[str]
    """The cluster security group EKS made: the nodes' primary interface joins it, as EKS's own nodes do."""
    node_role_arn: pulumi.Input[str]
    """The node IAM role (it has an EC2_LINUX access entry on the cluster)."""
    subnet_ids: Mapping[str, pulumi.Input[str]]
    """Private subnet id per zone: the zone's first."""
    efa_security_group_id: Optional[pulumi.Input[str]] = None
    """The EFA security group; required for EFA groups."""
    depends_on: list[pulumi.Resource] = field(default_factory=list)
    """The control plane and the VPC CNI add-on: nodes cannot become Ready before them."""
    lustre_over_efa: bool = False
    """The stack's FSx for Lustre file system is EFA-enabled: EFA groups bring LNet up on their EFA devices."""
    zone_subnets: Mapping[str, Sequence[pulumi.Input[str]]] = field(default_factory=dict)
    """Every private subnet id per zone, in the order configured; a zone left out has ``subnet_ids``' one."""

    def subnet_for(self, zone: str, part: int) -> pulumi.Input[str]:
        """The subnet part ``part`` of a group in ``zone`` is given: the rule the IP budget counts
        (config/subnet_placement.py)."""
        subnets = self.zone_subnets.get(zone) or [self.subnet_ids[zone]]
        return subnets[part_subnet_index(part, len(subnets))]


def group_labels(settings: NodeGroupConfig, instance: catalog.InstanceType, present_label: str) -> dict[str, str]:
    """The labels trainstack puts on a group's nodes, whichever autoscaler makes them: the launchers
    select ``trainstack.io/node-group``, the device plugins ``present_label``."""
    accelerator = instance.require("the accelerator", instance.accelerator, "label the node group")
    labels = {
        NODE_GROUP_LABEL: settings.name,
        ACCELERATOR_LABEL: accelerator.kind.value,
        EFA_INTERFACES_LABEL: str(instance.efa.max_interfaces if settings.efa_enabled else 0),
    }
    if settings.device_allocation == "dra":
        # The DRA drivers select these nodes; without the present labels no device plugin runs here (the
        # NVIDIA DRA driver refuses to share a node with the device plugin: its chart's validation.yaml).
        labels[DEVICE_ALLOCATION_LABEL] = "dra"
        return labels
    # EKS nodes have no Node Feature Discovery to set this; device plugins select on it.
    labels[present_label] = "true"
    if settings.efa_enabled:
        labels[EFA_PRESENT_LABEL] = "true"
    return labels


class AcceleratedNodeGroupArgs(TypedDict):
    """One node group's config and the cluster it joins."""

    settings: NodeGroupConfig | dict
    """One entry of the ``nodeGroups`` config list."""
    cluster: ClusterAttachment
    """The cluster, network and security groups the group joins."""
    part: NotRequired[int]
    """Its position among its pool's parts (config/node_pool.py), which picks its subnet; 0 (a group made whole)
    without it."""


# MINIMAL terminates old nodes before it launches new ones, "useful ... with hardware
# accelerators such as GPUs" (EKS API Reference, NodegroupUpdateConfig); it is the only
# strategy that rolls fixed capacity. Why: docs/adr/0006-placement-groups-and-rollouts.md
def update_config(settings: NodeGroupConfig, in_placement_group: bool) -> dict[str, object]:
    """The managed node group's rollout: the group's batch (``NodeGroupConfig.update_batch``), terminated first
    where capacity is fixed."""
    fixed_capacity = settings.capacity.type != "none" or in_placement_group
    return {**settings.update_batch, **({"update_strategy": "MINIMAL"} if fixed_capacity else {})}


def _engine_names(update: Mapping[str, object]) -> dict[str, object]:
    """``updateConfig`` as the engine records it (camelCase), for the estimates that read records."""
    return {"".join(w.capitalize() if i else w for i, w in enumerate(k.split("_"))): v for k, v in update.items()}


def node_group_timeouts(ami_type: str, settings: NodeGroupConfig,
                        update: Mapping[str, object]) -> pulumi.CustomTimeouts:
    """How long `pulumi up` waits for the group: its creation and its roll at ``maxSize``, as the plan estimates
    them, with the margin of ``catalog/timeouts.py``. Without it the provider stops waiting after 60 minutes
    while EKS keeps rolling (16 p5 nodes one at a time take about 128)."""
    timeouts = catalog_timeouts.node_group_timeouts({
        "amiType": ami_type, "scalingConfig": {"maxSize": settings.max_size}, "updateConfig": _engine_names(update)})
    return pulumi.CustomTimeouts(**timeouts)


def _first_autoscaling_group(resources: Optional[list[aws.eks.outputs.NodeGroupResource]]) -> Optional[str]:
    """The Auto Scaling group EKS made for the node group, or None where no provider filled ``resources``.

    EKS creates the group and reports it in DescribeNodegroup's ``resources.autoScalingGroups``
    (https://docs.aws.amazon.com/eks/latest/APIReference/API_NodegroupResources.html), which pulumi-aws
    returns as ``resources``; a deploy always has it. Under Pulumi's unit-test mocks, which echo a resource's
    inputs as its outputs (https://www.pulumi.com/docs/iac/guides/testing/unit/), it is None: the tags are
    then registered without a group name instead of the program failing inside an apply.
    """
    groups = resources[0].autoscaling_groups if resources else None
    return groups[0].name if groups else None


class AcceleratedNodeGroup(pulumi.ComponentResource):
    """An EKS managed node group of accelerated instances with their EFA layout (the base of
    ``GpuNodeGroup`` and ``TrainiumNodeGroup``): subclasses say which accelerator they run and how
    its nodes are marked."""

    TYPE: str
    ACCELERATOR: AcceleratorKind
    PRESENT_LABEL: str
    """A label the device plugin selects nodes by."""
    TAINT: dict
    """Keeps pods that do not ask for the accelerator off these nodes."""

    node_group: aws.eks.NodeGroup
    """The EKS managed node group (``aws.eks.NodeGroup``): its nodes, scaling, labels and taints."""
    launch_template: aws.ec2.LaunchTemplate
    """The nodes' launch template (``aws.ec2.LaunchTemplate``): the EFA layout, IMDSv2, the root volume, the
    reservation or capacity block."""
    max_pods: int
    """The kubelet's maxPods: the group's own, or what the EFA layout leaves on card 0
    capped by the EKS recommendation (config/pods.py)."""

    def __init__(self, name: str, args: AcceleratedNodeGroupArgs, opts: Optional[pulumi.ResourceOptions] = None):
        check_args(f"{type(self).__name__}({name})", AcceleratedNodeGroupArgs, args)
        settings = validate(NodeGroupConfig, args["settings"], prefix=f"{type(self).__name__}({name})")
        instance = catalog.get(settings.instance_type)
        if instance.accelerator is None or instance.accelerator.kind is not self.ACCELERATOR:
            raise ConfigError([ConfigIssue(
                f"{type(self).__name__}({name}):instanceType", settings.instance_type,
                f"{settings.instance_type} has no {self.ACCELERATOR.value} accelerator.",
                "use GpuNodeGroup for NVIDIA GPU types and TrainiumNodeGroup for Trainium types.")])
        cluster = args["cluster"]
        if settings.efa_enabled and cluster.efa_security_group_id is None:
            raise ConfigError([ConfigIssue(
                f"{type(self).__name__}({name}):cluster.efa_security_group_id", None,
                f"the group has EFA ({instance.name}, efa not off), and EFA traffic flows only within a security "
                "group that allows all traffic to and from itself.",
                "pass ClusterAttachment(efa_security_group_id=...) (trainstack.efa_security_group makes one), "
                "or set efa: false on the group.")], f"{type(self).__name__}({name}) arguments")
        capacity = capacity_record(settings.capacity, instance.name)
        super().__init__(self.TYPE, name, {"capacity": capacity} if capacity else {}, opts)
        self.max_pods = settings.pods_per_node.value
        self.launch_template = self._launch_template(name, settings, instance, cluster)
        self.labels = {**settings.labels, **self._labels(settings, instance)}
        self.taints = [*({"key": t.key, "value": t.value, "effect": t.effect} for t in settings.taints),
                       dict(self.TAINT)]
        _, _, capacity_type = capacity_settings(settings.capacity)
        update = update_config(settings, settings.in_placement_group)
        self.node_group = aws.eks.NodeGroup(
            autonamed(name, EKS_NODEGROUP_MAX),  # Pulumi names it '<logical name>-<7 random>'
            cluster_name=cluster.cluster_name,
            node_role_arn=cluster.node_role_arn,
            subnet_ids=[cluster.subnet_for(settings.zone, args.get("part", 0))],
            instance_types=[instance.name],
            ami_type=instance.ami_types[0],
            version=cluster.kubernetes_version,
            capacity_type=capacity_type,
            scaling_config={"min_size": settings.min_size, "desired_size": settings.desired_size,
                            "max_size": settings.max_size},
            launch_template={"id": self.launch_template.id, "version": self.launch_template.latest_version.apply(str)},
            labels=self.labels,
            taints=[{**t, "effect": _TAINT_EFFECTS[t["effect"]]} for t in self.taints],
            update_config=update,
            node_repair_config=node_repair_config(settings.auto_repair, settings.node_repair,
                                                  reserved=settings.capacity.type != "none"),
            tags={NODE_GROUP_TAG: name},
            # The Cluster Autoscaler and operators move desired size; a later `pulumi up`
            # must not fight them over it.
            opts=pulumi.ResourceOptions(parent=self, depends_on=cluster.depends_on,
                                        ignore_changes=["scalingConfig.desiredSize"],
                                        custom_timeouts=node_group_timeouts(instance.ami_types[0], settings, update)),
        )
        self._scale_from_zero_tags(name, instance, settings)
        self.register_outputs({"nodeGroupName": self.node_group.node_group_name, "maxPods": self.max_pods,
                               "labels": self.labels, "instanceType": instance.name,
                               **({"capacity": capacity} if capacity else {})})

    @property
    def managed_groups(self) -> list[aws.eks.NodeGroup]:
        """Its EKS managed node group, as a list (a NodeGroupPool has several)."""
        return [self.node_group]

    def _launch_template(self, name: str, settings: NodeGroupConfig, instance: catalog.InstanceType,
                         cluster: ClusterAttachment) -> aws.ec2.LaunchTemplate:
        """The nodes' launch template: the EFA layout, the cluster placement group, the security groups."""
        placement = None
        if settings.in_placement_group:
            placement = aws.ec2.PlacementGroup(name, strategy="cluster", opts=pulumi.ResourceOptions(parent=self)).name
        efa = settings.efa_enabled
        security_groups = [cluster.cluster_security_group_id] + (
            [cluster.efa_security_group_id] if efa and cluster.efa_security_group_id is not None else [])
        return launch_template(
            name, layout=layout_for(instance, efa), security_group_ids=security_groups,
            root_volume=settings.root_volume, max_pods=self.max_pods, capacity=settings.capacity,
            placement_group=placement, parent=self, raid0_instance_store=bool(instance.nvme_instance_store_gb),
            boot_script=lustre_efa_client_script(instance) if efa and cluster.lustre_over_efa else None,
            bought=(buy_block(name, settings.capacity, instance.name, self)
                    if settings.capacity.purchase is not None else None))

    def _labels(self, settings: NodeGroupConfig, instance: catalog.InstanceType) -> dict[str, str]:
        return group_labels(settings, instance, self.PRESENT_LABEL)

    def _scale_from_zero_tags(self, name: str, instance: catalog.InstanceType, settings: NodeGroupConfig) -> None:
        """The Cluster Autoscaler reads labels and taints of managed node groups from EKS, but
        extended resources only from these ASG tags; without them a group at zero never grows."""
        accelerator = instance.require("the accelerator", instance.accelerator, "tag the node group")
        plugins = settings.device_allocation == "device-plugins"
        # A DRA node advertises no extended resources (its drivers publish ResourceSlices), so its template
        # claims none either; the group keeps a node up for the autoscaler to copy (config/checks/device_allocation.py).
        resources: dict[str, int | str] = {accelerator.resource_names[0]: accelerator.count} if plugins else {}
        if accelerator.neuron_cores and plugins:
            resources[NEURONCORE_RESOURCE] = accelerator.neuron_cores
        if settings.efa_enabled:
            if plugins:
                resources[EFA_RESOURCE] = instance.require("EFA interfaces", instance.efa.max_interfaces,
                                                           "tag the node group")
            # Every EFA pod requests huge pages (launch/placement.py); a template without
            # them admits no EFA job (cluster-autoscaler aws_manager.go buildNodeFromTemplate).
            resources[HUGEPAGES_RESOURCE] = EFA_HUGEPAGES
        asg_name = self.node_group.resources.apply(_first_autoscaling_group)
        for resource, count in resources.items():
            aws.autoscaling.Tag(
                f"{name}-template-{resource.replace('/', '-').replace('.', '-')}",
                autoscaling_group_name=asg_name,
                tag={"key": f"k8s.io/cluster-autoscaler/node-template/resources/{resource}", "value": str(count),
                     "propagate_at_launch": False},
                opts=pulumi.ResourceOptions(parent=self))
