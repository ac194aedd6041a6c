"""Prices of the services around the instances, each with its source and date.

Compiled 2026-11; each price's ``source`` names where it was read: AWS's own pages and announcements
where a copy with the figure was found (the AWS Containers blog on EKS pricing, the AWS News Blog on
public IPv4), otherwise dated secondary quotes,
marked "(secondary)"; none is invented. Reviewed 2026-11-26 for issue 40: the stored copies of
aws.amazon.com/fsx/lustre/pricing, /sagemaker/pricing, /vpc/pricing, /ebs/pricing and /eks/pricing carry
the pages' prose but not their price tables (the tables are drawn by the page's script), and no AWS Price
List offer file for AmazonFSx, AmazonSageMaker or AmazonVPC was found in a public repository, so the
secondary quotes below stay until ``trainstack prices refresh`` (the Price List Query API) or a reader
of the live pages replaces them. Where no price was found (FSx PERSISTENT_2 above 125 MB/s/TiB,
HyperPod instances other than those below, other regions) the estimate says "no published price"
instead of counting zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Optional

from ..catalog import eks_versions

HOURS_PER_MONTH = 730
"""The month every monthly figure is counted in: 730 hours (365 days x 24 h / 12), the month AWS's Pricing Calculator
assumes (aws.amazon.com/calculator/calculator-assumptions, "Time period", read 2026-11-27) and AWS's price pages
quote per-month rates in. The plan, the report, the record, the diff, the team figures and the cost ceiling all
count this month, through ``estimate.cost``: there is no 30-day (720 h) figure."""


@dataclass(frozen=True)
class ServicePrice:
    usd: float
    unit: str
    regions: tuple[str, ...]
    valid_on: date
    source: str


US = ("us-east-1", "us-west-2")

# AWS's own announcement of EKS pricing (aws.amazon.com/blogs/containers/amazon-eks-extended-support-for-kubernetes-
# versions-pricing/, effective from the April 2024 billing cycle): $0.10 per cluster-hour in standard support, $0.60 in
# all in extended support. Read in a stored copy 2026-11-26; aws.amazon.com/eks/pricing, which gives the same figures,
# was not found with its table. The figures live in catalog/eks_versions.py, beside the dates that decide which one a
# cluster pays (its extended_support_note quotes them too); the estimate prices a cluster at the rate of its
# Kubernetes version's support on the EKS version data's date (estimate/cost.py).
EKS_CONTROL_PLANE = ServicePrice(eks_versions.STANDARD_SUPPORT_USD_PER_CLUSTER_HOUR, "cluster-hour", ("*",),
                                 eks_versions.RATES_VALID_FROM,
                                 f"{eks_versions.RATES_SOURCE}: "
                                 f"${eks_versions.STANDARD_SUPPORT_USD_PER_CLUSTER_HOUR:.2f} per cluster-hour in "
                                 "standard support")
EKS_CONTROL_PLANE_EXTENDED_SUPPORT = ServicePrice(eks_versions.EXTENDED_SUPPORT_USD_PER_CLUSTER_HOUR, "cluster-hour",
                                                  ("*",), eks_versions.RATES_VALID_FROM,
                                                  f"{eks_versions.RATES_SOURCE}: "
                                                  f"${eks_versions.EXTENDED_SUPPORT_USD_PER_CLUSTER_HOUR:.2f} per "
                                                  "cluster-hour in extended support")
"""The control plane of a cluster whose Kubernetes version is past EKS's standard support: the whole rate, not a
surcharge on ``EKS_CONTROL_PLANE``."""
# No copy of aws.amazon.com/vpc/pricing with its NAT table was found (searched 2026-11-26); the guides agree on $0.045
# per gateway-hour in US East and US West (basavytix.com/blog/aws-nat-gateway-pricing, cloudpipelines.pages.dev/guides/
# aws-nat-gateway-pricing-2026/, both read 2026-11-26).
NAT_GATEWAY = ServicePrice(0.045, "gateway-hour", US, date(2026, 1, 1),
                           "NAT gateway pricing guides quoting aws.amazon.com/vpc/pricing (secondary: basavytix.com, "
                           "cloudpipelines.pages.dev; $0.045 per gateway-hour in US East and West)")
PUBLIC_IPV4 = ServicePrice(0.005, "address-hour", ("*",), date(2024, 2, 1),
                           "AWS News Blog, New - AWS Public IPv4 Address Charge (aws.amazon.com/blogs/aws/"
                           "new-aws-public-ipv4-address-charge-public-ip-insights/): $0.005 per IP-hour in all "
                           "regions from 2024-02-01, read through dated quotes of it (techpartner.news); the same "
                           "$0.005 per in-use address-hour in us-east-1 in a recorded `aws pricing get-products` "
                           "answer of 2026-09-16")
INTERFACE_ENDPOINT = ServicePrice(0.01, "endpoint-AZ-hour", US, date(2026, 5, 1),
                                  "PrivateLink pricing guides (secondary)")
# No copy of aws.amazon.com/ebs/pricing with its table was found (searched 2026-11-26). Two dated guides give $0.08 per
# GB-month for gp3 in us-east-1 with 3,000 IOPS and 125 MB/s included (saisci.com/aws/gp3-throughput-explained/, updated
# 2021-01-13; an "Amazon EBS" post of 2026-02-24 on menuvis1-blip.github.io): the rate has not moved between them.
GP3_STORAGE = ServicePrice(0.08, "GB-month", ("us-east-1",), date(2026, 2, 24),
                           "EBS guides quoting aws.amazon.com/ebs/pricing for gp3 in us-east-1 (secondary: "
                           "menuvis1-blip.github.io, 2026-02-24; saisci.com, 2021-01-13)")
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
and SCRATCH_2, so no HDD price is carried) and INTELLIGENT_TIERING (below). us-east-1 and us-west-2 prices for
250, 500 and 1000 MB/s/TiB were not found (searched 2026-11-26: the stored copies of aws.amazon.com/fsx/lustre/pricing
carry no table, no AmazonFSx Price List offer file was found in a public repository, and no dated quote gives them;
the ap-northeast-1 table is not carried over to another region, whose rates differ): the estimate says so."""
FSX_INTELLIGENT_TIERING_UNPRICED = (
    "no dated price found for FSx for Lustre Intelligent-Tiering (billed by data stored in each tier, "
    "throughput capacity, SSD read cache and requests: aws.amazon.com/fsx/lustre/pricing, read 2026-11; "
    "neither a dated figure there nor a dated secondary quote was found)")
