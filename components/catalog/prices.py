"""Published on-demand Linux prices (USD per instance-hour).

us-east-1: the AWS Price List data that Karpenter generates and commits
(aws/karpenter-provider-aws, generated 2026-07-20), a primary source.
us-west-2: instances.vantage.sh data as of 2026-01-21, a secondary source; it
agrees with us-east-1 for every type listed in both. Karpenter's generated file is no source for
it: every version of zz_generated.pricing_aws.go (checked to 6fc13b5 and the 100 commits before it)
holds us-east-1 alone. A primary-derived source exists: SkyPilot's catalog
(skypilot-org/skypilot-catalog catalogs/v8/aws/vms.csv, written by sky/catalog/data_fetchers/fetch_aws.py
from AWS's Price List offer file pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/
<region>/index.csv, On-Demand Linux, shared tenancy). Its stored copy (commit 00148f2a, read
2026-11-26; the file states no date) agrees for the one us-west-2 row checked against this table
(g5.xlarge 1.006) and gives the us-east-1 rate in us-west-2 for g5.8xlarge and g5g.* too; the other
rows were not transcribed from it (3.6 MB, read 16 kB at a time), so the column stays vantage's, said
secondary, until ``trainstack prices refresh --region us-west-2`` replaces it with a dated snapshot.

Types with no published on-demand price (p5e.48xlarge and trn2.* are sold through
Capacity Blocks; p6e-gb200 as UltraServers) have no
entry, and cost reports must say "no published price" for them, never zero.
c5/m5 prices for us-west-2 were only inferred by parity in the research, so they
are left out rather than invented.

Types the catalog gained from the generated EC2 data are priced in us-east-1 only,
from the same Price List file (karpenter-provider-aws commit 6fc13b5, "generated at
2026-07-20T13:44:30Z for us-east-1"), which agrees with every us-east-1 price above;
no us-west-2 source was checked for them, so they have none there.
"""

from __future__ import annotations

import json
import os
from datetime import date, datetime
from pathlib import Path

from .model import Price

_PRICE_LIST = ("AWS Price List via aws/karpenter-provider-aws zz_generated.pricing_aws.go", date(2026, 7, 20))
_VANTAGE = ("instances.vantage.sh data (secondary)", date(2026, 1, 21))

ON_DEMAND_TABLE: dict[str, list[float | None]] = json.loads(
    Path(__file__).with_name("on_demand_prices.json").read_text())["usd_per_hour"]
"""name: [us-east-1, us-west-2], None where no price is published for that region: the one
table an instance type's price is added to."""


def _prices(us_east_1: float | None, us_west_2: float | None) -> tuple[Price, ...]:
    prices = []
    if us_east_1 is not None:
        prices.append(Price(us_east_1, "us-east-1", _PRICE_LIST[1], _PRICE_LIST[0]))
    if us_west_2 is not None:
        prices.append(Price(us_west_2, "us-west-2", _VANTAGE[1], _VANTAGE[0]))
    return tuple(prices)


SNAPSHOTS_VARIABLE = "TRAINSTACK_PRICES"
"""Paths (``os.pathsep``-separated) of snapshots ``trainstack prices refresh`` wrote: their rates replace
the committed ones in their region, each with the snapshot's date and source."""


def with_snapshots(prices: dict[str, tuple[Price, ...]], paths: list[Path]) -> dict[str, tuple[Price, ...]]:
    """``prices`` with each snapshot's rates in place of the committed ones of its region."""
    merged = dict(prices)
    for path in paths:
        document = json.loads(path.read_text())
        region, source = document["region"], f"{document['source']}, snapshot {path.name}"
        fetched = datetime.strptime(document["fetchedAt"], "%Y-%m-%dT%H:%M:%SZ").date()
        for name, usd in document["usdPerHour"].items():
            if usd is None:
                continue
            kept = tuple(p for p in merged.get(name, ()) if p.region != region)
            merged[name] = (*kept, Price(float(usd), region, fetched, source))
    return merged


ON_DEMAND: dict[str, tuple[Price, ...]] = with_snapshots(
    {name: _prices(*hourly) for name, hourly in ON_DEMAND_TABLE.items()},
    [Path(p) for p in os.environ.get(SNAPSHOTS_VARIABLE, "").split(os.pathsep) if p])
