"""The launch template of an EKS managed node group: interfaces, IMDS, root volume,
capacity, placement, the kubelet's pods-per-node and, on EFA nodes, the containers' locked-memory limit.

The template carries no subnet (EKS rejects one; the node group's subnet is
used) and no AMI id (the node group's AMI type picks the EKS-optimized AMI and
EKS merges its bootstrap with the NodeConfig given here).
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Optional

import pulumi
import pulumi_aws as aws

from ..catalog.efa_layout import InterfaceSlot
from ..catalog.efa_node import efa_container_rlimits
from ..config import Capacity, RootVolume

# IMDSv2 only. A hop limit of 1 keeps pods (one network hop further) away from the
# node role's credentials; pods get AWS credentials and region through EKS Pod
# Identity. The EKS docs disagree on the managed default (1 or 2), so it is set.
IMDS_HOP_LIMIT = 1


def nodeadm_user_data(max_pods: int, raid0_instance_store: bool = False, boot_script: Optional[str] = None,
                      efa: bool = False) -> str:
    """An AL2023 NodeConfig part setting maxPods; EKS merges it with its own bootstrap.

    With ``raid0_instance_store``, nodeadm stripes the instance's NVMe instance store into
    one RAID0 array and puts containerd and the kubelet on it (amazon-eks-ami nodeadm API,
    NodeConfig ``spec.instance.localStorage.strategy: RAID0``): training images and pods'
    emptyDir volumes, among them Mountpoint for S3's dataset cache, land on local NVMe
    instead of the EBS root volume. Without it AL2023 leaves the instance store unused.
    ``boot_script`` (a shell script) goes in a part of its own (the Lustre client over EFA). With ``efa``,
    containerd gives every container the locked-memory limit EFA needs (``efa_containerd_lines``)."""
    boundary = "TRAINSTACK"
    local_storage = ["  instance:", "    localStorage:", "      strategy: RAID0"] if raid0_instance_store else []
    document = "\n".join([
        "MIME-Version: 1.0",
        f'Content-Type: multipart/mixed; boundary="{boundary}"',
        "",
        f"--{boundary}",
        "Content-Type: application/node.eks.aws",
        "",
        "apiVersion: node.eks.aws/v1alpha1",
        "kind: NodeConfig",
        "spec:",
        *local_storage,
        *(efa_containerd_lines() if efa else []),
        "  kubelet:",
        "    config:",
        f"      maxPods: {max_pods}",
        "",
        *([f"--{boundary}", 'Content-Type: text/x-shellscript; charset="us-ascii"', "", boot_script]
          if boot_script else []),
        f"--{boundary}--",
        "",
    ])
    return base64.b64encode(document.encode()).decode()


def efa_containerd_lines() -> list[str]:
    """NodeConfig ``spec.containerd.baseRuntimeSpec`` raising RLIMIT_MEMLOCK for every container of the node
    (catalog/efa_node.py says why and what nodeadm does with it). Node-side, so no pod needs IPC_LOCK and
    Baseline Pod Security stays; nodeadm merges it over its default spec (awslabs/amazon-eks-ami v20260724
    nodeadm/doc/examples.md, "Modifying container RLIMITs")."""
    lines = ["  containerd:", "    baseRuntimeSpec:", "      process:", "        rlimits:"]
    for rlimit in efa_container_rlimits():
        lines += [f"          - type: {rlimit['type']}", f"            soft: {rlimit['soft']}",
                  f"            hard: {rlimit['hard']}"]
    return lines


def efa_node_config(boundary: str = "TRAINSTACK") -> str:
    """A MIME document of one NodeConfig part holding only ``efa_containerd_lines``: the user data of a
    Karpenter EC2NodeClass with EFA, which Karpenter merges with its own NodeConfig for AL2023
    (aws/karpenter-provider-aws v1.14.1, website/content/en/v1.14/concepts/nodeclasses.md, spec.userData, AL2023)."""
    return "\n".join([
        "MIME-Version: 1.0", f'Content-Type: multipart/mixed; boundary="{boundary}"', "", f"--{boundary}",
        "Content-Type: application/node.eks.aws", "", "apiVersion: node.eks.aws/v1alpha1", "kind: NodeConfig",
        "spec:", *efa_containerd_lines(), "", f"--{boundary}--", ""])


def network_interfaces(layout: Sequence[InterfaceSlot], security_group_ids: Sequence[pulumi.Input[str]]) -> list[dict]:
    return [{
        "network_card_index": slot.network_card_index,
        "device_index": slot.device_index,
        "interface_type": slot.interface_type,
        "security_groups": list(security_group_ids),
        "delete_on_termination": "true",
    } for slot in layout]


def capacity_settings(capacity: Capacity, bought: Optional[pulumi.Input[str]] = None,
                      ) -> tuple[Optional[dict], Optional[dict], str]:
    """(capacityReservationSpecification, instanceMarketOptions, the node group's capacity type); ``bought``: the
    id of the block the stack buys (``capacity.purchase``), in place of a ``reservationId``."""
    if capacity.type == "none":
        return None, None, "ON_DEMAND"
    target: dict[str, Optional[pulumi.Input[str]]]
    if capacity.resource_group_arn:
        target = {"capacity_reservation_resource_group_arn": capacity.resource_group_arn}
    else:
        target = {"capacity_reservation_id": bought if bought is not None else capacity.reservation_id}
    reservation = {"capacity_reservation_target": target}
    if capacity.type == "capacityBlock":
        return reservation, {"market_type": "capacity-block"}, "CAPACITY_BLOCK"
    return reservation, None, "ON_DEMAND"


def capacity_record(capacity: Capacity, instance_type: str) -> Optional[dict[str, Any]]:
    """What the cost estimate needs of a group's reserved capacity, which no AWS resource of the stack
    carries (the reservation exists outside it; the launch template names only its id): the group
    component's ``capacity`` property and output, so the offline plan (inputs) and CrossGuard (a
    component's outputs) both see it. None on plain on-demand capacity."""
    if capacity.type == "none":
        return None
    record: dict[str, Any] = {"type": capacity.type, "reservationId": capacity.reservation_id,
                              "resourceGroupArn": capacity.resource_group_arn, "instanceType": instance_type,
                              "instanceCount": capacity.instance_count, "startsAt": _utc(capacity.starts_at),
                              "endsAt": _utc(capacity.ends_at)}
    if capacity.purchase is not None:
        record["purchase"] = {"offeringId": capacity.purchase.offering_id,
                              "upfrontFeeUsd": capacity.purchase.upfront_fee_usd}
    return record


def _utc(moment: Optional[datetime]) -> Optional[str]:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment is not None else None


def launch_template(
    name: str, *, layout: Sequence[InterfaceSlot], security_group_ids: Sequence[pulumi.Input[str]],
    root_volume: RootVolume, max_pods: int, capacity: Capacity, placement_group: Optional[pulumi.Input[str]],
    parent: pulumi.Resource, raid0_instance_store: bool = False, boot_script: Optional[str] = None,
    bought: Optional[pulumi.Input[str]] = None,
) -> aws.ec2.LaunchTemplate:
    reservation, market, _ = capacity_settings(capacity, bought)
    uses_efa = any(slot.is_efa for slot in layout)
    return aws.ec2.LaunchTemplate(
        name,
        description=f"EKS nodes {name}",
        update_default_version=True,
        metadata_options={"http_endpoint": "enabled", "http_tokens": "required",
                          "http_put_response_hop_limit": IMDS_HOP_LIMIT},
        block_device_mappings=[{"device_name": "/dev/xvda", "ebs": {
            "volume_type": "gp3", "volume_size": root_volume.size_gib, "iops": root_volume.iops,
            "throughput": root_volume.throughput_mibps, "encrypted": "true", "delete_on_termination": "true"}}],
        # With interfaces in the template, security groups must sit on the interfaces;
        # either way EKS then leaves out the cluster security group, so it is listed here.
        network_interfaces=network_interfaces(layout, security_group_ids) if uses_efa else None,
        vpc_security_group_ids=None if uses_efa else list(security_group_ids),
        capacity_reservation_specification=reservation,
        instance_market_options=market,
        placement={"group_name": placement_group} if placement_group is not None else None,
        user_data=nodeadm_user_data(max_pods, raid0_instance_store, boot_script, efa=uses_efa),
        tag_specifications=[{"resource_type": kind, "tags": {"Name": name}} for kind in ("instance", "volume")],
        opts=pulumi.ResourceOptions(parent=parent),
    )
