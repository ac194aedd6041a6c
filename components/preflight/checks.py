"""Preflight: can this stack work in this account, before anyone waits on `pulumi up`?

Each check answers pass, fail or could-not-check (no credentials, no permission, an
API the check cannot see), always with the reason. Reads only; changes nothing.

A check that could not run is not a pass (:func:`verdict`): a CI gate that runs
preflight without credentials must not pass with nothing checked. Callers who accept
"could not check" say so (``allow_unchecked``); even then, a run in which no check
reached the account is refused, because it checked nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC
from typing import Any, Optional

from botocore.exceptions import BotoCoreError, ClientError

from ..catalog import service_quotas
from ..config import NodeGroupConfig, StackConfig
from ..config.hyperpod import InstanceGroupConfig
from ..config.ip_budget import ip_budget
from ..config.offerings import Placement, placements
from .check import Check, unreachable
from .credentials import require_credentials
from .quotas import quota_checks

VCPU_QUOTAS = {family: (quota.code, quota.name) for family, quota in service_quotas.VCPU_QUOTAS.items()}
"""EC2 On-Demand vCPU quotas by instance family class (Service Quotas, service "ec2"): (code, name), as the
catalog holds them (catalog/service_quotas.py)."""


@dataclass
class Clients:
    """boto3 clients; ``capacity`` answers DescribeCapacityReservations (the EC2 client itself in use), ``sagemaker``
    DescribeTrainingPlan (None: a plan a HyperPod group names could not be checked)."""

    ec2: Any
    capacity: Any
    quotas: Any
    sagemaker: Any = None

    @classmethod
    def for_region(cls, region: str) -> Clients:
        import boto3
        from botocore.config import Config

        # No usable credentials is the user's to fix before anything is asked (credentials.py: the CLI says where
        # botocore looked, exit 2). Fail fast where there is no network: answers are could-not-check.
        config = Config(connect_timeout=5, read_timeout=20, retries={"max_attempts": 2})
        session = boto3.Session(region_name=region)
        require_credentials(session)
        ec2 = session.client("ec2", config=config)
        return cls(ec2=ec2, capacity=ec2, quotas=session.client("service-quotas", config=config),
                   sagemaker=session.client("sagemaker", config=config))


def run_preflight(config: StackConfig, clients: Clients) -> list[Check]:
    checks: list[Check] = []
    for group in config.node_groups:
        if group.capacity.type != "none":
            checks.extend(_capacity(group, clients.capacity))
    if config.hyperpod is not None:
        for instance_group in config.hyperpod.groups:
            if instance_group.training_plan_arn is not None:
                checks.extend(_training_plan(instance_group, clients.sagemaker))
    checks.extend(_zones(config, clients.ec2))
    # HyperPod runs in SageMaker's capacity, which EC2's offerings to this account do not show, and SageMaker
    # has no read API for what it offers: validation judges HyperPod types by SageMaker's per-region list.
    checks.extend(_offering(placement, clients.ec2) for placement in placements(config) if not placement.hyperpod)
    checks.extend(quota_checks(config, clients.quotas))
    checks.extend(_subnets(config, clients.ec2))
    return checks


def _purchase(group: NodeGroupConfig, ec2: Any) -> Check:
    """A block the stack buys: its offering still on sale, for the declared dates and fee."""
    from .capacity_blocks import offering_still_on_sale

    capacity = group.capacity
    assert capacity.purchase and capacity.starts_at and capacity.ends_at and capacity.instance_count
    subject = f"{group.name}: {capacity.purchase.offering_id}"
    try:
        status, reason = offering_still_on_sale(ec2, group.instance_type, capacity.instance_count, capacity.starts_at,
                                                capacity.ends_at, capacity.purchase.offering_id,
                                                capacity.purchase.upfront_fee_usd)
    except (BotoCoreError, ClientError) as error:
        return Check("capacity block offering", subject, "could-not-check", unreachable(error))
    return Check("capacity block offering", subject, status, reason)


def _capacity(group: NodeGroupConfig, ec2: Any) -> Iterator[Check]:
    capacity = group.capacity
    kind = "capacity block" if capacity.type == "capacityBlock" else "reservation"
    if capacity.purchase is not None and capacity.starts_at is not None and capacity.ends_at is not None:
        yield _purchase(group, ec2)
        return
    if not capacity.reservation_ids:
        yield Check(kind, f"{group.name}: {capacity.resource_group_arn}", "could-not-check",
                    "reservations in a resource group are not inspected; check the group's reservations by hand")
        return
    # A pool's each reservation holds what the stack file says of it; a group's one holds its maxSize.
    declared = {r.reservation_id: r.instance_count for r in capacity.reservations} or {
        capacity.reservation_ids[0]: group.max_size}
    for reservation_id, needed in declared.items():
        yield from _reservation(group, ec2, kind, reservation_id, needed)


def _reservation(group: NodeGroupConfig, ec2: Any, name: str, reservation_id: str, needed: int) -> Iterator[Check]:
    """One reservation or block of the group, against EC2: it exists, is usable, of the group's type and zone,
    holds ``needed`` instances, and ends when the stack file says."""
    capacity = group.capacity
    subject = f"{group.name}: {reservation_id}"
    try:
        found = ec2.describe_capacity_reservations(CapacityReservationIds=[reservation_id])
    except ClientError as error:
        if error.response["Error"]["Code"].startswith("InvalidCapacityReservationId"):
            yield Check(name, subject, "fail", f"{reservation_id} does not exist in this account and region")
            return
        yield Check(name, subject, "could-not-check", unreachable(error))
        return
    except BotoCoreError as error:
        yield Check(name, subject, "could-not-check", unreachable(error))
        return
    (reservation,) = found["CapacityReservations"]
    state = reservation.get("State")
    window = f"starts {reservation.get('StartDate')}, ends {reservation.get('EndDate') or 'when cancelled'}"
    if state == "active":
        yield Check(f"{name} state", subject, "pass", f"active; {window}")
    elif state in ("scheduled", "pending", "payment-pending"):
        yield Check(f"{name} state", subject, "pass", f"{state}, not active yet: {window}; keep desiredSize 0 "
                                                      "until it is active")
    else:
        yield Check(f"{name} state", subject, "fail", f"{state}: instances cannot launch into it ({window})")
    is_block = reservation.get("ReservationType") == "capacity-block"
    if is_block != (capacity.type == "capacityBlock"):
        yield Check(f"{name} type", subject, "fail",
                    f"it is {'a capacity block' if is_block else 'an on-demand reservation'}; set capacity.type "
                    f"to {'capacityBlock' if is_block else 'reservation'}")
    zone = reservation.get("AvailabilityZone")
    yield Check(f"{name} zone", subject, "pass" if zone == group.zone else "fail",
                f"in {zone}" + ("" if zone == group.zone else f"; the node group is in {group.zone}"))
    instance_type = reservation.get("InstanceType")
    yield Check(f"{name} instance type", subject, "pass" if instance_type == group.instance_type else "fail",
                f"for {instance_type}" + ("" if instance_type == group.instance_type
                                          else f"; the node group runs {group.instance_type}"))
    total = reservation.get("TotalInstanceCount", 0)
    yield Check(f"{name} size", subject, "pass" if total >= needed else "fail",
                f"holds {total} instances; the group " + (f"grows to {group.max_size}" if not capacity.reservations
                                                          else f"counts on {needed} of them"))
    if capacity.ends_at is not None:
        yield _end(name, subject, capacity.ends_at.strftime("%Y-%m-%dT%H:%M:%SZ"), reservation.get("EndDate"))


def _training_plan(group: InstanceGroupConfig, sagemaker: Any) -> Iterator[Check]:
    """The SageMaker training plan a HyperPod group names: usable, for HyperPod, of the group's type and size
    (preflight/training_plans.py), and when it ends."""
    from .training_plans import plan_findings

    arn = group.training_plan_arn
    subject = f"hyperpod {group.name}: {arn}"
    if sagemaker is None:
        yield Check("training plan", subject, "could-not-check", "no SageMaker client was given")
        return
    try:
        plan = sagemaker.describe_training_plan(TrainingPlanName=arn)
    except ClientError as error:
        if error.response["Error"]["Code"] in ("ResourceNotFound", "ValidationException"):
            yield Check("training plan", subject, "fail", f"{unreachable(error)}: set trainingPlanArn to a plan "
                        "of this account and region (aws sagemaker list-training-plans)")
            return
        yield Check("training plan", subject, "could-not-check", unreachable(error))
        return
    except BotoCoreError as error:
        yield Check("training plan", subject, "could-not-check", unreachable(error))
        return
    for check, passed, reason in plan_findings(plan, group.instance_type, group.count):
        yield Check(f"training plan {check}", subject, "pass" if passed else "fail",
                    reason if passed else f"hyperpod {group.name} trainingPlanArn: {reason}")


def _end(name: str, subject: str, declared: str, ends: Any) -> Check:
    """The plan and the outputs report the declared end; it must be EC2's."""
    if ends is None:
        return Check(f"{name} end", subject, "fail",
                     f"EC2 says it ends when cancelled; the stack declares {declared}: remove capacity.endsAt")
    actual = ends.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if actual != declared:
        return Check(f"{name} end", subject, "fail",
                     f"EC2 says it ends {actual}; the stack declares {declared}: set capacity.endsAt to {actual}")
    return Check(f"{name} end", subject, "pass", f"ends {actual}")


