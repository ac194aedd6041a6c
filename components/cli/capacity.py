"""`trainstack capacity offerings|extensions|training-plans`: the Capacity Blocks EC2 has on sale, what an active block
can be extended by (preflight/capacity_blocks.py), and the SageMaker training plans on sale for HyperPod
(preflight/training_plans.py); your AWS credentials, read only: nothing is bought."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

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
    capacity = commands.add_parser("capacity", help="list Capacity Blocks on sale, a block's extensions and "
                                                    "HyperPod training plans on sale (your AWS credentials; read "
                                                    "only, nothing is bought)")
    actions = capacity.add_subparsers(dest="capacity_command", required=True)
    offer = actions.add_parser("offerings", help="the blocks on sale for a type, count and duration, cheapest "
                                                 "first (ec2:DescribeCapacityBlockOfferings)")
    _search(offer, "an instance type sold as Capacity Blocks", "instances in the block (1 to 64); with "
            "--ultraserver-type, whole UltraServers", "the block's duration in hours")
    offer.add_argument("--ultraserver-type", help="search whole UltraServers of this type (u-p6e-gb200x36, "
                                                  "u-p6e-gb200x72, u-trn2x64); --count is then UltraServers")
    offer.set_defaults(handler=capacity_offerings)
    plans = actions.add_parser("training-plans", help="the SageMaker training plans on sale for HyperPod clusters, "
                                                      "cheapest first (sagemaker:SearchTrainingPlanOfferings)")
    _search(plans, "an ml. type sold as HyperPod training plans (ml.p5.48xlarge, ...)",
            "instances in the plan (1 to 256)", "the plan's duration in hours (1 to 87600)")
    plans.set_defaults(handler=capacity_training_plans)
    extend = actions.add_parser("extensions", help="what an active block can be extended by "
                                                   "(ec2:DescribeCapacityBlockExtensionOfferings)")
    extend.add_argument("--reservation-id", required=True, help="the block's cr-... id")
    extend.add_argument("--hours", type=int, required=True, help="the extension's duration in hours")
    extend.set_defaults(handler=capacity_extensions)
    for action in (offer, extend, plans):
        action.add_argument("--region", required=True, help="the region to ask (us-east-1, ...)")
        action.add_argument("--json", action="store_true", help="the offerings as JSON on standard output")
        action.add_argument("--debug", action="store_true", help="show tracebacks of unexpected failures")


def _search(action: argparse.ArgumentParser, kind: str, count: str, hours: str) -> None:
    """The options of a search for capacity on sale: what, how many, how long, between when."""
    action.add_argument("--instance-type", required=True, help=kind)
    action.add_argument("--count", type=int, required=True, help=count)
    action.add_argument("--hours", type=int, required=True, help=hours)
    action.add_argument("--earliest", type=_moment, help="the earliest start (UTC)")
    action.add_argument("--latest", type=_moment, help="the latest end (UTC)")


def _client(service: str, region: str) -> Any:
    """The user's client of ``service``, as the AWS CLI finds its credentials; the region is refused first when
    AWS has no such region."""
    import boto3

    from ..catalog import regions

    if regions.find(region) is None:
        raise regions.UnknownRegionError(region)
    return boto3.client(service, region_name=region)


def ec2_client(region: str) -> Any:
    return _client("ec2", region)


def sagemaker_client(region: str) -> Any:
    return _client("sagemaker", region)


def _show(found: Sequence[Any], what: str, as_json: bool, terms: str = "paid up front when bought, never refunded",
          key: str = "") -> int:
    from ..preflight.capacity_blocks import render

    if as_json:
        print(json.dumps({key or what: [o.as_dict() for o in found]}, indent=2))
    else:
        print(render(found, what, terms))
    return EXIT_OK


def capacity_offerings(args: argparse.Namespace) -> int:
    from ..preflight.capacity_blocks import offerings

    found = offerings(ec2_client(args.region), args.instance_type, args.count, args.hours, args.earliest, args.latest,
                      args.ultraserver_type)
    return _show(found, "offerings", args.json)


def capacity_extensions(args: argparse.Namespace) -> int:
    from ..preflight.capacity_blocks import extension_offerings

    found = extension_offerings(ec2_client(args.region), args.reservation_id, args.hours)
    return _show(found, "extensions", args.json)


def capacity_training_plans(args: argparse.Namespace) -> int:
    from ..preflight.training_plans import offerings

    found = offerings(sagemaker_client(args.region), args.instance_type, args.count, args.hours, args.earliest,
                      args.latest)
    # A plan is paid up front (TrainingPlanOffering's UpfrontFee); whether it is refunded is not in the API reference.
    return _show(found, "training plans", args.json, "paid up front when bought", key="trainingPlans")
