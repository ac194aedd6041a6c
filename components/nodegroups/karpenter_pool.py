"""KarpenterNodePool: an elastic accelerated group Karpenter scales, with no managed node group.

    EC2NodeClass  how a node is launched: the EKS-optimized AL2023 AMI (NVIDIA or Neuron variant),
                  the group's subnet and the cluster security group, the node role, IMDSv2, an
                  encrypted gp3 root volume, the kubelet's maxPods
    NodePool      which nodes may be made: the group's instance type, zone and capacity type, its
                  labels and taints, a limit of maxSize nodes' resources, consolidation of empty
                  nodes and a disruption budget

The labels and taints are the ones a managed node group of the same config carries
(``accelerated.group_labels`` and the accelerator's taint), so the outputs contract and the
launchers serve both kinds alike. A pool may hold one reservation or capacity block and lay out EFA
in a placement group, as a managed group does (``karpenter_capacity.py``); config refuses what the
pinned Karpenter cannot do (``config/checks/karpenter_groups.py``).

API: ``karpenter.sh/v1`` NodePool and ``karpenter.k8s.aws/v1`` EC2NodeClass
(aws/karpenter-provider-aws v1.14.1, ``pkg/apis/crds/``; ``website/content/en/docs/concepts/
nodepools.md``, ``nodeclasses.md`` and ``disruption.md`` at that tag).
"""

from __future__ import annotations

from typing import Any, NotRequired, Optional, TypedDict

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from ..config import ConfigError, ConfigIssue, NodeGroupConfig, validate
from ..config.component_args import check_args
from ..names import CAPACITY_TYPE_LABEL, INSTANCE_TYPE_LABEL, KARPENTER_NODE_POOL_COMPONENT, NODE_GROUP_TAG, ZONE_LABEL
from . import NODE_GROUP_FOR
from .accelerated import group_labels
from .karpenter_capacity import capacity_types, node_class_capacity, template_lifetime
from .launch_template import capacity_record, efa_node_config

NODEPOOL_API = "karpenter.sh/v1"
NODECLASS_API = "karpenter.k8s.aws/v1"
# The EKS-optimized AL2023 AMI; Karpenter picks its NVIDIA or Neuron variant from the instance
# type's accelerator (pkg/providers/amifamily/al2023.go at v1.14.1: x86_64 variants standard,
# nvidia, neuron), the same AMIs a managed node group's AL2023_x86_64_NVIDIA / _NEURON ami types
# launch. The version is the group's amiVersion (``v20260724``; production stacks must name one:
# Karpenter's nodeclasses.md at v1.14.1 warns that ``@latest`` drifts every node on each AMI
# release); ``latest`` on a dev stack that names none.
AMI_FAMILY = "al2023"
# Only empty nodes are consolidated: a development or inference pod is not evicted to repack
# nodes (disruption.md: WhenEmpty), and an empty accelerated node is given back after 10 minutes.
CONSOLIDATION = {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"}
# At most one in ten of the pool's nodes is disrupted at a time (disruption.md, budgets).
DISRUPTION_BUDGETS = [{"nodes": "10%"}]


def pool_marks(settings: NodeGroupConfig) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The group's node labels and taints, as its managed node group would carry them."""
    # The label the device plugin selects and the accelerator taint, as the group's managed kind sets them.
    managed_kind = NODE_GROUP_FOR[settings.accelerator.kind]
    present_label, accelerator_taint = managed_kind.PRESENT_LABEL, managed_kind.TAINT
    labels = {**settings.labels, **group_labels(settings, settings.instance, present_label)}
    taints: list[dict[str, Any]] = [{"key": t.key, "value": t.value, "effect": t.effect} for t in settings.taints]
    return labels, [*taints, dict(accelerator_taint)]


def pool_limits(settings: NodeGroupConfig) -> dict[str, str]:
    """maxSize nodes' worth of the type's resources: Karpenter stops launching at any of them."""
    instance, accelerator = settings.instance, settings.accelerator
    vcpus = instance.require("vCPUs", instance.vcpus, "limit the Karpenter pool")
    memory_gib = instance.require("memory", instance.memory_gib, "limit the Karpenter pool")
    return {"cpu": str(settings.max_size * vcpus), "memory": f"{int(settings.max_size * memory_gib)}Gi",
            accelerator.resource_names[0]: str(settings.max_size * accelerator.count)}


def node_class(settings: NodeGroupConfig, *, subnet_id: Any, security_group_id: Any, node_role: Any,
               efa_security_group_id: Any = None, placement_group: Any = None) -> dict:
    """The EC2NodeClass object (the ids, the role and the placement group's name may be Outputs)."""
    volume = settings.root_volume
    security_groups = [{"id": security_group_id}, *([{"id": efa_security_group_id}] if settings.efa_enabled else [])]
    return {
        "apiVersion": NODECLASS_API, "kind": "EC2NodeClass", "metadata": {"name": settings.name},
        "spec": {
            "amiSelectorTerms": [{"alias": f"{AMI_FAMILY}@{settings.ami_version or 'latest'}"}],
            "role": node_role,
            "subnetSelectorTerms": [{"id": subnet_id}],
            "securityGroupSelectorTerms": security_groups,
            "metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 1,
                                "httpEndpoint": "enabled"},
            "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
                "volumeSize": f"{volume.size_gib}Gi", "volumeType": "gp3", "iops": volume.iops,
                "throughput": volume.throughput_mibps, "encrypted": True, "deleteOnTermination": True}}],
            "kubelet": {"maxPods": settings.pods_per_node.value},
            # EFA needs locked memory past containerd's 8 MiB (catalog/efa_node.py); set node-side.
            **({"userData": efa_node_config()} if settings.efa_enabled else {}),
            "tags": {NODE_GROUP_TAG: settings.name},
            **node_class_capacity(settings, placement_group=placement_group),
        },
    }


