"""Capacity Block offerings and extension offerings, read from EC2 with the user's credentials (read only).

EC2 API Reference, DescribeCapacityBlockOfferings (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/
API_DescribeCapacityBlockOfferings.html, read 2026-11-26): the blocks on sale for an instance type, count and
duration, each with its offering id, zone, start and end dates and ``UpfrontFee``; DescribeCapacityBlockExtension
Offerings (.../API_DescribeCapacityBlockExtensionOfferings.html): what an active block can be extended by. A
purchase (PurchaseCapacityBlock, PurchaseCapacityBlockExtension) is paid up front and cannot be cancelled (EC2 User
Guide, "Capacity Blocks pricing and billing", https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/
capacity-blocks-pricing-billing.html): nothing here buys; the listing says what a purchase would cost.

UltraServers are sold as whole units, each UltraServer one Capacity Block (EC2 User Guide, capacity-blocks-how.html,
read 2026-11-26). DescribeCapacityBlockOfferings takes ``UltraserverType`` and ``UltraserverCount`` for them, and
returns both on each offering (the pinned botocore 1.44.8 ``ec2/2016-11-15`` model, read 2026-11-26): with
``--ultraserver-type`` the search asks for ``--count`` whole UltraServers of that type and sends no
``InstanceCount``; ``InstanceType`` is sent too, since the model says the request needs it or
``InstanceTypePreferences``. Whether EC2 also accepts an UltraServer search by instance count alone is not said there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Optional, Protocol

from ..catalog import find as instance_type
from ..catalog.ultraservers import ULTRASERVERS

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
    ultraserver_type: Optional[str] = None
    """The offering's UltraServer type (``UltraserverType``), None for a block of single instances."""
    ultraserver_count: Optional[int] = None

    @property
    def per_instance_hour(self) -> Optional[float]:
        return per_instance_hour(self.upfront_fee, self.hours, self.instance_count)

    def as_dict(self) -> dict[str, Any]:
        return {"offeringId": self.offering_id, "instanceType": self.instance_type, "zone": self.zone,
                "instanceCount": self.instance_count, "startsAt": utc(self.starts), "endsAt": utc(self.ends),
                "hours": self.hours, "upfrontFee": self.upfront_fee, "currency": self.currency,
                "perInstanceHour": self.per_instance_hour,
                **({"ultraserverType": self.ultraserver_type, "ultraserverCount": self.ultraserver_count}
                   if self.ultraserver_type is not None else {})}

    def line(self) -> str:
        units = (f" ({self.ultraserver_count} x {self.ultraserver_type})" if self.ultraserver_type is not None
                 else "")
        return (f"{self.offering_id}  {self.zone}  {self.instance_count} x {self.instance_type}{units}  "
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


def check_ultraserver_query(name: str, ultraserver_type: str, count: int) -> None:
    """Refuse an UltraServer search EC2 could not answer: a unit trainstack does not know, one of another instance
    type, no units."""
    units = {u.name: u for u in ULTRASERVERS}
    unit = units.get(ultraserver_type)
    if unit is None:
        raise CapacityQueryError(f"--ultraserver-type {ultraserver_type}: not an UltraServer type trainstack knows. "
                                 f"Fix: name one of {', '.join(sorted(units))}.")
    if unit.instance_type != name:
        raise CapacityQueryError(f"--ultraserver-type {ultraserver_type} is made of {unit.instance_type}, not {name}. "
                                 f"Fix: set --instance-type {unit.instance_type}.")
    if count < 1:
        raise CapacityQueryError(f"--count {count}: with --ultraserver-type the count is whole UltraServers "
                                 f"({unit.instances} instances each). Fix: ask for 1 or more.")


def check_query(name: str, count: int, hours: int) -> None:
    """Refuse what EC2 would: a type the catalog does not sell as a block, a count outside 1..64, no hours."""
    entry = instance_type(name)
    if entry is None or not entry.capacity_block:
        raise CapacityQueryError(f"--instance-type {name}: the catalog has no Capacity Blocks for this type. Fix: "
                                 "name a type `trainstack catalog` lists with capacity blocks (p5.48xlarge, ...).")
    if not 1 <= count <= MAX_INSTANCES:
        raise CapacityQueryError(f"--count {count}: a Capacity Block holds 1 to {MAX_INSTANCES} instances. "
                                 f"Fix: ask for 1 to {MAX_INSTANCES}, and buy several blocks for more.")
    check_hours(hours)


def check_hours(hours: int) -> None:
    if hours < 1:
        raise CapacityQueryError(f"--hours {hours}: a block lasts at least an hour. Fix: give the duration in "
                                 "hours (24 for a day).")


def offerings(client: Any, name: str, count: int, hours: int, earliest: Optional[datetime] = None,
              latest: Optional[datetime] = None, ultraserver_type: Optional[str] = None) -> list[Offering]:
    """Every block on sale for ``count`` ``name`` instances (``count`` UltraServers of ``ultraserver_type`` when
    given) for ``hours``, page by page, cheapest first."""
    request: dict[str, Any] = {"InstanceType": name, "CapacityDurationHours": hours}
    if ultraserver_type is None:
        check_query(name, count, hours)
        request["InstanceCount"] = count
    else:
        check_ultraserver_query(name, ultraserver_type, count)
        check_hours(hours)
        request.update({"UltraserverType": ultraserver_type, "UltraserverCount": count})
    if earliest is not None:
        request["StartDateRange"] = earliest
    if latest is not None:
        request["EndDateRange"] = latest
    found = [Offering(o["CapacityBlockOfferingId"], o["InstanceType"], o["AvailabilityZone"], o["InstanceCount"],
                      o["StartDate"], o["EndDate"], o["CapacityBlockDurationHours"], fee(o.get("UpfrontFee")),
                      o.get("CurrencyCode", "USD"), o.get("UltraserverType"), o.get("UltraserverCount"))
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
