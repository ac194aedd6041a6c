"""The catalog as ``trainstack catalog`` lists it: a row per instance type with its on-demand price
in one region."""

from __future__ import annotations

from typing import Any

from . import regions
from .instances import INSTANCE_TYPES


def price_key(region: str) -> str:
    """The JSON key of a row's price: ``usdPerHourUsEast1`` for us-east-1 (the key the listing always had)."""
    return "usdPerHour" + "".join(part.capitalize() for part in region.split("-"))


def listing(region: str) -> list[dict[str, Any]]:
    """One row per instance type: accelerators, EFA interfaces, max pods, HyperPod, the price in ``region``;
    a region AWS does not have is refused (:class:`.regions.UnknownRegionError`), not listed as unpriced."""
    regions.get(region)
    rows = []
    for entry in INSTANCE_TYPES:
        accelerator = entry.accelerator
        price = entry.price(region)
        rows.append({
            "instanceType": entry.name,
            "accelerator": f"{accelerator.count} x {accelerator.name}" if accelerator else "-",
            "efaInterfaces": "unknown" if entry.efa.max_interfaces is None else entry.efa.max_interfaces,
            "maxPods": "unknown" if entry.network.max_pods is None else entry.network.max_pods,
            "hyperpod": entry.hyperpod,
            price_key(region): price.usd_per_hour if price else "no published price",
        })
    return rows


def render_listing(rows: list[dict[str, Any]], region: str) -> str:
    """The rows as the text table ``trainstack catalog`` prints."""
    lines = [f"{'instance type':<20} {'accelerators':<18} {'EFA':>7} {'max pods':>8}  {'HyperPod':<8}  {region} $/h"]
    lines += [f"{row['instanceType']:<20} {row['accelerator']:<18} {row['efaInterfaces']!s:>7} "
              f"{row['maxPods']!s:>8}  {'yes' if row['hyperpod'] else 'no':<8}  {row[price_key(region)]}"
              for row in rows]
    return "\n".join(lines)
