"""Reserved capacity priced as AWS bills it: what a group's reservation or capacity block costs whether
nodes run in it or not.

An On-Demand Capacity Reservation is billed at the On-Demand rate for every reserved instance while it is
active; a Capacity Block is paid up front for its whole duration at the block's rate. Instances launched
into either are covered by it, so a reserved group is priced as its reservation: the nodes the group runs
(in use) plus the reserved instances it does not run (idle), which together are always the reservation's
instance count. The group's settings reach the estimate through its component's ``capacity`` property
(``nodegroups.launch_template.capacity_record``): the reservation itself is no resource of the stack.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Optional

from .prices import (
    CAPACITY_BLOCK_BILLING,
    CAPACITY_BLOCK_OS_FEE_UNPRICED,
    CAPACITY_BLOCK_UNPRICED,
    HOURS_PER_MONTH,
    ODCR_BILLING,
)

IDLE = "idle-reserved"
"""The kind of the line that prices reserved instances the group does not run."""


@dataclass(frozen=True)
class Reserved:
    """A group's reservation or capacity block, as its component records it."""

    kind: str
    """``reservation`` or ``capacityBlock``."""
    target: str
    """The reservation id (``cr-…``) or the resource group ARN it targets."""
    instance_type: str
    instances: int
    starts_at: Optional[datetime]
    ends_at: Optional[datetime]
    offered_usd: Optional[float] = None
    """A block the stack buys: the up-front fee its offering lists (``capacity.purchase.upfrontFeeUsd``)."""

    @classmethod
    def from_record(cls, record: Optional[dict[str, Any]]) -> Optional[Reserved]:
        if not record or record.get("type") not in ("reservation", "capacityBlock"):
            return None
        purchase = record.get("purchase") or {}
        target = record.get("reservationId") or record.get("resourceGroupArn") or (
            f"to buy (offering {purchase.get('offeringId')})")
        return cls(record["type"], str(target), str(record.get("instanceType")), int(record.get("instanceCount") or 0),
                   _moment(record.get("startsAt")), _moment(record.get("endsAt")), purchase.get("upfrontFeeUsd"))

    @property
    def label(self) -> str:
        return f"{'capacity block' if self.kind == 'capacityBlock' else 'reservation'} {self.target}"

    @property
    def hours(self) -> Optional[float]:
        """The block's duration in hours, when both ends are known."""
        if self.starts_at is None or self.ends_at is None:
            return None
        return (self.ends_at - self.starts_at).total_seconds() / 3600

    @property
    def hours_in_month(self) -> float:
        """The hours of a month of 730 it bills: its whole duration when that is shorter (a 48-hour block costs 48
        hours, never 730), else the month. A block's duration is known once ``startsAt`` is set."""
        hours = self.hours
        return HOURS_PER_MONTH if hours is None else min(hours, HOURS_PER_MONTH)

    def rate(self, on_demand_usd: Optional[float], on_demand_source: str,
             region: str) -> tuple[Optional[float], str]:
        """(US$ per instance-hour, where it was read): the On-Demand rate for a reservation; for a capacity block,
        its offering's up-front fee over its instance-hours, else no rate (``prices.CAPACITY_BLOCK_UNPRICED``)."""
        if self.kind == "reservation":
            return on_demand_usd, f"{on_demand_source}; {ODCR_BILLING}"
        if self.offered_usd is not None and self.hours and self.instances:
            # What is bought is what the offering lists, whatever the published rate table says.
            return (self.offered_usd / (self.hours * self.instances),
                    f"the offering's up-front fee, {self.offered_usd:,.2f} USD (capacity.purchase.upfrontFeeUsd, "
                    f"as DescribeCapacityBlockOfferings lists it); {CAPACITY_BLOCK_BILLING}")
        return None, f"{self.instance_type} in {region}: {CAPACITY_BLOCK_UNPRICED}"


@dataclass(frozen=True)
class Commitment:
    """A capacity block, said once: its instances, dates, hourly cost and up-front total."""

    reserved: Reserved
    usd_per_instance_hour: Optional[float]
    source: str

    @property
    def hourly(self) -> Optional[float]:
        rate = self.usd_per_instance_hour
        return None if rate is None else rate * self.reserved.instances

    @property
    def upfront(self) -> Optional[float]:
        hours, hourly = self.reserved.hours, self.hourly
        return None if hours is None or hourly is None else hours * hourly

    def as_dict(self) -> dict[str, Any]:
        r = self.reserved
        return {"reservationId": r.target, "instanceType": r.instance_type, "instances": r.instances,
                "startsAt": _text(r.starts_at), "endsAt": _text(r.ends_at), "hours": r.hours,
                "usdPerHour": _round(self.hourly, 4), "upfrontUsd": _round(self.upfront, 2), "source": self.source,
                "notCounted": CAPACITY_BLOCK_OS_FEE_UNPRICED}

    def render(self) -> str:
        r = self.reserved
        per_hour = f"${self.hourly:,.2f}/h" if self.hourly is not None else "no published rate"
        if self.upfront is not None:
            total = (f"${self.upfront:,.2f} up front for {r.hours:g} h, {_text(r.starts_at)} to {_text(r.ends_at)}")
        else:
            total = f"up front total unknown: set capacity.startsAt (ends {_text(r.ends_at)})"
        return (f"  {r.label}: {r.instances} x {r.instance_type}, {per_hour}; {total}; "
                f"not counted: {CAPACITY_BLOCK_OS_FEE_UNPRICED}")


def _moment(value: Any) -> Optional[datetime]:
    return datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None


def _text(moment: Optional[datetime]) -> Optional[str]:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment is not None else None


def _round(value: Optional[float], digits: int) -> Optional[float]:
    return None if value is None else round(value, digits)