def node_pool(settings: NodeGroupConfig) -> dict:
    """The NodePool object: the group's type, zone and capacity types; its labels and taints."""
    labels, taints = pool_marks(settings)
    requirements = [
        {"key": INSTANCE_TYPE_LABEL, "operator": "In", "values": [settings.instance_type]},
        {"key": ZONE_LABEL, "operator": "In", "values": [settings.zone]},
        {"key": CAPACITY_TYPE_LABEL, "operator": "In", "values": capacity_types(settings)},
    ]
    return {
        "apiVersion": NODEPOOL_API, "kind": "NodePool", "metadata": {"name": settings.name},
        "spec": {
            "template": {
                "metadata": {"labels": labels},
                "spec": {"nodeClassRef": {"group": NODECLASS_API.split("/")[0], "kind": "EC2NodeClass",
                                          "name": settings.name},
                         "requirements": requirements,
                         "taints": [{k: v for k, v in t.items() if v is not None} for t in taints],
                         **template_lifetime(settings)},
            },
            "limits": pool_limits(settings),
            "disruption": {**CONSOLIDATION, "budgets": DISRUPTION_BUDGETS},
        },
    }


class KarpenterNodePoolArgs(TypedDict):
    """One Karpenter group's config and what its nodes join."""

    settings: NodeGroupConfig | dict
    """One entry of the ``nodeGroups`` config list, with ``autoscaler: karpenter``."""
    subnet_id: pulumi.Input[str]
    """The private subnet of the group's zone."""
    security_group_id: pulumi.Input[str]
    """The cluster security group."""
    node_role_name: pulumi.Input[str]
    """The Karpenter node role (it has an EC2_LINUX access entry)."""
    efa_security_group_id: NotRequired[pulumi.Input[str]]
    """The EFA security group; required for a group with EFA."""
    provider: k8s.Provider
    """The cluster's Kubernetes provider: the EC2NodeClass and NodePool are Kubernetes objects."""
    depends_on: list[pulumi.Resource]
    """The Karpenter controller: its chart serves the CRDs."""


class KarpenterNodePool(pulumi.ComponentResource):
    """The EC2NodeClass and NodePool of one Karpenter group."""

    def __init__(self, name: str, args: KarpenterNodePoolArgs, opts: Optional[pulumi.ResourceOptions] = None):
        check_args(f"KarpenterNodePool({name})", KarpenterNodePoolArgs, args)
        settings = validate(NodeGroupConfig, args["settings"], prefix=f"KarpenterNodePool({name})")
        if settings.efa_enabled and args.get("efa_security_group_id") is None:
            raise ConfigError([ConfigIssue(
                f"KarpenterNodePool({name}):efa_security_group_id", None,
                f"the group has EFA ({settings.instance_type}, efa not off), and EFA traffic flows only within a "
                "security group that allows all traffic to and from itself.",
                "pass efa_security_group_id (trainstack.efa_security_group makes one), or set efa: false on the "
                "group.")], f"KarpenterNodePool({name}) arguments")
        # The reservation or block the pool holds, recorded as a managed group's is: the cost estimate prices
        # it, and the plan says which of the two kinds of group holds it.
        capacity = capacity_record(settings.capacity, settings.instance_type)
        super().__init__(KARPENTER_NODE_POOL_COMPONENT, name, {"capacity": capacity} if capacity else {}, opts)
        self.labels, self.taints = pool_marks(settings)
        """Labels and taints of the pool's nodes (the outputs contract reads them)."""
        placement = (aws.ec2.PlacementGroup(name, strategy="cluster", opts=pulumi.ResourceOptions(parent=self)).name
                     if settings.in_placement_group else None)
        child = pulumi.ResourceOptions(parent=self, provider=args["provider"], depends_on=args["depends_on"])
        objects = [node_class(settings, subnet_id=args["subnet_id"], security_group_id=args["security_group_id"],
                              node_role=args["node_role_name"], efa_security_group_id=args.get("efa_security_group_id"),
                              placement_group=placement), node_pool(settings)]
        made = [k8s.apiextensions.CustomResource(
            f"{name}-{obj['kind'].lower()}", api_version=obj["apiVersion"], kind=obj["kind"],
            metadata=obj["metadata"], spec=obj["spec"], opts=child) for obj in objects]
        self.node_class: k8s.apiextensions.CustomResource = made[0]
        """Karpenter's EC2NodeClass: the AMI, subnet, security groups, EFA interfaces and capacity reservation."""
        self.node_pool: k8s.apiextensions.CustomResource = made[1]
        """Karpenter's NodePool: the instance type, zone, capacity types, labels, taints and limits."""
        self.register_outputs({"labels": self.labels, "instanceType": settings.instance_type,
                               **({"capacity": capacity} if capacity else {})})
