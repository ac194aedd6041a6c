"""`trainstack prices refresh`: its grammar and its command, in one place (the price snapshot the cost
estimate reads through ``TRAINSTACK_PRICES``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .errors import EXIT_OK


def add_prices(commands: Any) -> None:
    prices = commands.add_parser("prices", help="refresh the on-demand prices the cost estimate reads")
    actions = prices.add_subparsers(dest="prices_command", required=True)
    refresh = actions.add_parser(
        "refresh", help="fetch the catalog's on-demand Linux prices for a region from the AWS Price List "
                        "(your AWS credentials; pricing:GetProducts) and write a dated snapshot; point "
                        "TRAINSTACK_PRICES at it and plans price that region from it")
    refresh.add_argument("--region", required=True, help="the region whose prices to fetch (us-west-2, ...)")
    refresh.add_argument("--out", type=Path, help="the snapshot file (default: prices-REGION.json)")
    refresh.add_argument("--debug", action="store_true", help="show tracebacks of unexpected failures")
    refresh.set_defaults(handler=prices_refresh)


def prices_refresh(args: argparse.Namespace) -> int:
    from ..catalog import regions
    from ..estimate.price_refresh import refresh

    if regions.find(args.region) is None:
        raise regions.UnknownRegionError(args.region)
    out = args.out or Path(f"prices-{args.region}.json")
    document = refresh(args.region, out)
    priced = sum(1 for usd in document["usdPerHour"].values() if usd is not None)
    print(f"wrote {out}: {priced} of {len(document['usdPerHour'])} types priced in {args.region}, "
          f"{document['source']}, {document['fetchedAt']}", file=sys.stderr)
    return EXIT_OK
