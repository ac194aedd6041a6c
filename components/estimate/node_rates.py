"""What one node of a group costs per hour, for the costs that are counted in nodes rather than in planned
resources: a team's Kueue quota and a launched job (nodes x rate). The rate is the one the cost estimate
uses for the same node: the catalog's On-Demand rate (a reservation bills its instances at it), a Capacity
Block's published rate, or HyperPod's ml.* rate."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .. import catalog
from .prices import CAPACITY_BLOCK, HOURS_PER_MONTH, HYPERPOD


@dataclass(frozen=True)
class NodeRate:
    usd_per_hour: Optional[float]
    source: str

    def hourly(self, nodes: int) -> Optional[float]:
        return None if self.usd_per_hour is None else nodes * self.usd_per_hour

    def said(self, nodes: int) -> str:
        """``$330.24/h, $241,075/month`` for ``nodes`` nodes, or why there is no figure."""
        hourly = self.hourly(nodes)
        if hourly is None:
            return f"no price: {self.source}"
        return f"${hourly:,.2f}/h, ${hourly * HOURS_PER_MONTH:,.0f}/month"


def node_rate(instance_type: str, region: str, capacity_type: str = "none") -> NodeRate:
    """One node's rate in ``region``; ``capacity_type`` as the outputs contract says it."""
    if instance_type.startswith("ml."):
        hyperpod = HYPERPOD.get((instance_type, region))
        return (NodeRate(hyperpod.usd, f"{hyperpod.source}, {hyperpod.valid_on}") if hyperpod
                else NodeRate(None, f"no published price for {instance_type} in {region}"))
    if capacity_type == "capacityBlock":
        block = CAPACITY_BLOCK.get((instance_type, region))
        return (NodeRate(block.usd, f"{block.source}, {block.valid_on}") if block
                else NodeRate(None, f"no published Capacity Block rate for {instance_type} in {region}"))
    entry = catalog.find(instance_type)
    price = entry.price(region) if entry else None
    return (NodeRate(price.usd_per_hour, f"{price.source}, {price.valid_on}") if price
            else NodeRate(None, f"no published price for {instance_type} in {region}"))
