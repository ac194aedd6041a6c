"""Capacity Block offerings and extension offerings, read from EC2 with the user's credentials (read only).

EC2 API Reference, DescribeCapacityBlockOfferings (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/
API_DescribeCapacityBlockOfferings.html, read 2026-11-26): the blocks on sale for an instance type, count and
duration, each with its offering id, zone, start and end dates and ``UpfrontFee``; DescribeCapacityBlockExtension
Offerings (.../API_DescribeCapacityBlockExtensionOfferings.html): what an active block can be extended by. A
purchase (PurchaseCapacityBlock, PurchaseCapacityBlockExtension) is paid up front and cannot be cancelled (EC2 User
Guide, "Capacity Blocks pricing and billing", https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/
capacity-blocks-pricing-billing.html): nothing here buys; the listing says what a purchase would cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Optional, Protocol

from ..catalog import find as instance_type

# DescribeCapacityBlockOfferings: "InstanceCount ... The number of instances for which to reserve capacity"; EC2
# sells a block of 1 to 64 instances (config.nodegroups.CAPACITY_BLOCK_MAX_INSTANCES, the same limit).
MAX_INSTANCES = 64


class CapacityQueryError(ValueError):
    """An argument EC2 would refuse, said before asking it: the option, the value and the fix."""


@dataclass(frozen=True)
class Offering:
    """One block, or one extension of a block, on sale."""

    offering_id: str
    instance_type: str
    zone: str
    instance_count: int
    starts: datetime
    ends: datetime
    hours: int
    upfront_fee: Optional[float]
    currency: str

    @property
    def per_instance_hour(self) -> Optional[float]:
        return per_instance_hour(self.upfront_fee, self.hours, self.instance_count)

    def as_dict(self) -> dict[str, Any]:
        return {"offeringId": self.offering_id, "instanceType": self.instance_type, "zone": self.zone,
                "instanceCount": self.instance_count, "startsAt": utc(self.starts), "endsAt": utc(self.ends),
                "hours": self.hours, "upfrontFee": self.upfront_fee, "currency": self.currency,
                "perInstanceHour": self.per_instance_hour}

    def line(self) -> str:
        return (f"{self.offering_id}  {self.zone}  {self.instance_count} x {self.instance_type}  "
                f"{utc(self.starts)} to {utc(self.ends)} ({self.hours} h)")


def per_instance_hour(upfront_fee: Optional[float], hours: int, instances: int) -> Optional[float]:
    """An up-front fee spread over its instance-hours, to set beside the on-demand rate; None where one is missing."""
    if upfront_fee is None or not hours or not instances:
        return None
    return upfront_fee / (hours * instances)


def utc(moment: datetime) -> str:
    return f"{moment:%Y-%m-%dT%H:%M:%SZ}"


def fee(text: Optional[str]) -> Optional[float]:
    return float(text) if text not in (None, "") else None


def check_query(name: str, count: int, hours: int) -> None:
    """Refuse what EC2 would: a type the catalog does not sell as a block, a count outside 1..64, no hours."""
    entry = instance_type(name)
    if entry is None or not entry.capacity_block:
        raise CapacityQueryError(f"--instance-type {name}: the catalog has no Capacity Blocks for this type. Fix: "
                                 "name a type `trainstack catalog` lists with capacity blocks (p5.48xlarge, ...).")
    if not 1 <= count <= MAX_INSTANCES:
        raise CapacityQueryError(f"--count {count}: a Capacity Block holds 1 to {MAX_INSTANCES} instances. "
                                 f"Fix: ask for 1 to {MAX_INSTANCES}, and buy several blocks for more.")
    if hours < 1:
        raise CapacityQueryError(f"--hours {hours}: a block lasts at least an hour. Fix: give the duration in "
                                 "hours (24 for a day).")


def offerings(client: Any, name: str, count: int, hours: int, earliest: Optional[datetime] = None,
              latest: Optional[datetime] = None) -> list[Offering]:
    """Every block on sale for ``count`` ``name`` instances for ``hours``, page by page, cheapest first."""
    check_query(name, count, hours)
    request: dict[str, Any] = {"InstanceType": name, "InstanceCount": count, "CapacityDurationHours": hours}
    if earliest is not None:
        request["StartDateRange"] = earliest
    if latest is not None:
        request["EndDateRange"] = latest
    found = [Offering(o["CapacityBlockOfferingId"], o["InstanceType"], o["AvailabilityZone"], o["InstanceCount"],
                      o["StartDate"], o["EndDate"], o["CapacityBlockDurationHours"], fee(o.get("UpfrontFee")),
                      o.get("CurrencyCode", "USD"))
             for o in _pages(client.describe_capacity_block_offerings, request, "CapacityBlockOfferings")]
    return sorted(found, key=lambda o: (o.upfront_fee is None, o.upfront_fee or 0.0, o.starts))


def extension_offerings(client: Any, reservation_id: str, hours: int) -> list[Offering]:
    """What the block ``reservation_id`` can be extended by for ``hours``; each offering's dates are the
    extension's own (it starts where the block ends)."""
    if not reservation_id.startswith("cr-"):
        raise CapacityQueryError(f"--reservation-id {reservation_id}: not a Capacity Block id. Fix: give the "
                                 "block's cr-... id (aws ec2 describe-capacity-reservations).")
    request = {"CapacityReservationId": reservation_id, "CapacityBlockExtensionDurationHours": hours}
    return [Offering(o["CapacityBlockExtensionOfferingId"], o["InstanceType"], o["AvailabilityZone"],
                     o["InstanceCount"], o["CapacityBlockExtensionStartDate"], o["CapacityBlockExtensionEndDate"],
                     o["CapacityBlockExtensionDurationHours"], fee(o.get("UpfrontFee")), o.get("CurrencyCode", "USD"))
            for o in _pages(client.describe_capacity_block_extension_offerings, request,
                            "CapacityBlockExtensionOfferings")]


