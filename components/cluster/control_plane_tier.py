"""The EKS Provisioned Control Plane tier, set on the cluster pulumi-eks makes.

pulumi-aws's ``aws.eks.Cluster`` takes ``controlPlaneScalingConfig: {tier}`` (pulumi-aws 7.51.1, the pinned
provider: ClusterControlPlaneScalingConfigArgs), but pulumi-eks's ``Cluster`` (4.4.0, pinned) has no argument for it:
its component builds the ``aws:eks/cluster:Cluster`` itself and passes a fixed list of inputs
(pulumi/pulumi-eks nodejs/eks/cluster/cluster.ts, ``new aws.eks.Cluster(...)``, read at the snapshot of 2026-08-12:
upgradePolicy and deletionProtection, no scaling config). The supported way to set an input a packaged component
does not expose is the ``transforms`` resource option: the engine runs it on the component's children, packaged
(multi-language) components included, which the older ``transformations`` cannot reach
(pulumi.com/docs/iac/concepts/resources/options/transforms/ and .../transformations/, read 2026-11-28).
A transform sees a child's inputs by their engine names (camelCase), so it sets ``controlPlaneScalingConfig``.

The offline plan does not run transforms (Pulumi's mock monitor records them only) and sees a remote component as
its inputs, so the tier is also recorded on the GpuEksCluster component's inputs (``CONTROL_PLANE_TIER_INPUT``):
that is what the cost estimate and the plan read.
"""

from __future__ import annotations

from typing import Optional

import pulumi

from ..names import EKS_CLUSTER

CONTROL_PLANE_TIER_INPUT = "controlPlaneTier"
"""The GpuEksCluster component's input that records the tier set on its cluster (absent when unset)."""


def scaling_tier_transform(tier: str) -> pulumi.ResourceTransform:
    """A transform that sets ``tier`` on the EKS cluster among a component's children and leaves every other
    resource as it is."""

    def set_tier(args: pulumi.ResourceTransformArgs) -> Optional[pulumi.ResourceTransformResult]:
        if args.type_ != EKS_CLUSTER:
            return None
        return pulumi.ResourceTransformResult(
            props={**args.props, "controlPlaneScalingConfig": {"tier": tier}}, opts=args.opts)

    return set_tier