def _zones(config: StackConfig, ec2: Any) -> Iterator[Check]:
    """The account has every zone the network names. Where AWS maps zone names per account, validation could not
    judge the letters (config/offerings.py); the account can."""
    zones = config.zones
    try:
        found = ec2.describe_availability_zones(ZoneNames=zones)["AvailabilityZones"]
    except ClientError as error:
        if error.response["Error"]["Code"] == "InvalidParameterValue":
            yield Check("zones", ", ".join(zones), "fail", f"{unreachable(error)}; use the zones "
                        f"`aws ec2 describe-availability-zones --region {config.region}` lists")
            return
        yield Check("zones", ", ".join(zones), "could-not-check", unreachable(error))
        return
    except BotoCoreError as error:
        yield Check("zones", ", ".join(zones), "could-not-check", unreachable(error))
        return
    ids = {zone["ZoneName"]: zone.get("ZoneId", "?") for zone in found}
    for zone in zones:
        yield (Check("zone", zone, "pass", f"in the account as {ids[zone]}") if zone in ids else
               Check("zone", zone, "fail", f"the account has no zone {zone} in {config.region}"))


def _offering(placement: Placement, ec2: Any) -> Check:
    """EC2 offers the group's type in each of its zones."""
    ec2_type = placement.instance_type
    subject = f"{placement.group}: {placement.instance_type} in {', '.join(placement.zones)}"
    try:
        offered = ec2.describe_instance_type_offerings(
            LocationType="availability-zone", Filters=[{"Name": "instance-type", "Values": [ec2_type]},
                                                       {"Name": "location", "Values": placement.zones}])
    except (ClientError, BotoCoreError) as error:
        return Check("instance type offered", subject, "could-not-check", unreachable(error))
    where = {offering["Location"] for offering in offered["InstanceTypeOfferings"]}
    missing = [zone for zone in placement.zones if zone not in where]
    unchecked = f" (validation skipped it: offeringUnchecked '{placement.unchecked}')" if placement.unchecked else ""
    if not missing:
        zones = "zones" if len(where) > 1 else "zone"
        return Check("instance type offered", subject, "pass", f"offered in the {zones}{unchecked}")
    return Check("instance type offered", subject, "fail", f"{ec2_type} is not offered in {', '.join(missing)}"
                 f"{unchecked}; zone names differ per account: pick a zone that offers it")


