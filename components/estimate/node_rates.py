"""What one node of a group costs per hour, for the costs that are counted in nodes rather than in planned
resources: a team's Kueue quota and a launched job (nodes x rate).

With the plan at hand (the queues section), a node's rate is the one the cost estimate's line for its group has
(``NodeRate.of_line``): the same rate and the same hours of a month, so the team figures and the cost section
cannot disagree. A launcher reads only the outputs contract: ``node_rate`` then prices a node as the estimate
does from what the contract says: the catalog's On-Demand rate (a reservation bills its instances at it),
HyperPod's ml.* rate, and no rate for a Capacity Block, whose price is its offering's fee."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from .. import catalog
from .prices import CAPACITY_BLOCK_UNPRICED, HOURS_PER_MONTH, HYPERPOD

if TYPE_CHECKING:
    from .cost import CostLine


@dataclass(frozen=True)
class NodeRate:
    usd_per_hour: Optional[float]
    source: str
    hours_in_month: float = HOURS_PER_MONTH
    """The hours of a month a node bills (fewer in a block that ends sooner), as its cost line counts them."""

    @classmethod
    def of_line(cls, line: CostLine) -> NodeRate:
        """The rate of one node the cost estimate's ``line`` prices."""
        return cls(line.unit_usd_per_hour, line.source, line.hours_in_month)

    def hourly(self, nodes: int) -> Optional[float]:
        return None if self.usd_per_hour is None else nodes * self.usd_per_hour

    def said(self, nodes: int) -> str:
        """``$330.24/h, $241,075/month`` for ``nodes`` nodes, or why there is no figure."""
        hourly = self.hourly(nodes)
        if hourly is None:
            return f"no price: {self.source}"
        return f"${hourly:,.2f}/h, ${hourly * self.hours_in_month:,.0f}/month"


def node_rate(instance_type: str, region: str, capacity_type: str = "none") -> NodeRate:
    """One node's rate in ``region``; ``capacity_type`` as the outputs contract says it."""
    if instance_type.startswith("ml."):
        hyperpod = HYPERPOD.get((instance_type, region))
        return (NodeRate(hyperpod.usd, f"{hyperpod.source}, {hyperpod.valid_on}") if hyperpod
                else NodeRate(None, f"no published price for {instance_type} in {region}"))
    if capacity_type == "capacityBlock":
        return NodeRate(None, f"{instance_type} in {region}: {CAPACITY_BLOCK_UNPRICED}")
    entry = catalog.find(instance_type)
    price = entry.price(region) if entry else None
    return (NodeRate(price.usd_per_hour, f"{price.source}, {price.valid_on}") if price
            else NodeRate(None, f"no published price for {instance_type} in {region}"))
