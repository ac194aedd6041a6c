"""Accelerated node groups: instance type, size, zone, EFA and capacity."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal, Optional

from pydantic import Field, field_validator

from .. import catalog
from ..catalog.efa_layout import layout_for
from ..names import LABEL_PREFIX, RESERVED_LABELS
from .base import ConfigModel, ConfigValueError
from .block_end import DEFAULT_END_LEAD_MINUTES
from .cluster import catalog_entry
from .device_allocation import DeviceAllocation
from .kubernetes_names import check_labels, check_taint_key, check_taint_value
from .network import ZONE_PATTERN
from .node_repair import NodeRepair
from .pods import PodsPerNode, pods_per_node

# EC2 Capacity Blocks hold at most 64 instances each (DescribeCapacityBlockOfferings).
CAPACITY_BLOCK_MAX_INSTANCES = 64
# The largest group (a pool) trainstack plans: EKS supports clusters of up to 100,000 nodes (EKS user guide,
# "Amazon EKS ultra scale clusters"), and a group cannot be larger than its cluster.
MAX_POOL_NODES = 100_000


class CapacityPurchase(ConfigModel):
    """A Capacity Block the stack buys (opt in): the offering ``trainstack capacity offerings`` listed. The block is
    paid up front at ``pulumi up`` and never refunded (EC2 User Guide, Capacity Blocks pricing and billing); the
    plan shows the fee and dates, and ``trainstack diff`` blocks the pull request until the purchase is approved."""

    offering_id: str = Field(pattern=r"^\S{1,128}$")
    """The offering to buy, its id exactly as ``trainstack capacity offerings`` (DescribeCapacityBlockOfferings'
    ``CapacityBlockOfferingId``) lists it."""
    upfront_fee_usd: float = Field(gt=0)
    """The offering's up-front fee in USD as listed: what the plan and the review say the purchase costs."""


class PooledReservation(ConfigModel):
    """One reservation or capacity block of a pool (``capacity.reservations``)."""

    reservation_id: str = Field(pattern=r"^cr-[0-9a-f]{8,17}$")
    """Its id, ``cr-…``."""
    instance_count: int = Field(ge=1)
    """Instances it holds."""


class Capacity(ConfigModel):
    """Where the group's instances come from.

    * ``none``: regular on-demand capacity.
    * ``reservation``: an On-Demand Capacity Reservation, by ``reservationId`` or by
      ``resourceGroupArn`` (a group of reservations).
    * ``capacityBlock``: an EC2 Capacity Block for ML, by its ``reservationId``.

    With ``reservations`` (several reservations, or blocks of one dates, in the group's zone) the group is a pool:
    its nodes span them, split into as many EKS managed node groups as the per-group quota needs
    (``config/node_pool.py``), and Kueue sees it as one flavor, so one job can span them.
    """

    type: Literal["none", "reservation", "capacityBlock"] = "none"
    """Kind of capacity."""
    reservation_id: Optional[str] = Field(default=None, pattern=r"^cr-[0-9a-f]{8,17}$")
    """The reservation or capacity block id, ``cr-…``."""
    resource_group_arn: Optional[str] = Field(default=None, pattern=r"^arn:aws[-a-z]*:resource-groups:")
    """A resource group of reservations (reservation only)."""
    zone: Optional[str] = Field(default=None, pattern=ZONE_PATTERN)
    """The zone the reservation or block is in; must be the node group's zone."""
    instance_count: Optional[int] = Field(default=None, ge=1)
    """Instances the reservation or block holds; must cover the group's maxSize."""
    reservations: list[PooledReservation] = []
    """A pool: several reservations (or capacity blocks bought together: one ``startsAt`` and ``endsAt``), each with
    its ``reservationId`` and ``instanceCount``, in place of one ``reservationId``. Their instances together must
    cover the group's maxSize."""
    ends_at: Optional[datetime] = None
    """When the block (or a reservation with an end date) ends, in UTC as EC2 shows it
    (``2026-12-01T11:30:00Z``). Required for capacity blocks: the plan and the outputs report it,
    and ``trainstack preflight`` checks it against EC2."""
    starts_at: Optional[datetime] = None
    """When the block starts, in UTC as EC2 shows it (``2026-11-24T11:30:00Z``). A capacity block is
    paid up front for its whole duration: with ``startsAt`` the cost estimate says the total it costs;
    without it, only its hourly rate."""
    purchase: Optional[CapacityPurchase] = None
    """Capacity blocks on managed node groups: buy this block with the stack (``aws.ec2.CapacityBlockReservation``)
    instead of naming one bought elsewhere; then no ``reservationId``, and ``startsAt`` and ``endsAt`` as the
    offering lists them. Opt in: without it nothing is bought."""
    end_lead_minutes: Optional[int] = None
    """Capacity blocks on EKS: how many minutes before ``endsAt`` trainstack winds the block down. At that
    moment a CronJob the stack renders holds the Kueue ClusterQueues that can use the group
    (``stopPolicy: Hold``: no new admissions, admitted jobs keep running) and taints the group's nodes
    ``trainstack.io/capacity-block-ending:NoExecute``, which deletes their pods with each pod's grace
    period (SIGTERM: checkpoint now). Default: 60, which is EC2's own warning (the Capacity Block Expiration
    Warning event, 40 minutes before the end, when Karpenter and EKS start draining the nodes) plus 20
    minutes to checkpoint. At least 41 (before that warning), at most 1440, and shorter than the block."""

    @field_validator("ends_at", "starts_at")
    @classmethod
    def _utc(cls, value: Optional[datetime]) -> Optional[datetime]:
        if value is not None and value.tzinfo is None:
            raise ConfigValueError(f"'{value.isoformat()}' has no time zone.",
                                   fix="write it in UTC as EC2 shows it, e.g. 2026-12-01T11:30:00Z.")
        return value.astimezone(UTC) if value is not None else None

    @property
    def total_instances(self) -> Optional[int]:
        """The instances the reservation, block or pool of them holds; None with none."""
        return sum(r.instance_count for r in self.reservations) if self.reservations else self.instance_count

    @property
    def reservation_ids(self) -> list[str]:
        """Every reservation or block id the group names (a pool's, or its one)."""
        return ([r.reservation_id for r in self.reservations] if self.reservations
                else [self.reservation_id] if self.reservation_id else [])

    @property
    def block_end_lead_minutes(self) -> Optional[int]:
        """Minutes before ``endsAt`` that trainstack winds a capacity block down; None for other capacity."""
        if self.type != "capacityBlock":
            return None
        return self.end_lead_minutes if self.end_lead_minutes is not None else DEFAULT_END_LEAD_MINUTES