"""Why an Intelligent-Tiering file system's cost line has no price: the pricing page names the
dimensions, and no stored copy of it, nor any dated secondary source, gives their rates."""
# HyperPod bills ml.* instances under SageMaker (Price List usage type <region>-Cluster:<type>). No copy of
# aws.amazon.com/sagemaker/pricing with its HyperPod table was found (searched 2026-11-26: the stored copies carry the
# prose only), so each rate below is a dated record of a Price List answer. ml.p5.48xlarge in us-east-1 (66.048, last
# session) was dropped: it was read from a Pricing API stub in a public test, a fixture and not a published price.
# ml.c5.xlarge and ml.g5.8xlarge in us-west-2 (the hyperpod stack) have no dated record anywhere searched.
HYPERPOD = {
    ("ml.p4d.24xlarge", "us-west-2"): ServicePrice(25.91001756, "instance-hour", ("us-west-2",), date(2026, 10, 1),
                                                   "guide quoting the Price List API, USW2-Cluster:ml.p4d.24xlarge "
                                                   "(secondary)"),
    ("ml.g5.8xlarge", "us-east-1"): ServicePrice(3.06, "instance-hour", ("us-east-1",), date(2026, 9, 15),
                                                 "a cost note recording an `aws pricing get-products` answer of "
                                                 "2026-09-16: USE1-Cluster:ml.g5.8xlarge, SKU YQXD4PZ3BTQ5N2P4, "
                                                 "Price List publication 2026-09-15 (secondary record of the "
                                                 "Price List)"),
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
                "not, until cancelled or ended: docs.aws.amazon.com/AWSEC2/latest/UserGuide/"
                "capacity-reservation-pricing-billing.html")
CAPACITY_BLOCK_BILLING = ("Capacity Blocks are paid up front for their whole duration, used or not, and cannot be "
                          "cancelled: docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-pricing-billing.html,"
                          " "
                          "docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CancelCapacityReservation.html")
TRAINING_PLAN_BILLING = ("a SageMaker training plan is paid up front when it is created, for its whole duration "
                         "(CreateTrainingPlan: docs.aws.amazon.com/sagemaker/latest/APIReference/"
                         "API_CreateTrainingPlan.html)")
# No Capacity Block rate is carried. AWS's page (aws.amazon.com/ec2/capacityblocks/pricing) was found with its rate
# table only in a copy served from a third-party host (sibshop.uat.jiralog.com, searched 2026-11-27), which is no
# primary source, and that table says its rates held until a scheduled 2025-01-01 update; the EC2 User Guide says a
# block's price is the one its offering shows when it is bought (Find and purchase Capacity Blocks,
# docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-purchase.html, read 2026-11-27).
# So a block is priced only from its own offering's up-front fee (``capacity.purchase.upfrontFeeUsd``), else unpriced.
CAPACITY_BLOCK_UNPRICED = ("no dated primary Capacity Block rate: a block costs the up-front fee its offering lists "
                           "at purchase (DescribeCapacityBlockOfferings UpfrontFee; docs.aws.amazon.com/AWSEC2/latest/"
                           "UserGuide/capacity-blocks-purchase.html), and AWS's rate table was found only in a "
                           "third-party copy, out of date since 2025-01-01")
CAPACITY_BLOCK_OS_FEE_UNPRICED = ("operating system fee while instances run in the block: billed per second "
                                  "(docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-pricing-billing.html), "
                                  "no dated Linux rate found")


def in_region(price: ServicePrice, region: str) -> Optional[ServicePrice]:
    return price if "*" in price.regions or region in price.regions else None


def fsx_price(deployment_type: str, per_unit: Optional[int], region: str) -> Optional[ServicePrice]:
    price = FSX_LUSTRE.get((deployment_type, per_unit if deployment_type == "PERSISTENT_2" else None))
    return in_region(price, region) if price else None
