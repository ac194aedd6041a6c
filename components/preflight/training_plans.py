"""SageMaker training plans for HyperPod, read with the user's credentials (read only): the offerings on sale, and
the plan a HyperPod instance group names (``trainingPlanArn``).

SageMaker API Reference, SearchTrainingPlanOfferings (https://docs.aws.amazon.com/sagemaker/latest/APIReference/
API_SearchTrainingPlanOfferings.html, read 2026-11-26): the offerings for an ``InstanceType``, ``InstanceCount``,
``DurationHours``, ``StartTimeAfter``, ``EndTimeBefore`` and ``TargetResources``, one page (the request has no
``NextToken``); each offering (API_TrainingPlanOffering.html) has its id, ``DurationHours``, ``UpfrontFee``,
``CurrencyCode`` and up to five ``ReservedCapacityOfferings`` (API_ReservedCapacityOffering.html: type, count, zone,
``StartTime``, ``EndTime``). DescribeTrainingPlan (API_DescribeTrainingPlan.html): a plan's ``Status``,
``TargetResources``, ``EndTime`` and ``ReservedCapacitySummaries`` (type and ``TotalInstanceCount`` of each).
"View training plan details" (https://docs.aws.amazon.com/sagemaker/latest/dg/
training-plan-details-using-api-cli-sdk.html, read 2026-11-26): ``Pending`` until paid, then ``Scheduled``, ``Active``
from its start date, ``Expired`` after its end, ``Failed`` when the purchase failed; "Once the status is Scheduled,
you can utilize the capacity reserved in the plan". A plan for ``training-job`` cannot give HyperPod capacity
(TrainingPlanOffering's ``TargetResources``). Nothing here buys a plan (CreateTrainingPlan).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Optional

from ..catalog import find_hyperpod
from .capacity_blocks import CapacityQueryError, fee, per_instance_hour, utc

# The request's limits in the SageMaker model (botocore's sagemaker/2017-07-24): ReservedCapacityInstanceCount
# 0..256 (0 reserves nothing, so 1 is the least asked), TrainingPlanDurationHoursInput 1..87600.
MAX_INSTANCES = 256
MAX_HOURS = 87600
HYPERPOD_TARGET = "hyperpod-cluster"
USABLE = ("Scheduled", "Active")


@dataclass(frozen=True)
class ReservedCapacity:
    """One reserved-capacity offering inside a training-plan offering: where, how many, when."""

    instance_type: str
    instance_count: int
    zone: Optional[str]
    starts: Optional[datetime]
    ends: Optional[datetime]

    def as_dict(self) -> dict[str, Any]:
        return {"instanceType": self.instance_type, "instanceCount": self.instance_count, "zone": self.zone,
                "startsAt": utc(self.starts) if self.starts else None, "endsAt": utc(self.ends) if self.ends else None}


@dataclass(frozen=True)
class PlanOffering:
    """One training-plan offering on sale."""

    offering_id: str
    target_resources: tuple[str, ...]
    hours: int
    upfront_fee: Optional[float]
    currency: str
    capacities: tuple[ReservedCapacity, ...]

    @property
    def instance_count(self) -> int:
        return sum(c.instance_count for c in self.capacities)

    @property
    def starts(self) -> Optional[datetime]:
        return min((c.starts for c in self.capacities if c.starts), default=None)

    @property
    def ends(self) -> Optional[datetime]:
        return max((c.ends for c in self.capacities if c.ends), default=None)

    @property
    def per_instance_hour(self) -> Optional[float]:
        return per_instance_hour(self.upfront_fee, self.hours, self.instance_count)

    def as_dict(self) -> dict[str, Any]:
        return {"offeringId": self.offering_id, "targetResources": list(self.target_resources),
                "startsAt": utc(self.starts) if self.starts else None, "endsAt": utc(self.ends) if self.ends else None,
                "hours": self.hours, "upfrontFee": self.upfront_fee, "currency": self.currency,
                "perInstanceHour": self.per_instance_hour,
                "reservedCapacity": [c.as_dict() for c in self.capacities]}

    def line(self) -> str:
        where = ", ".join(f"{c.instance_count} x {c.instance_type} in {c.zone or 'a zone not given'}"
                          for c in self.capacities)
        dates = f"{utc(self.starts)} to {utc(self.ends)}" if self.starts and self.ends else "dates not given"
        return f"{self.offering_id}  {where}  {dates} ({self.hours} h)"


def check_query(name: str, count: int, hours: int) -> None:
    """Refuse what SageMaker would, or what the catalog does not sell as a HyperPod training plan."""
    entry = find_hyperpod(name) if name.startswith("ml.") else None
    if entry is None or not entry.hyperpod_training_plan:
        raise CapacityQueryError(f"--instance-type {name}: the catalog has no SageMaker training plans for this type. "
                                 "Fix: name an ml. type `trainstack catalog` lists with training plans "
                                 "(ml.p5.48xlarge, ...).")
    if not 1 <= count <= MAX_INSTANCES:
        raise CapacityQueryError(f"--count {count}: a training plan offering holds 1 to {MAX_INSTANCES} instances. "
                                 f"Fix: ask for 1 to {MAX_INSTANCES}.")
    if not 1 <= hours <= MAX_HOURS:
        raise CapacityQueryError(f"--hours {hours}: a training plan lasts 1 to {MAX_HOURS} hours. Fix: give the "
                                 "duration in hours (24 for a day).")


def offerings(client: Any, name: str, count: int, hours: int, earliest: Optional[datetime] = None,
              latest: Optional[datetime] = None) -> list[PlanOffering]:
    """Every HyperPod training-plan offering for ``count`` ``name`` instances for ``hours``, cheapest first."""
    check_query(name, count, hours)
    request: dict[str, Any] = {"InstanceType": name, "InstanceCount": count, "DurationHours": hours,
                               "TargetResources": [HYPERPOD_TARGET]}
    if earliest is not None:
        request["StartTimeAfter"] = earliest
    if latest is not None:
        request["EndTimeBefore"] = latest
    found = [PlanOffering(o["TrainingPlanOfferingId"], tuple(o["TargetResources"]), o.get("DurationHours", 0),
                          fee(o.get("UpfrontFee")), o.get("CurrencyCode", "USD"),
                          tuple(ReservedCapacity(c["InstanceType"], c["InstanceCount"], c.get("AvailabilityZone"),
                                                 c.get("StartTime"), c.get("EndTime"))
                                for c in o.get("ReservedCapacityOfferings") or []))
             for o in client.search_training_plan_offerings(**request)["TrainingPlanOfferings"]]
    return sorted(found, key=lambda o: (o.upfront_fee is None, o.upfront_fee or 0.0, o.starts or datetime.max))


def plan_findings(plan: dict[str, Any], instance_type: str, count: int) -> Iterator[tuple[str, bool, str]]:
    """(check, passed, reason) of a DescribeTrainingPlan answer against an instance group's type and count."""
    status = plan["Status"]
    yield ("state", status in USABLE,
           f"{status}" + ("" if status in USABLE else
                          ": HyperPod can use a plan once it is Scheduled or Active; "
                          + ("wait until its payment completes" if status == "Pending" else
                             "buy another (`trainstack capacity training-plans`) and set trainingPlanArn to it")))
    targets = plan.get("TargetResources") or []
    yield ("target", HYPERPOD_TARGET in targets,
           f"for {', '.join(targets) or 'no target'}" + ("" if HYPERPOD_TARGET in targets else
                                                        f"; HyperPod uses only plans for {HYPERPOD_TARGET}: set "
                                                        "trainingPlanArn to such a plan"))
    held = {summary["InstanceType"] for summary in plan.get("ReservedCapacitySummaries") or []}
    total = sum(summary["TotalInstanceCount"] for summary in plan.get("ReservedCapacitySummaries") or []
                if summary["InstanceType"] == instance_type)
    yield ("instance type", instance_type in held,
           f"for {', '.join(sorted(held)) or 'no instance type'}" + (
               "" if instance_type in held else f"; the group runs {instance_type}: set instanceType to the plan's"))
    if instance_type in held:
        yield ("size", total >= count, f"holds {total} x {instance_type}; the group has {count}"
               + ("" if total >= count else f": set count to at most {total}, or use a larger plan"))
    ends = plan.get("EndTime")
    yield ("end", True, f"ends {utc(ends)}" if ends else "SageMaker gives no end")
