"""Capacity a group holds outlives the group: a change that lets go of a reservation, a Capacity Block or a
training plan releases nothing, and a type change under the same one launches nothing in it.

The stack names such capacity (``capacity.reservationId``, ``capacity.resourceGroupArn``, a block it buys,
``trainingPlanArn``) but does not end it by dropping the name. An On-Demand Capacity Reservation bills its
instances at the On-Demand rate until it is cancelled or ends (EC2 User Guide, Capacity Reservation pricing and
billing, docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-reservation-pricing-billing.html); a Capacity Block
is paid up front and cannot be cancelled (EC2 API Reference, CancelCapacityReservation, docs.aws.amazon.com/
AWSEC2/latest/APIReference/API_CancelCapacityReservation.html); a training plan is paid up front when it is made
(SageMaker API Reference, CreateTrainingPlan). So the diff keeps such capacity's cost on the head side, at what
the base paid for it, until it is gone from the base too (released, and the release merged).

EC2 launches an instance into a Capacity Reservation only when its instance type (platform, zone, tenancy)
matches (EC2 User Guide, Launch instances into an existing Capacity Reservation, docs.aws.amazon.com/AWSEC2/
latest/UserGuide/capacity-reservations-launch.html), and each reserved capacity of a training plan is of one
instance type (SageMaker API Reference, CreateTrainingPlan, docs.aws.amazon.com/sagemaker/latest/APIReference/
API_CreateTrainingPlan.html): a group that keeps the id and changes its type would start no node, while the
capacity keeps billing. That blocks the gate.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Optional

from ..estimate.prices import CAPACITY_BLOCK_BILLING, ODCR_BILLING, TRAINING_PLAN_BILLING
from ..estimate.reserved import Reserved
from ..names import HYPERPOD_CLUSTER
from .diff import PlanDiff
from .finding import Finding

UNRELEASED = "unreleased"
"""The kind of the head's cost line that carries capacity the change lets go of but does not release."""
BILLING = {"reservation": ODCR_BILLING, "capacityBlock": CAPACITY_BLOCK_BILLING, "trainingPlan": TRAINING_PLAN_BILLING}
RELEASE = {"reservation": "cancel it (aws ec2 cancel-capacity-reservation --capacity-reservation-id {id}) or let it "
                          "reach its end date",
           "capacityBlock": "a Capacity Block cannot be cancelled: it bills until it ends",
           "trainingPlan": "a training plan is paid up front: it is spent until it ends"}


@dataclass(frozen=True)
class Holding:
    """Reserved capacity one group of a record holds."""

    capacity: str
    """Its id or ARN, as the stack names it (the key the two records are matched by)."""
    kind: str
    """``reservation``, ``capacityBlock`` or ``trainingPlan``."""
    instance_type: str
    instances: int
    holder: str
    """The group that holds it (a node group's component, or a HyperPod instance group)."""
    urn: str

    @property
    def label(self) -> str:
        return {"reservation": "reservation", "capacityBlock": "capacity block",
                "trainingPlan": "training plan"}[self.kind] + f" {self.capacity}"


@dataclass(frozen=True)
class Outlived:
    """Capacity the base holds that the head lets go of (``head`` None) or holds under another instance type."""

    base: Holding
    head: Optional[Holding]
    carried: dict[str, Any]
    """The head's cost line that keeps it: its instances at the base's rate, for the hours the base billed."""


def holdings(record: dict[str, Any]) -> dict[str, Holding]:
    """Every reservation, block and training plan the record's groups hold, by the id the stack names it by."""
    held: dict[str, Holding] = {}
    for resource in record.get("resources") or []:
        inputs = resource.get("inputs") or {}
        reserved = Reserved.from_record(inputs.get("capacity")) if isinstance(inputs.get("capacity"), dict) else None
        if reserved is not None:
            held[reserved.target] = Holding(reserved.target, reserved.kind, reserved.instance_type, reserved.instances,
                                            resource["name"], resource["urn"])
        if resource.get("type") == HYPERPOD_CLUSTER:
            for group in inputs.get("instanceGroups") or []:
                if group.get("trainingPlanArn"):
                    held[group["trainingPlanArn"]] = Holding(
                        group["trainingPlanArn"], "trainingPlan", str(group.get("instanceType")),
                        int(group.get("instanceCount") or 0), str(group.get("instanceGroupName")), resource["urn"])
    return held


def outlived(diff: PlanDiff, base_section: Optional[dict[str, Any]]) -> list[Outlived]:
    """The base's reserved capacity the head no longer holds as the base did, each with the line that keeps its
    cost (priced from the base's cost section, which says what each line bills)."""
    base, head = holdings(diff.base), holdings(diff.head)
    base_lines = (base_section or {}).get("lines") or []
    return [Outlived(held, head.get(capacity), _carried(held, [line for line in base_lines
                                                               if line.get("capacity") == capacity]))
            for capacity, held in base.items()
            if capacity not in head or head[capacity].instance_type != held.instance_type]


def _carried(held: Holding, base_lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The capacity at its base rate and hours; unpriced where the base's lines do not say (or have no price)."""
    rate = base_lines[0].get("usdPerHour") if base_lines else None
    hours = base_lines[0].get("hoursPerMonth") if base_lines else None
    source = base_lines[0].get("source") if base_lines else "the base record's cost lines do not name this capacity"
    monthly = None if rate is None or hours is None else round(held.instances * rate * hours, 2)
    return {"item": f"{held.label} ({held.instances} x {held.instance_type}): still billed, not released",
            "kind": UNRELEASED, "desired": held.instances, "max": held.instances, "usdPerHour": rate,
            "hoursPerMonth": hours, "monthlyUsd": None if monthly is None else {"desired": monthly, "max": monthly},
            "source": f"kept from the base: {BILLING[held.kind]}; {source}", "capacity": held.capacity}


def findings(diff: PlanDiff, base_section: Optional[dict[str, Any]]) -> Iterator[Finding]:
    """A type change under the same capacity blocks the gate; capacity let go of is a warning that it still bills."""
    for gone in outlived(diff, base_section):
        held, monthly = gone.base, gone.carried["monthlyUsd"]
        cost = f"${monthly['desired']:,.2f} per month" if monthly else "a cost the base record does not price"
        release = RELEASE[held.kind].format(id=held.capacity)
        if gone.head is not None:
            yield Finding(
                "reserved-capacity", "blocking", gone.head.urn,
                f"{gone.head.holder}: {gone.head.instance_type} cannot launch in {held.label}, which holds "
                f"{held.instances} x {held.instance_type}",
                "An instance launches into reserved capacity only when its instance type matches (EC2 User Guide, "
                "Launch instances into an existing Capacity Reservation; a training plan reserves one type): the "
                f"group would start no node, while the capacity keeps billing ({cost}; {BILLING[held.kind]}). "
                f"Keep {held.instance_type}, or name capacity of {gone.head.instance_type} and release "
                f"{held.capacity} ({release}).")
        else:
            yield Finding(
                "reserved-capacity", "warning", held.urn,
                f"{held.label} ({held.instances} x {held.instance_type}) still bills after {held.holder} lets go "
                "of it",
                f"The stack names it but does not own it: this change releases nothing ({BILLING[held.kind]}). "
                f"The diff keeps its cost on the head side ({cost}) until it is released: {release}.")
