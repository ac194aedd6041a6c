"""What the pinned Karpenter can do with capacity: the release each feature came in, and what it
does at a Capacity Block's end. Config refuses a Karpenter group that asks for more than the pin
supports; the node pools and the plan read the end-of-block timings from here.

Every fact is read from aws/karpenter-provider-aws at the pinned tag (``catalog.addons.KARPENTER``,
v1.14.1), https://github.com/aws/karpenter-provider-aws/tree/v1.14.1, read 2026-11-26.
"""

from __future__ import annotations

from dataclasses import dataclass

from .addons import KARPENTER

_ODCRS = "website/content/en/docs/tasks/odcrs.md"


@dataclass(frozen=True)
class KarpenterFeature:
    """A feature of Karpenter trainstack renders, the release it came in, and where that is said."""

    what: str
    since: str
    source: str


RESERVED = KarpenterFeature(
    "On-Demand Capacity Reservations (capacity type reserved, capacityReservationSelectorTerms)", "1.3.0",
    f"{_ODCRS}: native ODCR support introduced in v1.3 (feature gate ReservedCapacity, Beta and on by default "
    "since v1.6: website/content/en/docs/reference/settings.md)")
CAPACITY_BLOCKS = KarpenterFeature(
    "EC2 Capacity Blocks for ML (selected like an ODCR, capacity type reserved)", "1.6.0",
    f"{_ODCRS}: 'In v1.6, this support was expanded to include EC2 Capacity Blocks for ML'")
NETWORK_INTERFACES = KarpenterFeature(
    "EC2NodeClass spec.networkInterfaces (interface and efa-only)", "1.11.0",
    "pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml: the field first appears at tag v1.11.0; "
    "website/content/en/docs/concepts/nodeclasses.md, spec.networkInterfaces")
PLACEMENT_GROUPS = KarpenterFeature(
    "EC2NodeClass spec.placementGroupSelector", "1.11.0",
    "pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml: the field first appears at tag v1.11.0; "
    "website/content/en/docs/concepts/nodeclasses.md, spec.placementGroupSelector")


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def supports(feature: KarpenterFeature, pinned: str = KARPENTER.version) -> bool:
    """Whether the Karpenter release ``pinned`` (default: the chart trainstack installs) has ``feature``."""
    return _version(pinned) >= _version(feature.since)


# At a Capacity Block's end. Karpenter's capacityreservation.expiration controller deletes the NodeClaims
# of a block "40 minutes before the capacity-block's end time, 10 minutes before EC2 begins reclaiming the
# instances" (pkg/controllers/capacityreservation/expiration/controller.go and
# pkg/apis/v1/ec2nodeclass_status.go, capacityReservationExpirationPeriod, at v1.14.1); odcrs.md says the
# same: it "will preemptively begin draining nodes launched for capacity blocks 10 minutes before EC2
# begins termination".
KARPENTER_BLOCK_DRAIN_MINUTES = 40
"""Karpenter starts draining a Capacity Block's nodes this many minutes before the block ends."""
# EC2 User Guide, Capacity Blocks for ML (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/
# ec2-capacity-blocks.html, as quoted in odcrs.md at v1.14.1): "With 30 minutes (for instance types) ...
# left in your Capacity Block reservation, we begin terminating any instances that are running in the
# Capacity Block."
# Re-read in AWS's own pages 2026-11-26: https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-using.html
# "Thirty minutes before the reservation expires, we begin to terminate any instances that are still running in
# the Capacity Block."
EC2_BLOCK_TERMINATION_MINUTES = 30
"""EC2 begins terminating a Capacity Block's instances this many minutes before the block ends."""
# https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-monitor.html, read 2026-11-26: "Forty minutes
# before your Capacity Block reservation ends, you receive another EventBridge event that tells you that any
# instances running in the reservation will begin to terminate in 10 minutes" (detail-type "Capacity Block
# Reservation Expiration Warning", source aws.ec2). Karpenter's 40 minutes are "inline with" it (controller.go).
EC2_BLOCK_WARNING_MINUTES = 40
"""EC2 sends its Capacity Block Reservation Expiration Warning event this many minutes before the block ends."""
EC2_BLOCK_WARNING_EVENT = "Capacity Block Reservation Expiration Warning"
"""The EventBridge detail-type of that warning (source ``aws.ec2``)."""
BLOCK_DRAIN_GRACE_MINUTES = KARPENTER_BLOCK_DRAIN_MINUTES - EC2_BLOCK_TERMINATION_MINUTES
"""What is left between Karpenter's drain and EC2's termination: the most a block's pool may wait for
its pods to leave (the NodePool's terminationGracePeriod) before EC2 takes the instances anyway."""

SEVERAL_BLOCKS = ("several blocks of one type and zone: Karpenter before v1.8.0 stopped launching once the "
                  "first block was full (aws/karpenter-provider-aws#8514, fixed by #8508 'ensure filtered "
                  "offering is available for capacity blocks', first in v1.8.0); the pinned release has the fix, "
                  "and trainstack gives each block its own group and node class anyway")
"""The known limit with several blocks, and why trainstack's pools are not exposed to it."""