class Taint(ConfigModel):
    """A Kubernetes taint on every node of the group."""

    key: str
    """A Kubernetes qualified name, at most 63 characters (see kubernetes_names)."""
    value: Optional[str] = None
    """The taint's value; may be empty."""
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = "NoSchedule"
    """What the taint does to pods that do not tolerate it."""

    @field_validator("key")
    @classmethod
    def _key_syntax(cls, key: str) -> str:
        return check_taint_key(key)

    @field_validator("value")
    @classmethod
    def _value_syntax(cls, value: Optional[str]) -> Optional[str]:
        return check_taint_value(value)


class RootVolume(ConfigModel):
    """The nodes' root EBS volume (gp3)."""

    size_gib: int = Field(default=500, alias="sizeGiB", ge=20, le=16384)
    """Root volume size; container images for training are large (the seeds use 500 GiB)."""
    iops: int = Field(default=3000, ge=3000, le=80000)
    """gp3 IOPS."""
    throughput_mibps: int = Field(default=125, alias="throughputMiBps", ge=125, le=2000)
    """gp3 throughput."""


FIXED_CAPACITY_BATCH_PERCENTAGE = 25
"""A reserved or Capacity Block group's default roll batch, in percent of its nodes (``maxUnavailablePercentage``
says why)."""


