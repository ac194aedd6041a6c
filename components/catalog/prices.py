"""Published on-demand Linux prices (USD per instance-hour).

us-east-1: the AWS Price List data that Karpenter generates and commits
(aws/karpenter-provider-aws, generated 2026-07-20), a primary source.
us-west-2: instances.vantage.sh data as of 2026-01-21, a secondary source; it
agrees with us-east-1 for every type listed in both.

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

# name: us-east-1 price, for types added with the generated catalog (see the module docstring).
_HOURLY_US_EAST_1: dict[str, float] = {
    "c5.12xlarge": 2.04, "c5.18xlarge": 3.06, "c5.24xlarge": 4.08, "c5.4xlarge": 0.68, "c5.9xlarge": 1.53,
    "c5.large": 0.085, "c5.metal": 4.08, "c6a.12xlarge": 1.836, "c6a.16xlarge": 2.448, "c6a.24xlarge": 3.672,
    "c6a.2xlarge": 0.306, "c6a.32xlarge": 4.896, "c6a.48xlarge": 7.344, "c6a.4xlarge": 0.612,
    "c6a.8xlarge": 1.224, "c6a.large": 0.0765, "c6a.metal": 7.344, "c6a.xlarge": 0.153, "c6i.12xlarge": 2.04,
    "c6i.16xlarge": 2.72, "c6i.24xlarge": 4.08, "c6i.2xlarge": 0.34, "c6i.32xlarge": 5.44, "c6i.4xlarge": 0.68,
    "c6i.8xlarge": 1.36, "c6i.large": 0.085, "c6i.metal": 5.44, "c6i.xlarge": 0.17, "c7a.12xlarge": 2.46336,
    "c7a.16xlarge": 3.28448, "c7a.24xlarge": 4.92672, "c7a.2xlarge": 0.41056, "c7a.32xlarge": 6.56896,
    "c7a.48xlarge": 9.85344, "c7a.4xlarge": 0.82112, "c7a.8xlarge": 1.64224, "c7a.large": 0.10264,
    "c7a.medium": 0.05132, "c7a.metal-48xl": 9.85344, "c7a.xlarge": 0.20528, "c7i.12xlarge": 2.142,
    "c7i.16xlarge": 2.856, "c7i.24xlarge": 4.284, "c7i.2xlarge": 0.357, "c7i.48xlarge": 8.568,
    "c7i.4xlarge": 0.714, "c7i.8xlarge": 1.428, "c7i.large": 0.08925, "c7i.metal-24xl": 4.7124,
    "c7i.metal-48xl": 8.568, "c7i.xlarge": 0.1785, "g4dn.12xlarge": 3.912, "g4dn.16xlarge": 4.352,
    "g4dn.2xlarge": 0.752, "g4dn.4xlarge": 1.204, "g4dn.8xlarge": 2.176, "g4dn.metal": 7.824,
    "g4dn.xlarge": 0.526, "g5.16xlarge": 4.096, "g5.24xlarge": 8.144, "g5.4xlarge": 1.624, "g5.8xlarge": 2.448,
    "g5g.16xlarge": 2.744, "g5g.2xlarge": 0.556, "g5g.4xlarge": 0.828, "g5g.8xlarge": 1.372, "g5g.metal": 2.744,
    "g5g.xlarge": 0.42, "g6.12xlarge": 4.6016, "g6.16xlarge": 3.3968, "g6.24xlarge": 6.6752,
    "g6.2xlarge": 0.9776, "g6.4xlarge": 1.3232, "g6.8xlarge": 2.0144, "g6.xlarge": 0.8048,
    "g6e.12xlarge": 10.49264, "g6e.16xlarge": 7.57719, "g6e.24xlarge": 15.06559, "g6e.2xlarge": 2.24208,
    "g6e.4xlarge": 3.00424, "g6e.8xlarge": 4.52856, "g6e.xlarge": 1.861, "g7e.12xlarge": 8.28608,
    "g7e.24xlarge": 16.57216, "g7e.2xlarge": 3.36312, "g7e.48xlarge": 33.14432, "g7e.4xlarge": 3.99816,
    "g7e.8xlarge": 5.26824, "gr6.4xlarge": 1.5392, "gr6.8xlarge": 2.4464, "inf1.24xlarge": 4.721,
    "inf1.2xlarge": 0.362, "inf1.6xlarge": 1.18, "inf1.xlarge": 0.228, "inf2.24xlarge": 6.49063,
    "inf2.8xlarge": 1.96786, "inf2.xlarge": 0.7582, "m5.12xlarge": 2.304, "m5.16xlarge": 3.072,
    "m5.24xlarge": 4.608, "m5.4xlarge": 0.768, "m5.8xlarge": 1.536, "m5.large": 0.096, "m5.metal": 4.608,
    "m6a.12xlarge": 2.0736, "m6a.16xlarge": 2.7648, "m6a.24xlarge": 4.1472, "m6a.2xlarge": 0.3456,
    "m6a.32xlarge": 5.5296, "m6a.48xlarge": 8.2944, "m6a.4xlarge": 0.6912, "m6a.8xlarge": 1.3824,
    "m6a.large": 0.0864, "m6a.metal": 8.2944, "m6a.xlarge": 0.1728, "m6i.12xlarge": 2.304,
    "m6i.16xlarge": 3.072, "m6i.24xlarge": 4.608, "m6i.2xlarge": 0.384, "m6i.32xlarge": 6.144,
    "m6i.4xlarge": 0.768, "m6i.8xlarge": 1.536, "m6i.large": 0.096, "m6i.metal": 6.144, "m6i.xlarge": 0.192,
    "m7a.12xlarge": 2.78208, "m7a.16xlarge": 3.70944, "m7a.24xlarge": 5.56416, "m7a.2xlarge": 0.46368,
    "m7a.32xlarge": 7.41888, "m7a.48xlarge": 11.12832, "m7a.4xlarge": 0.92736, "m7a.8xlarge": 1.85472,
    "m7a.large": 0.11592, "m7a.medium": 0.05796, "m7a.metal-48xl": 11.12832, "m7a.xlarge": 0.23184,
    "m7i.12xlarge": 2.4192, "m7i.16xlarge": 3.2256, "m7i.24xlarge": 4.8384, "m7i.2xlarge": 0.4032,
    "m7i.48xlarge": 9.6768, "m7i.4xlarge": 0.8064, "m7i.8xlarge": 1.6128, "m7i.large": 0.1008,
    "m7i.metal-24xl": 5.32224, "m7i.metal-48xl": 9.6768, "m7i.xlarge": 0.2016, "p3dn.24xlarge": 31.212,
}


def _prices(us_east_1: float | None, us_west_2: float | None) -> tuple[Price, ...]:
    prices = []
    if us_east_1 is not None:
        prices.append(Price(us_east_1, "us-east-1", _PRICE_LIST[1], _PRICE_LIST[0]))
    if us_west_2 is not None:
        prices.append(Price(us_west_2, "us-west-2", _VANTAGE[1], _VANTAGE[0]))
    return tuple(prices)


ON_DEMAND: dict[str, tuple[Price, ...]] = {
    **{name: _prices(usd, None) for name, usd in _HOURLY_US_EAST_1.items()},
    **{name: _prices(*hourly) for name, hourly in _HOURLY.items()},
}