def _pages(call: Any, request: dict[str, Any], key: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    token: Optional[str] = None
    while True:
        page = call(**request, **({"NextToken": token} if token else {}))
        items += page.get(key) or []
        token = page.get("NextToken")
        if not token:
            return items


class Listed(Protocol):
    """An offering as listed: a block, an extension, a training plan."""

    upfront_fee: Optional[float]
    currency: str

    @property
    def per_instance_hour(self) -> Optional[float]: ...

    def line(self) -> str: ...


def render(found: Sequence[Listed], what: str, terms: str = "paid up front when bought, never refunded") -> str:
    """The listing: one line per offering, with its fee and rate, and what buying one means (``terms``)."""
    if not found:
        return f"no {what} on sale for this request"
    lines = [f"{len(found)} {what} on sale ({terms}):"]
    for o in found:
        price = f"{o.upfront_fee:,.2f} {o.currency}" if o.upfront_fee is not None else "fee not given"
        rate = f" ({o.per_instance_hour:,.2f} per instance-hour)" if o.per_instance_hour is not None else ""
        lines.append(f"  {o.line()}  {price}{rate}")
    return "\n".join(lines)


def offering_still_on_sale(client: Any, name: str, count: int, starts: datetime, ends: datetime, offering_id: str,
                           fee_usd: float) -> tuple[Literal["pass", "fail"], str]:
    """(status, reason) of a block the stack buys: is its offering still on sale for the declared dates and fee?
    An offering gone or repriced fails, so ``pulumi up`` does not buy other than what the pull request approved."""
    hours = round((ends - starts).total_seconds() / 3600)
    found = {o.offering_id: o for o in offerings(client, name, count, hours, starts)}
    offering = found.get(offering_id)
    if offering is None:
        return "fail", (f"{offering_id} is no longer on sale for {count} x {name}, {hours} h from {utc(starts)}: "
                        "list what is (`trainstack capacity offerings`) and set capacity.purchase to one")
    if (offering.starts, offering.ends) != (starts, ends):
        return "fail", (f"{offering_id} runs {utc(offering.starts)} to {utc(offering.ends)}; the stack declares "
                        f"{utc(starts)} to {utc(ends)}: set startsAt and endsAt as EC2 lists them")
    if offering.upfront_fee != fee_usd:
        return "fail", (f"{offering_id} now costs {offering.upfront_fee} {offering.currency}; the stack declares "
                        f"{fee_usd}: set capacity.purchase.upfrontFeeUsd to the fee, and have it approved again")
    return "pass", f"{offering_id} on sale: {fee_usd:,.2f} USD up front, {utc(starts)} to {utc(ends)}"
