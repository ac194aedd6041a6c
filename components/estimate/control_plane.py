"""The EKS control plane sized for the stack: a Provisioned Control Plane tier recommended from its node and pod
counts, the configured tier judged against it (a warning, never a refusal), and what each tier costs.

What each tier is sized for, from the EKS User Guide, Amazon EKS Provisioned Control Plane
(docs.aws.amazon.com/eks/latest/userguide/eks-provisioned-control-plane.html; its source
awsdocs/amazon-eks-user-guide latest/ug/clusters/eks-provisioned-control-plane-introduction.adoc @ e22f3b4, read
2026-11-28), "EKS v1.30 and later" table, the versions trainstack deploys (config/cluster.py EKS_VERSIONS):

    tier      API request concurrency (seats)   pod scheduling rate (pods/s)   cluster database (GB)
    XL        1,700                              167                            16
    2XL       3,400                              283                            16
    4XL       6,800                              400                            16

The same page: standard mode scales on its own, guarantees none of these figures and holds up to 8 GB of etcd;
"larger than 4XL": ask the AWS account team. So tier-8xl, which the API and the pinned pulumi-aws accept, has no
published capacity here. The page's own advice for picking a tier is a load test on the highest tier.

How the stack's counts become a tier (trainstack's rule; the page gives capacities, not node counts):

* Nodes: every accelerated group at its maxSize, plus the system nodes at theirs.
* Pods that arrive together: when a capacity block opens or the autoscaler grows the groups, every node joins with
  its DaemonSet pods, and the job spanning them is admitted by Kueue as one gang; the launchers run one pod per node.
  So each accelerated node brings 1 launcher pod + its DaemonSets; each system node its DaemonSets
  (analysis/control_plane.py counts them from the stack). Deployments (CoreDNS, operators) and optional add-ons
  (storage drivers, exporters) are not counted, so the count is a floor.
* Of the page's three figures, the pod scheduling rate is the one these counts decide: the recommendation is the
  smallest tier whose rate binds all those pods within ``BURST_SECONDS``. API concurrency depends on the clients,
  not the counts, and the database size on object sizes; neither is guessed.
* Standard mode is taken at the upstream kube-scheduler's default client rate, 50 requests/s (kubernetes/kubernetes
  pkg/scheduler/apis/config/v1/defaults.go, SetDefaults_KubeSchedulerConfiguration: ClientConnection.QPS 50,
  Burst 100), each binding being one request: EKS publishes no rate for it. The page says 4XL's "default scheduler
  QPS is set to 400", i.e. a tier's rate is its scheduler's client rate, the same measure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Optional

GUIDE = ("docs.aws.amazon.com/eks/latest/userguide/eks-provisioned-control-plane.html "
         "(EKS v1.30 and later, read 2026-11-28)")
UPSTREAM_SCHEDULER = "kubernetes/kubernetes pkg/scheduler/apis/config/v1/defaults.go (ClientConnection.QPS 50)"

BURST_SECONDS = 60
"""How long trainstack lets the scheduler take to bind a whole-stack burst (every node joining with its DaemonSet
pods, and the job spanning them). A decision, not an AWS figure: a minute keeps scheduling a small part of a
training job's start, which on p5 is dominated by the nodes' boot and the image pull."""


@dataclass(frozen=True)
class Tier:
    name: str
    """The EKS API's value (ControlPlaneScalingConfig.tier)."""
    pods_per_second: Optional[int]
    """Pods the scheduler binds per second; None where no figure is published (tier-8xl)."""
    seats: Optional[int]
    """API request concurrency (APF seats); None where the guide gives none."""
    database_gb: int
    source: str


TIERS: tuple[Tier, ...] = (
    Tier("standard", 50, None, 8, f"{UPSTREAM_SCHEDULER}; EKS guarantees no rate in standard mode, 8 GB etcd: {GUIDE}"),
    Tier("tier-xl", 167, 1700, 16, GUIDE),
    Tier("tier-2xl", 283, 3400, 16, GUIDE),
    Tier("tier-4xl", 400, 6800, 16, GUIDE),
    Tier("tier-8xl", None, None, 16, f"{GUIDE}: no figures above 4XL (\"contact your account team\")"),
)
"""The tiers, smallest first, with what each is sized for."""

BY_NAME = {tier.name: tier for tier in TIERS}

TIER_UNPRICED = (
    "no dated primary price found for the EKS Provisioned Control Plane tiers: the EKS User Guide bills each tier "
    "per hour on top of the cluster fee and points to aws.amazon.com/eks/pricing, whose stored copies carry no tier "
    "table (searched 2026-11-28: the pricing page, the EKS User Guide, the AWS Containers blog's launch post, the "
    "EKS API reference; only third-party estimates were found)")
"""Why a provisioned tier's cost line has no price. Standard mode adds nothing (the CDK's ControlPlaneScalingTier,
docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.aws_eks.ControlPlaneScalingTier.html: "default, no additional
cost"), so it has no line."""


@dataclass(frozen=True)
class ControlPlaneSizing:
    """The control plane section of a plan: the stack's counts, the recommended tier, the configured one."""

    key: ClassVar[str] = "controlPlane"

    nodes: int
    burst_pods: int
    configured: Optional[str]
    recommended: Tier

    @property
    def pods_per_second_needed(self) -> float:
        return self.burst_pods / BURST_SECONDS

    @property
    def below(self) -> bool:
        """The configured tier (unset: standard) is smaller than the recommendation."""
        return rank(self.configured or "standard") < rank(self.recommended.name)

    @property
    def warnings(self) -> list[str]:
        if not self.below:
            return []
        return [f"eks.controlPlaneTier is {self.configured or 'unset (standard)'}, below the recommended "
                f"{self.recommended.name}: {self.burst_pods:,} pods arrive together on {self.nodes:,} nodes, "
                f"{self.pods_per_second_needed:.0f} pods/s to bind them within {BURST_SECONDS} s. "
                f"Set eks.controlPlaneTier: {self.recommended.name}, or accept slower starts at full size."]

    def as_dict(self) -> dict[str, Any]:
        return {"nodes": self.nodes, "burstPods": self.burst_pods, "burstSeconds": BURST_SECONDS,
                "podsPerSecondNeeded": round(self.pods_per_second_needed, 1), "configured": self.configured,
                "recommended": self.recommended.name, "warnings": self.warnings,
                "tiers": [{"tier": t.name, "podsPerSecond": t.pods_per_second, "seats": t.seats,
                           "databaseGb": t.database_gb, "source": t.source} for t in TIERS]}

    def render(self) -> str:
        rate = self.recommended.pods_per_second
        lines = [f"Control plane (EKS Provisioned Control Plane): {self.nodes:,} nodes at max size, "
                 f"{self.burst_pods:,} pods arriving together ({self.pods_per_second_needed:.0f} pods/s within "
                 f"{BURST_SECONDS} s)",
                 f"  recommended: {self.recommended.name} "
                 f"({f'{rate} pods/s' if rate else 'no published rate; the largest tier'}; {self.recommended.source})",
                 f"  configured: {self.configured or 'unset (standard)'}"]
        return "\n".join(lines + [f"  warning: {w}" for w in self.warnings])


def rank(tier: str) -> int:
    return [t.name for t in TIERS].index(tier)


def recommend(pods: int) -> Tier:
    """The smallest tier whose scheduling rate binds ``pods`` within ``BURST_SECONDS``; past every published rate,
    the largest tier."""
    needed = pods / BURST_SECONDS
    return next((t for t in TIERS if t.pods_per_second is not None and t.pods_per_second >= needed), TIERS[-1])
