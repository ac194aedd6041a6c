"""AWS's published default quotas that a stack's size can exceed, each with its Service Quotas code.

The offline plan compares what a stack needs at max size with these defaults (``config/quotas.py``); the
preflight reads the account's own value of the same codes through Service Quotas (``preflight/quotas.py``).
A default is AWS's initial value for an account, not the account's: an account may have had a quota raised,
and new accounts can start below it, so the plan says "raise it" and the preflight says whether it was.

Sources, read 2026-11-27:

* EKS: "Amazon EKS service quotas", https://docs.aws.amazon.com/eks/latest/userguide/service-quotas.html
  (Managed node groups per cluster 30, Nodes per managed node group 450, both adjustable; the codes are those
  of the page's links to the Service Quotas console, ``.../servicequotas/home/services/eks/quotas/L-...``).
* VPC: Network interfaces per Region, 5,000, adjustable, code L-DF5E4CA3, from the EKS Best Practices Guide's
  table of the quotas that bite EKS clusters ("can limit the number of EKS worker nodes"),
  https://docs.aws.amazon.com/eks/latest/best-practices/known_limits_and_service_quotas.html
  (aws/aws-eks-best-practices content/scalability/docs/quotas.md @ 554a9d08); moto 5.2.5's copy of Service
  Quotas' defaults (moto/servicequotas/resources/default_quotas/vpc.py) holds the same code, name and value.
  Every interface attached to an instance counts, EFA and EFA-only ones included: each is a network interface
  of the VPC (``aws ec2 describe-network-interfaces`` lists them, with InterfaceType ``efa``/``efa-only``).
* EC2 On-Demand vCPUs: the EC2 user guide's service quotas page,
  https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-resource-limits.html, and the EKS Best Practices
  table above (Standard: L-1216C47A) name one vCPU quota per family class. AWS publishes no default that an
  account can rely on for them: an account's starting value is set per account and grows with its use (the
  Best Practices table and the AWS CLI's get-aws-default-service-quota example give 5 for Standard). No AWS
  page read lists the P, G, Trn and Inf codes: they are the codes trainstack's preflight has read since it was
  written, and they match the quota names in published ListAWSDefaultServiceQuotas listings (third-party
  copies, which is why no default of theirs is taken). So every vCPU default is ``None`` here: the plan says
  the need with the code, and only the preflight judges it, against the account's value.
* Placement groups: https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-groups.html and its rules
  and limitations: 500 placement groups per account per Region (no Service Quotas code), and no cap on the
  instances or EFA interfaces of a cluster placement group (what a large one meets is capacity,
  InsufficientInstanceCapacity, not a quota). A stack makes at most one placement group per node group, which
  cannot approach 500: no row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .model import InstanceType

READ = "2026-11-27"
"""When the sources above were read."""


@dataclass(frozen=True)
class ServiceQuota:
    """One AWS quota as Service Quotas names it."""

    service_code: str
    """Service Quotas' ``ServiceCode`` (``eks``, ``vpc``, ``ec2``)."""
    code: str
    """Its ``QuotaCode`` (``L-...``)."""
    name: str
    """Its name in the Service Quotas console."""
    default: Optional[int]
    """AWS's published default; None where AWS publishes none an account can rely on."""
    scope: str
    """What one value of the quota covers (``per cluster``, ``per Region``)."""
    source: str
    """The page the default and code were read from (on :data:`READ`)."""

    @property
    def title(self) -> str:
        return f"{self.name} ({self.code})"


EKS_QUOTAS_PAGE = "https://docs.aws.amazon.com/eks/latest/userguide/service-quotas.html"
VPC_QUOTAS_PAGE = "https://docs.aws.amazon.com/eks/latest/best-practices/known_limits_and_service_quotas.html"
EC2_QUOTAS_PAGE = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-resource-limits.html"

MANAGED_NODE_GROUPS_PER_CLUSTER = ServiceQuota("eks", "L-6D54EA21", "Managed node groups per cluster", 30,
                                               "per cluster", EKS_QUOTAS_PAGE)
NODES_PER_MANAGED_NODE_GROUP = ServiceQuota("eks", "L-BD136A63", "Nodes per managed node group", 450,
                                            "per managed node group", EKS_QUOTAS_PAGE)
NETWORK_INTERFACES_PER_REGION = ServiceQuota("vpc", "L-DF5E4CA3", "Network interfaces per Region", 5000,
                                             "per Region", VPC_QUOTAS_PAGE)

VCPU_QUOTAS = {
    "p": ServiceQuota("ec2", "L-417A185B", "Running On-Demand P instances", None, "vCPUs per Region",
                      EC2_QUOTAS_PAGE),
    "g": ServiceQuota("ec2", "L-DB2E81BA", "Running On-Demand G and VT instances", None, "vCPUs per Region",
                      EC2_QUOTAS_PAGE),
    "trn": ServiceQuota("ec2", "L-2C3B7624", "Running On-Demand Trn instances", None, "vCPUs per Region",
                        EC2_QUOTAS_PAGE),
    "inf": ServiceQuota("ec2", "L-1945791B", "Running On-Demand Inf instances", None, "vCPUs per Region",
                        EC2_QUOTAS_PAGE),
    "standard": ServiceQuota("ec2", "L-1216C47A", "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances",
                             None, "vCPUs per Region", EC2_QUOTAS_PAGE),
}
"""EC2's On-Demand vCPU quota of each family class trainstack's types fall in."""


def vcpu_quota(instance: InstanceType) -> ServiceQuota:
    """The On-Demand vCPU quota ``instance``'s family counts against."""
    family = instance.family
    for prefix in ("trn", "inf", "p", "g"):
        if family.startswith(prefix):
            return VCPU_QUOTAS[prefix]
    return VCPU_QUOTAS["standard"]
