"""Each reservation and Capacity Block the stack's node groups launch into, as EC2 shows it now: active, with
room for the groups' desired size, used by the stack's nodes only, and (a block) not ending within the stack's
wind-down.

An open reservation takes any running instance whose type, platform, zone and tenancy match, a targeted one only
instances launched into it by id, as the stack's launch templates are (EC2 User Guide, "Work with Capacity
Reservations": https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-reservations-using.html); the instances
in one are found by DescribeInstances' ``capacity-reservation-id`` filter (EC2 API Reference, DescribeInstances).

An instance is the stack's when it carries its cluster's tag: EKS creates a managed node group's Auto Scaling group
with ``eks:cluster-name`` and ``eks:nodegroup-name`` propagated to its instances (the tags its service-linked role,
AWSServiceRoleForAmazonEKSNodegroup, may set), and Karpenter must tag every instance it launches
``kubernetes.io/cluster/<cluster>: owned`` and ``eks:eks-cluster-name`` (its controller policy, Karpenter v1.14.1
cloudformation.yaml, as cluster/karpenter.py renders it)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, Optional

from ..config.block_end import DEFAULT_END_LEAD_MINUTES
from .aws_plan import Held
from .aws_reads import every, read
from .finding import Finding

USING = ["pending", "running"]
"""Instance states that hold a reserved slot; a stopped instance gives its slot back."""


def capacity_findings(held: Held, cluster: Optional[str], ec2: Any, now: datetime) -> Iterator[Finding]:
    region = ec2.meta.region_name
    subject = f"{_kind(held)} {held.reservation_id} (node group {', '.join(held.groups)})"
    described = read(ec2, "describe_capacity_reservations", CapacityReservationIds=[held.reservation_id])
    found = (described or {}).get("CapacityReservations") or []
    if not found:
        yield Finding("aws", subject, f"the {_kind(held)} the stack file names, in {region}",
                      "EC2 has no such reservation in this account and region",
                      f"set capacity.reservationId to one that `aws ec2 describe-capacity-reservations --region "
                      f"{region}` lists")
        return
    reservation = found[0]
    if reservation.get("ReservationType") == "capacity-block" or held.kind == "capacityBlock":
        ended, ending = _block_end(subject, held, reservation, now, region)
        if ending is not None:
            yield ending
        if ended:
            return
    state = reservation.get("State")
    if state != "active":
        if state == "scheduled" and held.kind == "capacityBlock":
            return  # bought for later: its nodes come at its StartDate
        yield Finding("aws", subject, "active", f"{state}",
                      f"aws ec2 describe-capacity-reservations --capacity-reservation-ids {held.reservation_id} "
                      f"--region {region} says why; one expired or cancelled does not come back: set "
                      "capacity.reservationId to an active one")
        return
    yield from _use(subject, held, reservation, _instances(ec2, held.reservation_id), cluster, region)


def _use(subject: str, held: Held, reservation: dict[str, Any], instances: list[dict[str, Any]],
         cluster: Optional[str], region: str) -> Iterator[Finding]:
    total, available = reservation.get("TotalInstanceCount", 0), reservation.get("AvailableInstanceCount", 0)
    ours = sum(1 for i in instances if _of_cluster(i, cluster))
    others = [i["InstanceId"] for i in instances if not _of_cluster(i, cluster)]
    room = available + ours
    if room < held.desired:
        grow = ("buy another block: trainstack capacity offerings" if held.kind == "capacityBlock" else
                f"grow it: aws ec2 modify-capacity-reservation --capacity-reservation-id {held.reservation_id} "
                f"--instance-count {total + held.desired - room} --region {region}")
        yield Finding("aws", subject, f"room for the {held.desired} nodes its node groups want (desiredSize)",
                      f"{total} reserved: {available} available and {ours} held by the stack, "
                      f"{held.desired - room} short", f"{grow}; or lower the groups' desiredSize to {room}")
    if others:
        shown = " ".join(others[:5])
        yield Finding("aws", subject, f"only the stack's nodes (cluster {cluster}) in it",
                      f"{len(others)} instance{'s' if len(others) != 1 else ''} of others in it ({shown}"
                      f"{' ...' if len(others) > 5 else ''}); it takes "
                      f"{reservation.get('InstanceMatchCriteria', 'open')} instances",
                      f"aws ec2 describe-instances --instance-ids {shown} --region {region} names them; move them "
                      "out (aws ec2 modify-instance-capacity-reservation-attributes) and make the reservation "
                      "take only the stack's launch template: aws ec2 modify-capacity-reservation "
                      f"--capacity-reservation-id {held.reservation_id} --instance-match-criteria targeted "
                      f"--region {region}")


def _block_end(subject: str, held: Held, block: dict[str, Any], now: datetime,
               region: str) -> tuple[bool, Optional[Finding]]:
    """Whether the block has ended, and the finding when it has or ends within the stack's wind-down
    (``capacity.endLeadMinutes``): a block still running keeps the other checks of its use."""
    end = block.get("EndDate")
    if end is None:
        return False, None
    lead = held.lead_minutes if held.lead_minutes is not None else DEFAULT_END_LEAD_MINUTES
    left = int((end.astimezone(UTC) - now).total_seconds() // 60)
    ends = end.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if left <= 0 or block.get("State") == "expired":
        start = block.get("StartDate")
        hours = round((end - start).total_seconds() / 3600) if start is not None else 24
        return True, Finding("aws", subject, f"a block that lasts past the stack's wind-down ({lead} minutes "
                             "before its end)", f"it ended at {ends}, {-left} minutes ago",
                             f"buy another: trainstack capacity offerings --region {region} --instance-type "
                             f"{block.get('InstanceType')} --count {block.get('TotalInstanceCount')} --hours "
                             f"{hours}, then set capacity.reservationId and capacity.endsAt to it")
    if left <= lead:
        return False, Finding("aws", subject, f"more than the stack's wind-down of {lead} minutes "
                              "(capacity.endLeadMinutes) left", f"{left} minutes left: it ends at {ends}, so the "
                              "wind-down has begun (queues held, nodes tainted)", f"extend it: trainstack capacity "
                              f"extensions --region {region} --reservation-id {held.reservation_id} --hours 24, then "
                              "set capacity.endsAt to the new end; or let the jobs checkpoint and the block end")
    return False, None


def _instances(ec2: Any, reservation_id: str) -> list[dict[str, Any]]:
    return [instance for reservation in every(
        ec2, "describe_instances", "Reservations", Filters=[
            {"Name": "capacity-reservation-id", "Values": [reservation_id]},
            {"Name": "instance-state-name", "Values": USING}])
        for instance in reservation.get("Instances") or []]


def _of_cluster(instance: dict[str, Any], cluster: Optional[str]) -> bool:
    if cluster is None:
        return False
    tags = {tag.get("Key"): tag.get("Value") for tag in instance.get("Tags") or []}
    return cluster in (tags.get("eks:cluster-name"), tags.get("eks:eks-cluster-name")) or \
        f"kubernetes.io/cluster/{cluster}" in tags


def _kind(held: Held) -> str:
    return "capacity block" if held.kind == "capacityBlock" else "reservation"
