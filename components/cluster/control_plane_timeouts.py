"""How long `pulumi up` waits for the EKS control plane: the plan's estimate with its margin (catalog/timeouts.py).

pulumi-eks's ``Cluster`` (4.4.0, pinned) makes the ``aws:eks/cluster:Cluster`` itself and takes no timeouts: its
``ClusterArgs`` (sdk python pulumi_eks/cluster.py) has no argument for them. So they go on through the ``transforms``
resource option, as the Provisioned Control Plane tier does (control_plane_tier.py): the engine calls each transform
for the component's children, packaged components' included, and "The callback returns a new set of resource input
properties and resource options that will be used to construct the resource instead of the original values"
(pulumi.com/docs/iac/concepts/resources/options/transforms/, read 2026-11-29). Custom timeouts are among the options
the Python SDK takes from the engine and hands back (pulumi 3.272.0, pulumi/runtime/_callbacks.py:
``_resource_options`` and ``_transformation_resource_options`` carry ``custom_timeouts``).

The offline plan records pulumi-eks's component, not its children: the transform rides on the component's
registration, and ``tests/catalog/test_timeouts.py`` applies what each shipped stack registers to the child.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Optional

import pulumi

from ..names import EKS_CLUSTER


def timeouts_transform(timeouts: Mapping[str, str]) -> pulumi.ResourceTransform:
    """A transform that sets ``timeouts`` (``{"create": "50m", ...}``) on the EKS cluster among a component's children
    and leaves every other resource, and every other option of the cluster, as it is."""

    def set_timeouts(args: pulumi.ResourceTransformArgs) -> Optional[pulumi.ResourceTransformResult]:
        if args.type_ != EKS_CLUSTER:
            return None
        timed = pulumi.ResourceOptions(custom_timeouts=pulumi.CustomTimeouts(**timeouts))
        return pulumi.ResourceTransformResult(props=args.props, opts=pulumi.ResourceOptions.merge(args.opts, timed))

    return set_timeouts
