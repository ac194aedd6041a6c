"""`trainstack capacity offerings|extensions`: the Capacity Blocks EC2 has on sale, and what an active block can be
extended by (preflight/capacity_blocks.py; your AWS credentials, read only: nothing is bought)."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from typing import Any, Optional

from .errors import EXIT_OK


def _moment(text: str) -> datetime:
    """An ISO date or time, in UTC unless it says otherwise."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a date: write it as 2026-12-01 or 2026-12-01T11:30:00Z") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def add_capacity(commands: Any) -> None:
    capacity = commands.add_parser("capacity", help="list Capacity Blocks on sale and a block's extensions "
                                                    "(your AWS credentials; read only, nothing is bought)")
    actions = capacity.add_subparsers(dest="capacity_command", required=True)
    offer = actions.add_parser("offerings", help="the blocks on sale for a type, count and duration, cheapest "
                                                 "first (ec2:DescribeCapacityBlockOfferings)")
    offer.add_argument("--instance-type", required=True, help="an instance type sold as Capacity Blocks")
    offer.add_argument("--count", type=int, required=True, help="instances in the block (1 to 64)")
    offer.add_argument("--hours", type=int, required=True, help="the block's duration in hours")
    offer.add_argument("--earliest", type=_moment, help="the earliest start (UTC)")
    offer.add_argument("--latest", type=_moment, help="the latest end (UTC)")
    offer.set_defaults(handler=capacity_offerings)
    extend = actions.add_parser("extensions", help="what an active block can be extended by "
                                                   "(ec2:DescribeCapacityBlockExtensionOfferings)")
    extend.add_argument("--reservation-id", required=True, help="the block's cr-... id")
    extend.add_argument("--hours", type=int, required=True, help="the extension's duration in hours")
    extend.set_defaults(handler=capacity_extensions)
    for action in (offer, extend):
        action.add_argument("--region", required=True, help="the region to ask (us-east-1, ...)")
        action.add_argument("--json", action="store_true", help="the offerings as JSON on standard output")
        action.add_argument("--debug", action="store_true", help="show tracebacks of unexpected failures")


def ec2_client(region: str) -> Any:
    """The user's EC2 client, as the AWS CLI finds its credentials."""
    import boto3

    return boto3.client("ec2", region_name=region)


def _show(found: list[Any], what: str, as_json: bool) -> int:
    from ..preflight.capacity_blocks import render

    if as_json:
        print(json.dumps({what: [o.as_dict() for o in found]}, indent=2))
    else:
        print(render(found, what))
    return EXIT_OK


def capacity_offerings(args: argparse.Namespace, client: Optional[Any] = None) -> int:
    from ..catalog import regions
    from ..preflight.capacity_blocks import offerings

    if regions.find(args.region) is None:
        raise regions.UnknownRegionError(args.region)
    found = offerings(client or ec2_client(args.region), args.instance_type, args.count, args.hours,
                      args.earliest, args.latest)
    return _show(found, "offerings", args.json)


def capacity_extensions(args: argparse.Namespace, client: Optional[Any] = None) -> int:
    from ..catalog import regions
    from ..preflight.capacity_blocks import extension_offerings

    if regions.find(args.region) is None:
        raise regions.UnknownRegionError(args.region)
    found = extension_offerings(client or ec2_client(args.region), args.reservation_id, args.hours)
    return _show(found, "extensions", args.json)
