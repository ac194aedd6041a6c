"""What a planned stack costs per hour and per month (730 h: ``prices.HOURS_PER_MONTH``), at desired and at max
size.

Read from the plan record (what would be created), priced from the catalog (instances) and ``prices``
(services). Every line says its source; a line without a published price says so and is left out of the
totals, which are then a lower bound that names it (``totals.py``). Every figure is derived here, line by line
(``CostLine.hourly``, ``CostLine.monthly``): the plan, the record, the report, the diff, the team figures and the
cost ceiling read these, never a month of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, ClassVar, Optional, Protocol

from .. import catalog, names
from ..catalog import eks_versions
from ..names import (
    AWS_PROVIDER,
    EIP,
    EKS_COMPONENT_CLUSTER,
    EXISTING_CLUSTER_COMPONENT,
    EXISTING_NODE_GROUP_COMPONENT,
    HYPERPOD_CLUSTER,
    INSTANCE_TYPE_LABEL,
    KARPENTER_NODE_POOL,
    LUSTRE_FILE_SYSTEM,
    NODE_GROUP,
    NODE_GROUP_LABEL,
    VPC_ENDPOINT,
)
from ..plan import Plan
from .control_plane import TIER_UNPRICED
from .prices import (
    EKS_CONTROL_PLANE,
    EKS_CONTROL_PLANE_EXTENDED_SUPPORT,
    FSX_INTELLIGENT_TIERING_UNPRICED,
    GP3_STORAGE,
    HOURS_PER_MONTH,
    HYPERPOD,
    INTERFACE_ENDPOINT,
    NAT_GATEWAY,
    PUBLIC_IPV4,
    TRAINING_PLAN_BILLING,
    ServicePrice,
    fsx_price,
    in_region,
)
from .reserved import IDLE, Commitment, Reserved
from .spot import allows_spot, spot_pricing
from .totals import MONTH, money, total_said
from .usage import NOT_ESTIMATED, UsageLine

RESOURCE = "resource"
"""The kind of a line that prices what the stack makes and runs."""
NOT_COUNTED = "not-counted"
"""The kind of a line the stack describes but does not make (an existing cluster's nodes): named, never totalled."""
EXISTING_NODES = ("not counted: the nodes of an existing cluster (existingCluster) are made and billed where the "
                  "cluster was made; this stack adds no instance")


@dataclass
class CostLine:
    item: str
    quantity_desired: float
    quantity_max: float
    unit_usd_per_hour: Optional[float]
    source: str
    resources: tuple[str, ...] = ()
    """URNs of the planned resources the line prices, so a reader can say which component
    the money goes to (the report groups by them); not part of the plan record."""
    kind: str = RESOURCE
    """``resource``; ``idle-reserved``: reserved instances billed while no node of the group runs in them;
    ``not-counted``: described, not made by the stack (left out of the totals)."""
    hours_in_month: float = HOURS_PER_MONTH
    """The hours of a month the line bills: fewer for reserved capacity that ends sooner (a 48-hour block)."""
    capacity: Optional[str] = None
    """The reservation, block or training plan the line prices (its id or ARN): the diff follows it when the
    group that held it goes (``review/held_capacity.py``)."""
    group: Optional[str] = None
    """The node group (``trainstack.io/node-group``) whose nodes the line prices, on the line of its instances."""

    @property
    def priced(self) -> bool:
        return self.unit_usd_per_hour is not None

    @property
    def counted(self) -> bool:
        return self.kind != NOT_COUNTED

    def hourly(self, at: str) -> float:
        """US$ per hour at ``at`` ("desired" or "max") size; 0 without a published price."""
        if self.unit_usd_per_hour is None:
            return 0.0
        return (self.quantity_desired if at == "desired" else self.quantity_max) * self.unit_usd_per_hour

    def monthly(self, at: str) -> float:
        """US$ in a month of 730 h at ``at`` size: the hours it bills, never more than its capacity lasts."""
        return self.hourly(at) * self.hours_in_month

    def as_dict(self) -> dict[str, Any]:
        monthly = {at: round(self.monthly(at), 2) for at in ("desired", "max")} if self.priced else None
        return {"item": self.item, "kind": self.kind, "desired": self.quantity_desired, "max": self.quantity_max,
                "usdPerHour": self.unit_usd_per_hour, "hoursPerMonth": self.hours_in_month, "monthlyUsd": monthly,
                "source": self.source, **({"capacity": self.capacity} if self.capacity else {}),
                **({"group": self.group} if self.group else {})}


@dataclass
class CostEstimate:
    key: ClassVar[str] = "cost"
    """Its key in a plan record (a ``plan.Section``)."""

    region: str
    lines: list[CostLine] = field(default_factory=list)
    commitments: list[Commitment] = field(default_factory=list)
    """Capacity blocks, each said once with its dates and up-front total."""
    usage: Optional[list[UsageLine]] = None
    """The month's usage-based charges from the stack's usage section; None where the stack has none."""
    max_monthly_increase_usd: Optional[float] = None
    """The stack's ``cost.maxMonthlyIncreaseUsd``, which `trainstack diff` reads from the head's record."""

    @property
    def counted(self) -> list[CostLine]:
        return [line for line in self.lines if line.counted]

    def hourly(self, at: str) -> float:
        return sum(line.hourly(at) for line in self.counted)

    def monthly(self, at: str) -> float:
        """US$ per month of 730 hours, each line for the hours it bills."""
        return sum(line.monthly(at) for line in self.counted)

    @property
    def warnings(self) -> list[str]:
        """Idle reserved capacity at desired size: paid for, and no node runs in it."""
        return [f"{line.item.strip()}: {line.quantity_desired:g} reserved instances billed at "
                f"${line.hourly('desired'):,.2f}/h with no node running in them at desired size"
                for line in self.lines if line.kind == IDLE and line.quantity_desired and line.priced]

    @property
    def unpriced(self) -> list[CostLine]:
        """Counted lines without a price: the totals are a lower bound while there is one."""
        return [line for line in self.counted if not line.priced]

    @property
    def not_counted(self) -> list[CostLine]:
        return [line for line in self.lines if not line.counted]

    def group_line(self, group: str) -> Optional[CostLine]:
        """The line that prices the nodes of node group ``group`` (not its idle capacity or volumes)."""
        return next((line for line in self.lines if line.group == group), None)

    def as_dict(self) -> dict[str, Any]:
        return {
            "region": self.region,
            "hoursPerMonth": HOURS_PER_MONTH,
            "hourlyUsd": {"desired": round(self.hourly("desired"), 4), "max": round(self.hourly("max"), 4)},
            "monthlyUsd": {"desired": round(self.monthly("desired"), 2), "max": round(self.monthly("max"), 2)},
            "complete": not self.unpriced,
            "unpriced": [line.item.strip() for line in self.unpriced],
            "notCounted": [line.item.strip() for line in self.not_counted],
            "lines": [line.as_dict() for line in self.lines],
            "capacityBlocks": [c.as_dict() for c in self.commitments],
            "warnings": self.warnings,
            "usage": None if self.usage is None else {
                "lines": [line.as_dict() for line in self.usage],
                "monthlyUsd": round(sum(line.monthly or 0.0 for line in self.usage), 2),
                "complete": all(line.monthly is not None for line in self.usage)},
            **({"maxMonthlyIncreaseUsd": self.max_monthly_increase_usd}
               if self.max_monthly_increase_usd is not None else {}),
        }

    def render(self) -> str:
        rows = [f"Cost ({self.region}, on demand):",
                f"  {'item':<44} {'desired':>8} {'max':>6} {'$/h each':>11}  source"]
        for line in self.lines:
            price = f"{line.unit_usd_per_hour:>11.4f}" if line.priced else f"{'no price':>11}"
            rows.append(f"  {line.item:<44} {line.quantity_desired:>8g} {line.quantity_max:>6g} {price}  {line.source}")
        section = self.as_dict()
        rows += [f"  at {at} size: {total_said(section, at)}" for at in ("desired", "max")]
        rows += [commitment.render() for commitment in self.commitments]
        rows += self._usage_rows()
        rows += [f"  warning: {warning}" for warning in self.warnings]
        return "\n".join(rows)

    def _usage_rows(self) -> list[str]:
        """The usage-based charges, apart from the hourly totals: per month, each with its source."""
        if self.usage is None:
            return [f"  {NOT_ESTIMATED}"]
        rows = ["  usage per month (the stack's usage section):"]
        for line in self.usage:
            cost = f"${line.monthly:,.2f}" if line.monthly is not None else "no price"
            rows.append(f"    {line.item}: {line.quantity:g} {line.unit}, {cost}  {line.source}")
        unpriced = [line for line in self.usage if line.monthly is None]
        total = sum(line.monthly or 0.0 for line in self.usage)
        rows.append(f"    usage total: ${total:,.2f} {MONTH}"
                    + (" (incomplete: uses without a published rate are not counted)" if unpriced else ""))
        return rows

    def total(self, at: str) -> str:
        """The hourly total as the cost ceiling's message says it: a lower bound while items are unpriced."""
        return money(self.hourly(at), at_least=bool(self.unpriced))


class PricedResource(Protocol):
    """What the estimate reads of a resource: the plan's records and the policy view both have it."""

    @property
    def type(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def urn(self) -> str: ...
    @property
    def inputs(self) -> dict[str, Any]: ...
    @property
    def property_dependencies(self) -> dict[str, list[str]]: ...
    @property
    def parent(self) -> Optional[str]: ...


def estimate_cost(plan: Plan) -> CostEstimate:
    return estimate_resources(plan.resources, _region(plan))


def estimate_resources(resources: Sequence[PricedResource], region: str,
                       day: date = eks_versions.DATA_DATE) -> CostEstimate:
    """The cost of ``resources`` in ``region``: the one computation behind the cost section, the diff's
    deltas and the ``hourly-cost-ceiling`` rule. ``day`` decides which EKS support, standard or extended, a
    cluster's Kubernetes version is billed in: by default the day the EKS version data was read, so a stack plans to
    the same record whatever day it is planned on, and a refresh of the data is what moves it."""
    estimate = CostEstimate(region)
    by_urn = {r.urn: r for r in resources}

    def by_type(type_token: str) -> list[PricedResource]:
        return [r for r in resources if r.type == type_token]

    for group in by_type(NODE_GROUP):
        reserved = _reserved(estimate, by_urn.get(group.parent or ""))
        estimate.lines += _node_group_lines(group, _root_volume_gib(by_urn, group), region, reserved)
    for pool in by_type(KARPENTER_NODE_POOL):
        estimate.lines += _karpenter_pool_lines(pool, region, _reserved(estimate, by_urn.get(pool.parent or "")))
    estimate.lines += _control_plane_lines(by_type(EKS_COMPONENT_CLUSTER), day)
    estimate.lines += _service_lines(by_type, region)
    for file_system in by_type(LUSTRE_FILE_SYSTEM):
        estimate.lines.append(_file_system_line(file_system, region))
    for cluster in by_type(HYPERPOD_CLUSTER):
        estimate.lines += _hyperpod_lines(cluster, region)
    estimate.lines += [_existing_nodes_line(group, region) for group in by_type(EXISTING_NODE_GROUP_COMPONENT)]
    return estimate


def _service_lines(by_type: Any, region: str) -> list[CostLine]:
    """The control plane's Provisioned tier, NAT gateways, their public addresses and the interface endpoints."""
    lines = []
    for priced, service, item in ((by_type(names.NAT_GATEWAY), NAT_GATEWAY, "NAT gateway"),
                                  (by_type(EIP), PUBLIC_IPV4, "public IPv4 address")):
        if priced:
            regional = in_region(service, region)
            lines.append(CostLine(item, len(priced), len(priced), regional.usd if regional else None,
                                  _source(regional, item, region), tuple(r.urn for r in priced)))
    lines += [_tier_line(cluster) for cluster in by_type(names.GPU_EKS_CLUSTER_COMPONENT)
              if cluster.inputs.get("controlPlaneTier") not in (None, "standard")]
    endpoints = [e for e in by_type(VPC_ENDPOINT) if e.inputs.get("vpcEndpointType") == "Interface"]
    if endpoints:
        zones = sum(len(e.inputs.get("subnetIds") or []) for e in endpoints)
        regional = in_region(INTERFACE_ENDPOINT, region)
        lines.append(CostLine("interface endpoints (per zone)", zones, zones, regional.usd if regional else None,
                              _source(regional, "interface endpoints", region), tuple(e.urn for e in endpoints)))
    return lines


CONTROL_PLANE = "EKS control plane"


def _control_plane_lines(clusters: Sequence[PricedResource], day: date) -> list[CostLine]:
    """The EKS control planes (pulumi-eks clusters), each at the rate of its Kubernetes version's support on ``day``:
    one line per rate and note, all under one item, so the diff follows a version change as the same item's cost.
    EKS bills the rate in every Region (``*``)."""
    by_rate: dict[tuple[float, str], list[str]] = {}
    for cluster in clusters:
        price, note = _control_plane_price(cluster.inputs.get("version"), day)
        by_rate.setdefault((price.usd, f"{note}; {price.source}, {price.valid_on}"), []).append(cluster.urn)
    return [CostLine(CONTROL_PLANE, len(urns), len(urns), usd, source, tuple(urns))
            for (usd, source), urns in by_rate.items()]


def _control_plane_price(version: Any, day: date) -> tuple[ServicePrice, str]:
    """The rate a control plane on Kubernetes ``version`` pays on ``day`` (catalog/eks_versions.py has EKS's rules
    and dates), and what the line says of it. A version the data does not know is priced at the standard rate, said
    unknown, never guessed."""
    row = eks_versions.version(str(version)) if version else None
    data = f"EKS version data of {eks_versions.DATA_DATE.isoformat()}"
    if row is None or day < row.eks_release:
        said = f"Kubernetes {version}" if version else "Kubernetes version not set (EKS's default)"
        return EKS_CONTROL_PLANE, f"{said}: support status unknown ({data}), priced at the standard-support rate"
    support = row.support_on(day)
    if support == "standard":
        return EKS_CONTROL_PLANE, (f"Kubernetes {row.minor} in standard support until "
                                   f"{row.end_of_standard_support.isoformat()} ({data})")
    if support == "extended":
        return EKS_CONTROL_PLANE_EXTENDED_SUPPORT, (
            f"Kubernetes {row.minor} in EKS extended support since {row.end_of_standard_support.isoformat()}, "
            f"ending {row.end_of_extended_support.isoformat()} ({data})")
    # Past extended support EKS creates no cluster on the version and upgrades an existing one "to the oldest
    # currently supported extended version" (EKS user guide,
    # awsdocs/amazon-eks-user-guide latest/ug/versioning/kubernetes-versions.adoc @ 0138560, read 2026-11-28): extended
    # again.
    return EKS_CONTROL_PLANE_EXTENDED_SUPPORT, (
        f"Kubernetes {row.minor}: EKS extended support ended on {row.end_of_extended_support.isoformat()}, so EKS "
        f"creates no cluster on it and upgrades an existing one to the oldest version in extended support ({data})")


def _tier_line(cluster: PricedResource) -> CostLine:
    """A Provisioned Control Plane tier, billed per hour on top of the control plane's fee (the GpuEksCluster records
    the tier it sets: cluster/control_plane_tier.py); no dated primary price was found, so the line says so."""
    tier = cluster.inputs["controlPlaneTier"]
    return CostLine(f"EKS Provisioned Control Plane ({tier})", 1, 1, None, TIER_UNPRICED, (cluster.urn,))


def _file_system_line(file_system: PricedResource, region: str) -> CostLine:
    """An FSx for Lustre file system's storage, per GiB-hour (its GB-month rate over the 730-hour month)."""
    inputs = file_system.inputs
    if inputs.get("storageType") == "INTELLIGENT_TIERING":
        # Elastic storage: nothing provisioned to multiply, and no dated rate for what is billed.
        throughput = inputs.get("throughputCapacity", 0)
        return CostLine(f"FSx {file_system.name} (Intelligent-Tiering, {throughput} MB/s)", throughput, throughput,
                        None, FSX_INTELLIGENT_TIERING_UNPRICED, (file_system.urn,))
    price = fsx_price(inputs.get("deploymentType", ""), inputs.get("perUnitStorageThroughput"), region)
    tier = f"{inputs.get('deploymentType')} {inputs.get('perUnitStorageThroughput') or ''}".strip()
    capacity = inputs.get("storageCapacity", 0)
    return CostLine(f"FSx {file_system.name} ({capacity} GiB {tier})", capacity, capacity,
                    price.usd / HOURS_PER_MONTH if price else None,
                    f"{price.source}, {price.valid_on}" if price
                    else f"no published price for FSx {tier} in {region}", (file_system.urn,))


def _hyperpod_lines(cluster: PricedResource, region: str) -> list[CostLine]:
    """Each HyperPod instance group at SageMaker's ml.* rate; a group on a training plan runs in capacity paid up
    front for the plan, whose fee the stack does not hold, so it has no rate (the on-demand ml.* rate is not what
    it costs)."""
    lines = []
    for group in cluster.inputs.get("instanceGroups") or []:
        instance_type, name = group.get("instanceType"), group.get("instanceGroupName")
        count, plan = group.get("instanceCount", 0), group.get("trainingPlanArn")
        price = None if plan else HYPERPOD.get((instance_type, region))
        source = (f"training plan {plan}: {TRAINING_PLAN_BILLING}; its fee is not in the stack" if plan
                  else f"{price.source}, {price.valid_on}" if price
                  else f"no published price for {instance_type} in {region}")
        lines.append(CostLine(f"HyperPod {name} ({instance_type})", count, count, price.usd if price else None,
                              source, (cluster.urn,), capacity=plan, group=name))
    return lines


def _existing_nodes_line(group: PricedResource, region: str) -> CostLine:
    """A group of an existing cluster (``existingCluster``): described so the plan can judge it, made and billed
    elsewhere. Its rate is shown for the team figures, which price a queue's nodes at it; it is never totalled."""
    scaling = group.inputs.get("scalingConfig") or {}
    instance = catalog.find((group.inputs.get("instanceTypes") or ["?"])[0])
    name = instance.name if instance else "unknown type"
    on_demand = instance.price(region) if instance else None
    return CostLine(f"{group.name} ({name}, existing cluster)", scaling.get("desiredSize", 0),
                    scaling.get("maxSize", 0), on_demand.usd_per_hour if on_demand else None,
                    EXISTING_NODES, (group.urn,), kind=NOT_COUNTED,
                    group=(group.inputs.get("labels") or {}).get(NODE_GROUP_LABEL))


def _reserved(estimate: CostEstimate, component: Optional[PricedResource]) -> Optional[Reserved]:
    """The reservation or block a group's component (managed group or Karpenter pool) records; a block is
    also said once as a commitment."""
    reserved = Reserved.from_record(component.inputs.get("capacity") if component else None)
    if reserved and reserved.kind == "capacityBlock":
        rate, source = reserved.rate(None, "", estimate.region)
        estimate.commitments.append(Commitment(reserved, rate, source))
    return reserved


def _held(line: CostLine, reserved: Reserved) -> CostLine:
    """``line`` as a line of ``reserved`` capacity: it names it and bills the hours of a month it lasts."""
    line.capacity, line.hours_in_month = reserved.target, reserved.hours_in_month
    return line


def _node_group_lines(group: PricedResource, volume_gib: Optional[int], region: str,
                      reserved: Optional[Reserved] = None) -> list[CostLine]:
    """A node group's instances and their root volumes, at desired and at max size; a reserved group's
    instances at its reservation's rate, with the reserved instances it does not run as a line of their own."""
    scaling = group.inputs.get("scalingConfig") or {}
    instance = catalog.find((group.inputs.get("instanceTypes") or ["?"])[0])
    on_demand = instance.price(region) if instance else None
    name = instance.name if instance else "unknown type"
    rate = on_demand.usd_per_hour if on_demand else None
    source = f"{on_demand.source}, {on_demand.valid_on}" if on_demand else f"no published price for {name} in {region}"
    desired, maximum = scaling.get("desiredSize", 0), scaling.get("maxSize", 0)
    label = (group.inputs.get("labels") or {}).get(NODE_GROUP_LABEL)
    if reserved is None:
        lines = [CostLine(f"{group.name} ({name})", desired, maximum, rate, source, (group.urn,), group=label)]
    else:
        rate, source = reserved.rate(rate, source, region)
        # Nodes of the group run inside the reservation (no second charge); what it holds beyond them is idle.
        lines = [_held(CostLine(f"{group.name} ({name}) in {reserved.label}", desired, maximum, rate, source,
                                (group.urn,), group=label), reserved),
                 _held(CostLine(f"  idle reserved capacity, {reserved.label}", max(reserved.instances - desired, 0),
                                max(reserved.instances - maximum, 0), rate, source, (group.urn,), kind=IDLE),
                       reserved)]
    gp3 = in_region(GP3_STORAGE, region)
    if volume_gib:
        lines.append(CostLine(f"  {group.name} root volumes ({volume_gib} GiB gp3)",
                              scaling.get("desiredSize", 0) * volume_gib, scaling.get("maxSize", 0) * volume_gib,
                              gp3.usd / HOURS_PER_MONTH if gp3 else None, _source(gp3, "gp3", region), (group.urn,)))
    return lines


def _karpenter_pool_lines(pool: PricedResource, region: str, reserved: Optional[Reserved] = None) -> list[CostLine]:
    """A Karpenter NodePool at its limits: none of its nodes run until pods ask (desired 0); at most as many
    as its ``spec.limits`` allow of its one instance type (Karpenter launches no node past a limit:
    karpenter.sh/docs/concepts/nodepools, Limits). A pool that holds a reservation or block is priced as
    its reservation (``spot.py`` says how a Spot pool is)."""
    spec = pool.inputs.get("spec") or {}
    template = spec.get("template") or {}
    requirements = (template.get("spec") or {}).get("requirements") or []
    label = ((template.get("metadata") or {}).get("labels") or {}).get(NODE_GROUP_LABEL)
    types = next((r.get("values") or [] for r in requirements if r.get("key") == INSTANCE_TYPE_LABEL), [])
    instance = catalog.find(types[0]) if len(types) == 1 else None
    if instance is None:
        return [CostLine(f"{pool.name} (Karpenter pool)", 0, 0, None,
                         f"a pool of {types or 'any'} instance types cannot be priced at its limits", (pool.urn,),
                         group=label)]
    limit = (spec.get("limits") or {}).get("cpu")
    vcpus = instance.vcpus
    nodes = int(limit) // vcpus if vcpus and limit is not None and str(limit).isdigit() else None
    on_demand = instance.price(region)
    if nodes is None:
        return [CostLine(f"{pool.name} ({instance.name}, Karpenter pool)", 0, 0, None,
                         "the pool has no cpu limit, so it has no maximum cost", (pool.urn,), group=label)]
    rate = on_demand.usd_per_hour if on_demand else None
    source = (f"{on_demand.source}, {on_demand.valid_on}" if on_demand
              else f"no published price for {instance.name} in {region}")
    if reserved is not None:
        rate, source = reserved.rate(rate, source, region)
        return [_held(CostLine(f"{pool.name} ({instance.name}, Karpenter pool) in {reserved.label}", 0, nodes, rate,
                               source, (pool.urn,), group=label), reserved),
                _held(CostLine(f"  idle reserved capacity, {reserved.label}", reserved.instances,
                               max(reserved.instances - nodes, 0), rate, source, (pool.urn,), kind=IDLE), reserved)]
    if allows_spot(pool.inputs):
        item, source = spot_pricing(pool.name, instance.name, source)
        return [CostLine(item, 0, nodes, rate, source, (pool.urn,), group=label)]
    return [CostLine(f"{pool.name} ({instance.name}, Karpenter pool)", 0, nodes, rate, source, (pool.urn,),
                     group=label)]


def _region(plan: Plan) -> str:
    """The stack's region (``stack_region``); a program built from the components (no explicit provider)
    uses the default provider, whose region is the ``aws:region`` config."""
    return stack_region(plan.resources) or plan.default_region or "unknown"


def stack_region(resources: Sequence[PricedResource]) -> Optional[str]:
    """The region of the stack's AWS provider, or, on a stack with none (an existing cluster), the one its
    ExistingCluster records: the cost section and the cost ceiling price in the same region."""
    for resource in resources:
        if resource.type in (AWS_PROVIDER, EXISTING_CLUSTER_COMPONENT) and resource.inputs.get("region"):
            return str(resource.inputs["region"])
    return None


def _root_volume_gib(by_urn: dict[str, PricedResource], group: PricedResource) -> Optional[int]:
    for urn in group.property_dependencies.get("launchTemplate", []):
        template = by_urn.get(urn)
        for mapping in (template.inputs.get("blockDeviceMappings") if template else None) or []:
            return (mapping.get("ebs") or {}).get("volumeSize")
    return None


def _source(price: Optional[ServicePrice], item: str, region: str) -> str:
    return f"{price.source}, {price.valid_on}" if price else f"no published price for {item} in {region}"