def _subnets(config: StackConfig, ec2: Any) -> Iterator[Check]:
    """Free addresses against the steady-state need of the IP budget (config/ip_budget.py)."""
    budget = ip_budget(config)
    if budget is None:
        return
    if config.network.existing_vpc is None:
        for zone in budget.zones:
            yield Check("subnet IPs", f"new private subnet in {zone.zone}", "pass",
                        f"created by this stack with {zone.usable} usable IPs; the nodes hold {zone.steady} "
                        "at max size", offline=True)
        return
    subnets = config.network.existing_vpc.private_subnets
    try:
        found = ec2.describe_subnets(SubnetIds=[s.id for s in subnets])["Subnets"]
    except (ClientError, BotoCoreError) as error:
        yield Check("subnet IPs", "existing private subnets", "could-not-check", unreachable(error))
        return
    # The budget is per subnet, each holding the nodes given it (config/subnet_placement.py).
    free = {subnet["SubnetId"]: subnet["AvailableIpAddressCount"] for subnet in found}
    for zone in budget.zones:
        subnet_id = zone.subnet.subnet_id if zone.subnet is not None else None
        available = free.get(subnet_id, 0) if subnet_id is not None else 0
        yield Check("subnet IPs", f"private subnet {zone.label}", "pass" if available >= zone.steady else "fail",
                    f"{available} free IPs; the nodes hold {zone.steady} at max size "
                    f"({'; '.join(zone.lines('steady'))})")