class NodeGroupConfig(ConfigModel):
    """An accelerated node group (GPU or Trainium) in one zone."""

    name: str = Field(pattern=r"^[a-z][a-z0-9-]{0,37}[a-z0-9]$")
    """Group name: lower case letters, digits and dashes."""
    instance_type: str
    """An accelerated instance type from the catalog, e.g. p5.48xlarge or trn1.32xlarge."""
    min_size: int = Field(default=0, ge=0)
    """Fewest nodes; 0 lets the group scale to zero."""
    desired_size: int = Field(default=0, ge=0)
    """Nodes at creation (the autoscaler manages it afterwards)."""
    max_size: int = Field(ge=1, le=MAX_POOL_NODES)
    """Most nodes. Above the nodes one EKS managed node group may hold (450 by default), or over several
    reservations, the group is a pool of managed node groups (``config/node_pool.py``)."""
    zone: str = Field(pattern=ZONE_PATTERN)
    """The one zone the group runs in (EFA traffic does not cross zones)."""
    efa: Optional[bool] = None
    """Attach EFA interfaces. Default: on when the instance type supports EFA."""
    max_pods: Optional[int] = Field(default=None, ge=1)
    """The kubelet's maxPods. Default: the smaller of what the EFA layout leaves on network
    card 0 and the EKS recommendation (110, or 250 above 30 vCPUs); never above the former."""
    capacity: Capacity = Capacity()
    """Where the instances come from: on-demand, a capacity reservation or a capacity block."""
    placement_group: Optional[bool] = None
    """A cluster placement group. Default: on for EFA groups on plain on-demand capacity;
    never with reservations or capacity blocks, whose launches fail with a new group."""
    root_volume: RootVolume = RootVolume()
    """The nodes' root EBS volume."""
    labels: dict[str, str] = {}
    """Extra Kubernetes node labels."""
    taints: list[Taint] = []
    """Extra taints, besides the accelerator taint the library adds."""
    auto_repair: bool = True
    """EKS node auto repair: replace or reboot a node whose conditions (from the node monitoring
    agent: AcceleratedHardwareReady, NetworkingReady, ...) or NodeReady report it unhealthy."""
    max_unavailable: Optional[int] = Field(default=None, ge=1, le=100)
    """Nodes EKS replaces at once when it rolls the group to a new version or launch template (``updateConfig``
    ``maxUnavailable``, 1-100: EKS replaces at most 100 nodes at once). Set this or ``maxUnavailablePercentage``,
    not both. Default: 1 on on-demand capacity, which launches its replacements first and must find room for
    them; 25 percent on a reservation or capacity block (see ``maxUnavailablePercentage``). A roll takes about
    8 minutes a batch, and `pulumi up` waits for it (docs/upgrades.md)."""
    max_unavailable_percentage: Optional[int] = Field(default=None, ge=1, le=100)
    """The share of the group's nodes EKS replaces at once when it rolls the group (``updateConfig``
    ``maxUnavailablePercentage``, 1-100, at most 100 nodes at once). Default on a reservation or capacity block:
    25. Those groups terminate a node before launching its replacement (``MINIMAL``) into capacity held for them,
    so a larger batch needs no room beyond the group's own; a distributed job stops when any of its nodes goes,
    so one node at a time keeps no job running and only makes the roll last (16 p5 nodes: 128 minutes one by
    one, 32 in batches of 25 percent); a quarter bounds what one bad AMI takes down before EKS fails the
    update. Not with ``autoscaler: karpenter`` (a NodePool's disruption budget paces its rolls)."""
    node_repair: Optional[NodeRepair] = None
    """Node auto repair's thresholds, pace and per-condition actions (EKS ``nodeRepairConfig``); unset, EKS's
    defaults. On reserved capacity it repairs one node at a time unless told otherwise (config/node_repair.py)."""
    offering_unchecked: Optional[str] = Field(default=None, min_length=1)
    """Why this group's instance type is offered where the catalog's offering data says it is not (AWS
    began offering it after the data was generated). With a reason here, validation does not check
    the offering; ``trainstack preflight`` still asks the account."""
    ami_version: Optional[str] = Field(default=None, pattern=r"^(latest|v\d{8})$")
    """Karpenter groups: the EKS-optimized AL2023 AMI release the nodes launch from (``v20260724``, an
    awslabs/amazon-eks-ami release tag), or ``latest`` (dev only: every AMI release drifts and replaces
    the pool's nodes). Default: ``latest`` on a dev profile; production stacks name one. To roll: set the
    next release; Karpenter replaces the pool's nodes as drifted, within its disruption budget."""
    device_allocation: DeviceAllocation = "device-plugins"
    """How the nodes' GPUs or Neuron devices and EFA interfaces reach pods. ``device-plugins``: integer
    extended resources (``nvidia.com/gpu``, ``aws.amazon.com/neuron``, ``vpc.amazonaws.com/efa``).
    ``dra``: Dynamic Resource Allocation (Kubernetes 1.34+): the NVIDIA DRA driver, the Neuron DRA driver
    and aws-dranet publish the devices, and jobs claim them through ResourceClaimTemplates; EKS's
    recommendation for static capacity, and required for p6e-gb200. Not with ``autoscaler: karpenter``;
    a DRA group keeps ``minSize`` at least 1 (the Cluster Autoscaler cannot scale it from zero)."""
    autoscaler: Literal["cluster-autoscaler", "karpenter"] = "cluster-autoscaler"
    """Who adds and removes the group's nodes, and so who holds its reservation or capacity block.
    ``cluster-autoscaler``: an EKS managed node group the Cluster Autoscaler resizes. ``karpenter``: a
    Karpenter NodePool and EC2NodeClass, no managed node group; Karpenter launches nodes for pending pods.
    A Karpenter group is an elastic pool (development, inference, preprocessing; EFA only when asked), or,
    with a ``capacity`` reservation or block named by ``reservationId``, the one holder of that capacity
    (capacity type ``reserved`` only, EFA on where the type has it), as the pinned Karpenter supports
    (ODCRs since v1.3, Capacity Blocks since v1.6, EFA interfaces and placement groups since v1.11:
    aws/karpenter-provider-aws v1.14.1, the website pages tasks/odcrs.md and concepts/nodeclasses.md)."""
    spot: bool = False
    """Karpenter elastic pools: launch on Spot, falling back to On-Demand when Spot has none (NodePool
    capacity types spot and on-demand; Karpenter drains a node on its two-minute interruption warning,
    through the interruption queue it is installed with). Never with EFA or a reservation. The account
    needs the EC2 Spot service-linked role, once (Karpenter's getting-started step06:
    ``aws iam create-service-linked-role --aws-service-name spot.amazonaws.com``); the stack makes none."""

    @field_validator("instance_type")
    @classmethod
    def _accelerated(cls, value: str) -> str:
        entry = catalog_entry(value)
        if entry.accelerator is None:
            raise ConfigValueError(f"'{value}' has no accelerator.",
                                   fix="use eks.systemNodes for CPU nodes; node groups here are GPU or Trainium.")
        return value

    @field_validator("labels")
    @classmethod
    def _own_labels(cls, labels: dict[str, str]) -> dict[str, str]:
        check_labels(labels)
        for key in labels:
            if key.startswith(LABEL_PREFIX) or key in RESERVED_LABELS:
                raise ConfigValueError(
                    f"label '{key}' is set by trainstack (device plugins and job launchers select on it).",
                    fix="use another label key.", path=(key,), value=labels[key])
        return labels

    @property
    def instance(self) -> catalog.InstanceType:
        return catalog.get(self.instance_type)

    @property
    def pods_per_node(self) -> PodsPerNode:
        """The group's maxPods and where it comes from (valid once the model is validated)."""
        return pods_per_node(self.instance_type, self.efa_enabled, self.max_pods)

    @property
    def accelerator(self) -> catalog.Accelerator:
        """The instance type's accelerator (every node group has one: ``instanceType`` is checked)."""
        return self.instance.require("the accelerator", self.instance.accelerator, "build an accelerated node group")

    @property
    def efa_interfaces_per_node(self) -> int:
        """EFA interfaces each node advertises as ``vpc.amazonaws.com/efa`` (valid once validated)."""
        return sum(1 for slot in layout_for(self.instance, self.efa_enabled) if slot.is_efa)

    @property
    def efa_enabled(self) -> bool:
        """Whether the nodes get EFA interfaces: ``efa`` as given, else on where the instance type has
        EFA; on a Karpenter elastic pool (no reservation) only when asked (valid once validated: the checks
        refuse EFA the instance type cannot lay out, config/checks/nodegroups.py)."""
        if self.autoscaler == "karpenter" and self.efa is None and self.capacity.type == "none":
            return False  # an elastic pool: EFA only when asked (docs/adr/0007-one-autoscaler-per-group.md)
        if not self.instance.efa.supported:
            return False
        return True if self.efa is None else self.efa

    @property
    def in_placement_group(self) -> bool:
        """Whether the group launches into a cluster placement group: ``placementGroup`` as given, else
        on for EFA groups on plain on-demand capacity (reservations and capacity blocks refuse one).
        Why: docs/adr/0006-placement-groups-and-rollouts.md"""
        if self.placement_group is not None:
            return self.placement_group
        return self.efa_enabled and self.capacity.type == "none"

    @property
    def update_batch(self) -> dict[str, int]:
        """The managed node group's ``updateConfig`` batch, in the provider's argument names: the one given, else
        25 percent on a reservation or capacity block and 1 node elsewhere (``maxUnavailablePercentage``)."""
        if self.max_unavailable is not None:
            return {"max_unavailable": self.max_unavailable}
        if self.max_unavailable_percentage is not None:
            return {"max_unavailable_percentage": self.max_unavailable_percentage}
        if self.capacity.type != "none":
            return {"max_unavailable_percentage": FIXED_CAPACITY_BATCH_PERCENTAGE}
        return {"max_unavailable": 1}

    @property
    def owned_nodes(self) -> int:
        """The nodes the stack can count on for this group: its maxSize. With a reservation or a
        capacity block, maxSize is at most the instances it holds (config/checks/capacity.py), so shrinking the
        reservation shrinks this with it; what the group cannot scale to, no queue may promise."""
        return self.max_size
