"""Published on-demand Linux prices (USD per instance-hour).

us-east-1: the AWS Price List data that Karpenter generates and commits
(aws/karpenter-provider-aws, generated 2026-07-20), a primary source.
us-west-2: instances.vantage.sh data as of 2026-01-21, a secondary source; it
agrees with us-east-1 for every type listed in both.

Types with no published on-demand price (p5e.48xlarge and trn2.* are sold through
Capacity Blocks; g5 sizes not in either table; p6e-gb200 as UltraServers) have no
entry, and cost reports must say "no published price" for them, never zero.
c5/m5 prices for us-west-2 were only inferred by parity in the research, so they
are left out rather than invented.
"""

from __future__ import annotations

from datetime import date

from .model import Price

_PRICE_LIST = ("AWS Price List via aws/karpenter-provider-aws zz_generated.pricing_aws.go", date(2026, 7, 20))
_VANTAGE = ("instances.vantage.sh data (secondary)", date(2026, 1, 21))

# name: (us-east-1, us-west-2); None where no price is published for that region.
_HOURLY: dict[str, tuple[float | None, float | None]] = {
    "p4d.24xlarge": (21.957642, 21.95764),
    "p4de.24xlarge": (27.44705, 27.44705),
    "p5.4xlarge": (6.88, 6.88),
    "p5.48xlarge": (55.04, 55.04),
    "p5en.48xlarge": (63.296, 63.296),
    "p6-b200.48xlarge": (113.9328, 113.9328),
    "p6-b300.48xlarge": (142.416, 142.416),
    "g5.xlarge": (1.006, 1.006),
    "g5.2xlarge": (1.212, 1.212),
    "g5.12xlarge": (5.672, 5.672),
    "g5.48xlarge": (16.288, 16.288),
    "g6.48xlarge": (13.3504, 13.3504),
    "g6e.48xlarge": (30.13118, 30.13118),
    "trn1.2xlarge": (1.34375, 1.34375),
    "trn1.32xlarge": (21.5, 21.5),
    "trn1n.32xlarge": (24.78, 24.78),
    "inf2.48xlarge": (12.98127, 12.98127),
    "c5.xlarge": (0.17, None),
    "c5.2xlarge": (0.34, None),
    "m5.xlarge": (0.192, None),
    "m5.2xlarge": (0.384, None),
}


def _prices(us_east_1: float | None, us_west_2: float | None) -> tuple[Price, ...]:
    prices = []
    if us_east_1 is not None:
        prices.append(Price(us_east_1, "us-east-1", _PRICE_LIST[1], _PRICE_LIST[0]))
    if us_west_2 is not None:
        prices.append(Price(us_west_2, "us-west-2", _VANTAGE[1], _VANTAGE[0]))
    return tuple(prices)


ON_DEMAND: dict[str, tuple[Price, ...]] = {name: _prices(*hourly) for name, hourly in _HOURLY.items()}
