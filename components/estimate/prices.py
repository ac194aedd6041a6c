"""Prices of the services around the instances, each with its source and date.

Compiled 2026-11; each price's ``source`` names where it was read: AWS pages where they give
a figure (the AWS Containers blog on EKS extended support pricing, aws.amazon.com/privatelink/pricing,
aws.amazon.com/fsx/lustre/pricing for the billing rules), otherwise dated secondary quotes, marked
"(secondary)"; none is invented. Where no price is published (FSx
PERSISTENT_2 above 125 MB/s/TiB, HyperPod instances other than those below, other
regions) the estimate says "no published price" instead of counting zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Optional

HOURS_PER_MONTH = 730


@dataclass(frozen=True)
class ServicePrice:
    usd: float
    unit: str
    regions: tuple[str, ...]
    valid_on: date
    source: str


US = ("us-east-1", "us-west-2")

EKS_CONTROL_PLANE = ServicePrice(0.10, "cluster-hour", ("*",), date(2024, 4, 1),
                                 "AWS Containers blog, EKS extended support pricing (standard support)")
NAT_GATEWAY = ServicePrice(0.045, "gateway-hour", US, date(2026, 1, 1), "NAT gateway pricing guides (secondary)")
PUBLIC_IPV4 = ServicePrice(0.005, "address-hour", ("*",), date(2024, 2, 1),
                           "AWS News Blog, New - AWS Public IPv4 Address Charge (aws.amazon.com/blogs/aws/"
                           "new-aws-public-ipv4-address-charge-public-ip-insights/): $0.005 per IP-hour in all "
                           "regions from 2024-02-01, read through dated quotes of it (techpartner.news)")
INTERFACE_ENDPOINT = ServicePrice(0.01, "endpoint-AZ-hour", US, date(2026, 5, 1),
                                  "PrivateLink pricing guides (secondary)")
GP3_STORAGE = ServicePrice(0.08, "GB-month", ("us-east-1",), date(2026, 1, 1), "gp2-vs-gp3 guides (secondary)")
FSX_LUSTRE: dict[tuple[str, Optional[int]], ServicePrice] = {
    ("SCRATCH_2", None): ServicePrice(0.140, "GB-month", ("us-east-1",), date(2026, 1, 1),
                                      "FSx for Lustre pricing quotes (secondary)"),
    ("PERSISTENT_2", 125): ServicePrice(0.145, "GB-month", ("us-east-1",), date(2026, 1, 1),
                                        "c3x.dev FSx for Lustre resource page (secondary)"),
    # The higher tiers (those EFA-enabled file systems use), in the one region a dated table was found
    # for: $/hour per 1.2 TiB (0.46 / 0.77 / 1.39) x 730 h / 1,200 GB. (The table's 125 tier, 0.31,
    # is not carried: this table holds one region per tier, and us-east-1's is above.)
    **{("PERSISTENT_2", tier): ServicePrice(usd, "GB-month", ("ap-northeast-1",), date(2022, 9, 3),
                                            "DevelopersIO (classmethod), FSx for Lustre Persistent 2 prices by "
                                            "throughput in ap-northeast-1 (secondary)")
       for tier, usd in ((250, 0.280), (500, 0.468), (1000, 0.846))},
}
"""SSD, by deployment type and MB/s/TiB. FSx for Lustre's storage classes (FSx API StorageType):
SSD (priced above where a source was found), HDD (PERSISTENT_1 only; trainstack builds PERSISTENT_2
and SCRATCH_2, so no HDD price is carried) and INTELLIGENT_TIERING (below). us-east-1 prices for
250, 500 and 1000 MB/s/TiB were not found: the estimate says so."""
FSX_INTELLIGENT_TIERING_UNPRICED = (
    "no dated price found for FSx for Lustre Intelligent-Tiering (billed by data stored in each tier, "
    "throughput capacity, SSD read cache and requests: aws.amazon.com/fsx/lustre/pricing, read 2026-11; "
    "neither a dated figure there nor a dated secondary quote was found)")
"""Why an Intelligent-Tiering file system's cost line has no price: the pricing page names the
dimensions, and no stored copy of it, nor any dated secondary source, gives their rates."""
# HyperPod bills ml.* instances under SageMaker; three rates were found, all secondary.
HYPERPOD = {
    ("ml.p4d.24xlarge", "us-west-2"): ServicePrice(25.91001756, "instance-hour", ("us-west-2",), date(2026, 10, 1),
                                                   "guide quoting the Price List API, USW2-Cluster:ml.p4d.24xlarge"),
    ("ml.g5.8xlarge", "us-east-1"): ServicePrice(3.06, "instance-hour", ("us-east-1",), date(2026, 9, 16),
                                                 "cost note quoting USE1-Cluster:ml.g5.8xlarge (secondary)"),
    ("ml.p5.48xlarge", "us-east-1"): ServicePrice(66.048, "instance-hour", ("us-east-1",), date(2026, 10, 1),
                                                  "Pricing API stub in a public test (weak secondary)"),
}


# Usage-based charges (the stack's usage section), per unit of use.
NAT_DATA_PROCESSING = ServicePrice(0.045, "GB", US, date(2026, 5, 1),
                                   "NAT gateway pricing guides quoting aws.amazon.com/vpc/pricing (secondary: "
                                   "basavytix.com, cloudpipelines.pages.dev; both give $0.045/GB in US East and West)")
S3_STANDARD_STORAGE = ServicePrice(0.023, "GB-month", ("us-east-1",), date(2026, 1, 1),
                                   "S3 pricing guide quoting aws.amazon.com/s3/pricing for S3 Standard, first 50 TB "
                                   "in us-east-1 (secondary: deepeshsoni.com)")
S3_REQUESTS_UNPRICED = ("no dated S3 request rate found (aws.amazon.com/s3/pricing lists them; no copy with figures "
                        "read)")
FSX_DATA_REPOSITORY_UNPRICED = ("no dated rate found for FSx data repository traffic (billed as the S3 requests the "
                                "import and export make: aws.amazon.com/fsx/lustre/pricing)")

# Reserved capacity. How each kind is billed, from AWS's pages (the rates are above and in the catalog):
ODCR_BILLING = ("On-Demand Capacity Reservations are billed at the On-Demand rate whether instances run in them or "
                "not: docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-reservation-pricing-billing.html")
CAPACITY_BLOCK_BILLING = ("Capacity Blocks are paid up front for their whole duration at the block's rate, used or "
                          "not: aws.amazon.com/ec2/capacityblocks/pricing")
_CAPACITY_BLOCK_PAGE = ("aws.amazon.com/ec2/capacityblocks/pricing, reservation rates table (a copy of the page read "
                        "2026-11; the page says these rates hold until its scheduled 2025-01-01 update, and that a "
                        "block keeps the rate of its purchase)")
CAPACITY_BLOCK: dict[tuple[str, str], ServicePrice] = {
    (instance, region): ServicePrice(usd, "instance-hour", (region,), date(2024, 12, 31), _CAPACITY_BLOCK_PAGE)
    for instance, region, usd in (("p5.48xlarge", "us-east-1", 39.33), ("p5.48xlarge", "us-east-2", 39.33),
                                  ("p4d.24xlarge", "us-east-2", 14.75), ("p4d.24xlarge", "us-west-2", 14.75),
                                  ("trn1.32xlarge", "ap-southeast-4", 15.49))
}
"""Effective instance-hour rate of a Capacity Block (the reservation fee), by type and region, as AWS's
Capacity Blocks pricing page lists it. Rates move with supply and demand (the page says so); what a
block actually cost is its offering's UpfrontFee (DescribeCapacityBlockOfferings). The table's other
rows (p5e/p5en in us-east-2, trn2) were not legible in the copy read, so they are not carried."""
CAPACITY_BLOCK_OS_FEE_UNPRICED = ("operating system fee while instances run in the block: billed per second "
                                  "(aws.amazon.com/ec2/capacityblocks/pricing), no dated Linux rate found")


def in_region(price: ServicePrice, region: str) -> Optional[ServicePrice]:
    return price if "*" in price.regions or region in price.regions else None


def fsx_price(deployment_type: str, per_unit: Optional[int], region: str) -> Optional[ServicePrice]:
    price = FSX_LUSTRE.get((deployment_type, per_unit if deployment_type == "PERSISTENT_2" else None))
    return in_region(price, region) if price else None