@dataclass(frozen=True)
class Scope:
    """What a preflight run checks against, in the words its verdict uses."""

    against: str
    """``the account``, ``the cluster``."""
    access: str
    """What to give when no check could reach it."""
    empty: str
    """Why a run had nothing to check."""


ACCOUNT = Scope("the account", "give credentials that may read EC2 and Service Quotas",
                "this stack has no node group, quota or existing subnet for preflight to check")


def verdict(checks: list[Check], allow_unchecked: bool = False, scope: Scope = ACCOUNT) -> Optional[str]:
    """Why these results do not pass the preflight, or None when they do.

    Failures fail. A check that could not run fails too unless ``allow_unchecked``; and
    when no check reached ``scope`` at all, nothing was checked, which never passes."""
    failed = [c for c in checks if c.status == "fail"]
    if failed:
        return f"{len(failed)} check{'s' if len(failed) != 1 else ''} failed"
    asked = [c for c in checks if not c.offline]
    unchecked = [c for c in asked if c.status == "could-not-check"]
    if not asked:
        return f"nothing was checked against {scope.against}: {scope.empty}"
    if len(unchecked) == len(asked):
        return (f"nothing was checked against {scope.against}: all {len(asked)} checks could not run (first: "
                f"{unchecked[0].reason}); {scope.access}")
    if unchecked and not allow_unchecked:
        return (f"{len(unchecked)} check{'s' if len(unchecked) != 1 else ''} could not run, and a check that could "
                f"not run is not a pass (first: {unchecked[0].name}: {unchecked[0].reason}); give the missing "
                "access, or pass --allow-unchecked to accept what could not be checked")
    return None


def render(checks: list[Check]) -> str:
    lines = [f"{'result':<16} {'check':<28} subject", ""]
    for check in checks:
        lines.append(f"{check.status:<16} {check.name:<28} {check.subject}\n{'':<16} {check.reason}")
    failed = sum(1 for c in checks if c.status == "fail")
    unknown = sum(1 for c in checks if c.status == "could-not-check")
    lines.append(f"\n{failed} failed, {unknown} could not be checked, {len(checks) - failed - unknown} passed")
    return "\n".join(lines)
