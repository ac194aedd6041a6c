"""A Karpenter pool on Spot, priced as a range: nothing while no pod asks, at most the On-Demand rate.

Karpenter launches Spot through EC2 Fleet without a maximum price, and "each EC2 Fleet can either include a
global maximum price, or use the default (the On-Demand price)" (EC2 User Guide, Maximum price overrides,
https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-fleet-price-overrides.html, read 2026-11-26); when
Spot has none, the pool falls back to On-Demand (its capacity types, nodegroups/karpenter_capacity.py). So
the On-Demand rate bounds what a node of the pool costs, and is what the estimate counts. The Spot price
itself changes by zone and hour (EC2 DescribeSpotPriceHistory); trainstack keeps no dated Spot figure, so
the line says it is an upper bound instead of guessing a discount.
"""

from __future__ import annotations

from typing import Any

from ..names import CAPACITY_TYPE_LABEL

SPOT_UPPER_BOUND = ("Spot: between the Spot price of the hour (EC2 DescribeSpotPriceHistory; no dated figure kept) "
                    "and this On-Demand rate, which is EC2 Fleet's default maximum price and the fallback "
                    "(docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-fleet-price-overrides.html, read 2026-11-26)")


def allows_spot(pool_inputs: dict[str, Any]) -> bool:
    """Whether a rendered NodePool lets Karpenter launch Spot."""
    template = ((pool_inputs.get("spec") or {}).get("template") or {}).get("spec") or {}
    return any(r.get("key") == CAPACITY_TYPE_LABEL and "spot" in (r.get("values") or [])
               for r in template.get("requirements") or [])


def spot_pricing(pool: str, instance_type: str, on_demand_source: str) -> tuple[str, str]:
    """(the line's item, its source) for a Spot pool priced at its upper bound."""
    return (f"{pool} ({instance_type}, Karpenter pool, Spot: at most)", f"{SPOT_UPPER_BOUND}; {on_demand_source}")
