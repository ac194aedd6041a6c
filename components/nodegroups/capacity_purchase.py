"""A Capacity Block the stack buys (``capacity.purchase``, opt in): ``aws.ec2.CapacityBlockReservation`` for the
offering the stack names, and the plan's words for what it costs and when it runs.

EC2 API Reference, PurchaseCapacityBlock (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/
API_PurchaseCapacityBlock.html, read 2026-11-26): takes the offering id and the instance platform; the block is
paid up front and cannot be cancelled (EC2 User Guide, https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/
capacity-blocks-pricing-billing.html). The provider's resource (pulumi-aws 7.51.1, terraform-provider-aws
``ec2_capacity_block_reservation.go``) buys at create and does nothing at delete: the resource is protected and
retained, so neither a replacement nor a ``pulumi destroy`` looks like it undoes the purchase.
"""

from __future__ import annotations

import pulumi
import pulumi_aws as aws

from ..config import Capacity

# The EKS-optimized AMIs the groups run are Linux: the platform the block is bought for.
INSTANCE_PLATFORM = "Linux/UNIX"


def buy_block(name: str, capacity: Capacity, instance_type: str, parent: pulumi.Resource) -> pulumi.Output[str]:
    """Buy the group's block; its reservation id, for the launch template. ``capacity.purchase`` must be set."""
    purchase = capacity.purchase
    assert purchase is not None and capacity.starts_at is not None and capacity.ends_at is not None
    block = aws.ec2.CapacityBlockReservation(
        f"{name}-block", capacity_block_offering_id=purchase.offering_id, instance_platform=INSTANCE_PLATFORM,
        opts=pulumi.ResourceOptions(parent=parent, protect=True, retain_on_delete=True))
    pulumi.log.warn(
        f"capacity block purchase: offering {purchase.offering_id}, {capacity.instance_count} x {instance_type} in "
        f"{capacity.zone}, {capacity.starts_at:%Y-%m-%dT%H:%M:%SZ} to {capacity.ends_at:%Y-%m-%dT%H:%M:%SZ}, "
        f"{purchase.upfront_fee_usd:,.2f} USD paid up front at `pulumi up` and never refunded; `trainstack diff` "
        "blocks the change until it is approved.", resource=block)
    reservation: pulumi.Output[str] = block.id
    return reservation
