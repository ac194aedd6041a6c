"""The system node group: CoreDNS, the autoscaler, operators and controllers.

Spread over every private subnet, on the standard AL2023 AMI, with the same
launch template rules as accelerated groups (IMDSv2, encrypted gp3 root).
"""

from __future__ import annotations

from typing import Optional

import pulumi
import pulumi_aws as aws

from .. import catalog
from ..catalog import timeouts
from ..catalog.efa_layout import plain_layout
from ..config import Capacity, RootVolume, SystemNodesConfig
from ..config.resource_names import EKS_NODEGROUP_MAX, autonamed
from ..names import NODE_GROUP_LABEL
from ..nodegroups.launch_template import launch_template
from ..nodegroups.node_health import node_repair_config

SYSTEM_LABELS = {NODE_GROUP_LABEL: "system"}


def system_node_group(name: str, *, settings: SystemNodesConfig, cluster_name: str,
                      cluster_security_group_id: pulumi.Input[str], node_role_arn: pulumi.Input[str],
                      subnet_ids: list[pulumi.Input[str]], kubernetes_version: str, parent: pulumi.Resource,
                      depends_on: list[pulumi.Resource],
                      sizes: Optional[tuple[int, int, int]] = None) -> aws.eks.NodeGroup:
    """The cluster's system node group (the ``eks.systemNodes`` block), a child of ``parent``.

    ``sizes``: its min, desired and max. ``GpuEksCluster`` passes what the stack's size sets
    (config/system_load.py); without them, the block's own, else 2, minSize and 4 (a system group alone)."""
    minimum, desired, maximum = sizes if sizes is not None else settings.described_sizes
    instance = catalog.get(settings.instance_type)
    layout = plain_layout()
    template = launch_template(
        name, layout=layout, security_group_ids=[cluster_security_group_id],
        root_volume=RootVolume(size_gib=100), max_pods=settings.pods_per_node.value, capacity=Capacity(),
        placement_group=None, parent=parent)
    return aws.eks.NodeGroup(
        # Pulumi names the group '<logical name>-<7 random>': the logical name is fitted to EKS's 63 characters.
        autonamed(name, EKS_NODEGROUP_MAX), cluster_name=cluster_name, node_role_arn=node_role_arn,
        subnet_ids=subnet_ids,
        instance_types=[instance.name], ami_type=instance.ami_types[0], version=kubernetes_version,
        capacity_type="ON_DEMAND",
        scaling_config={"min_size": minimum, "desired_size": desired, "max_size": maximum},
        launch_template={"id": template.id, "version": template.latest_version.apply(str)},
        labels=SYSTEM_LABELS, update_config={"max_unavailable": 1},
        node_repair_config=node_repair_config(settings.auto_repair),
        # How long `pulumi up` waits: the plan's estimates with their margin (catalog/timeouts.py).
        opts=pulumi.ResourceOptions(parent=parent, depends_on=depends_on,
                                    ignore_changes=["scalingConfig.desiredSize"],
                                    custom_timeouts=pulumi.CustomTimeouts(**timeouts.node_group_timeouts({
                                        "amiType": instance.ami_types[0], "updateConfig": {"maxUnavailable": 1},
                                        "scalingConfig": {"maxSize": maximum}}))))
