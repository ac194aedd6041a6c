"""The shape of one instance type's facts.

Every fact a component, a validator or a policy needs about an instance type
lives here and nowhere else. ``None`` means *unknown*: no primary source gave
the value. Code that depends on an unknown fact must refuse with a clear error
(see :meth:`InstanceType.require`), never guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from enum import Enum
from typing import Optional, TypeVar

from ..names import GPU_RESOURCE, NEURON_RESOURCE, NEURONCORE_RESOURCE

T = TypeVar("T")

HYPERPOD_PREFIX = "ml."
"""SageMaker names an instance type ``ml.<EC2 name>`` (HyperPod's ``ClusterInstanceType``)."""


class AcceleratorKind(str, Enum):
    GPU = "nvidia-gpu"
    NEURON = "neuron"


class UnknownFactError(ValueError):
    """A catalog fact needed for a decision is not known from any primary source."""


@dataclass(frozen=True)
class Accelerator:
    kind: AcceleratorKind
    name: str
    count: int
    """Devices per instance (GPUs, or Trainium/Inferentia chips)."""
    memory_mib: Optional[int]
    """Memory per device. GPUs: the usable MiB the EC2 API reports, not the
    marketing size (A10G is 22888 MiB, not 24 GB). Trainium2: Neuron docs' 96 GiB
    HBM, because the EC2 API's 524288 MiB per chip contradicts them."""
    neuron_cores: Optional[int] = None
    """Physical NeuronCores per instance (Neuron devices only)."""

    @property
    def resource_names(self) -> tuple[str, ...]:
        """The Kubernetes extended resources the device plugin advertises."""
        if self.kind is AcceleratorKind.GPU:
            return (GPU_RESOURCE,)
        return (NEURON_RESOURCE, NEURONCORE_RESOURCE)


@dataclass(frozen=True)
class Network:
    cards: Optional[int]
    """Network cards (``MaximumNetworkCards``)."""
    enis_on_card0: Optional[int]
    """ENIs the default network card takes; the only card the VPC CNI counts for pods."""
    ipv4_per_eni: Optional[int]
    max_pods: Optional[int]
    """AL2023 nodeadm default: ``enis_on_card0 * (ipv4_per_eni - 1) + 2``."""
    bandwidth_gbps: Optional[float] = None
    """The instance's network bandwidth (``NetworkPerformance``), shared by EFA and IP
    traffic; ``None`` where EC2 gives only a burst figure ("Up to 25 Gigabit") or none."""


def max_pods_nodeadm(enis_on_card0: int, ipv4_per_eni: int) -> int:
    """AL2023 nodeadm's default max pods: only the default card's ENIs count for pods."""
    return enis_on_card0 * (ipv4_per_eni - 1) + 2


@dataclass(frozen=True)
class Efa:
    supported: bool
    max_interfaces: Optional[int]
    """The EFA interfaces a node gets: ``MaximumEfaInterfaces`` from EC2's data, or for a type kept by hand
    the count of AWS's recommended layout (p6e-gb200: :mod:`.p6e_gb200`); ``None`` when EFA exists but the
    count is unknown."""
    cards: Optional[tuple[int, ...]]
    """Network card indexes that carry an EFA interface (one EFA per card): those whose EC2 ``InterfaceTypes``
    include EFA, or for a type kept by hand the cards of AWS's recommended layout."""


NO_EFA = Efa(supported=False, max_interfaces=0, cards=())


@dataclass(frozen=True)
class Price:
    usd_per_hour: float
    region: str
    valid_on: date
    source: str


@dataclass(frozen=True)
class Source:
    description: str
    as_of: date


@dataclass(frozen=True)
class InstanceType:
    name: str
    arch: str
    vcpus: Optional[int]
    memory_gib: Optional[int]
    accelerator: Optional[Accelerator]
    network: Network
    efa: Efa
    ami_types: tuple[str, ...]
    """EKS-optimized AMI types that support this type, preferred first."""
    capacity_block: Optional[bool]
    """Offered with the ``capacity-block`` usage class (EC2 Capacity Blocks for ML)."""
    hyperpod: bool
    """``ml.<name>`` is a SageMaker HyperPod ``ClusterInstanceType``."""
    hyperpod_training_plan: bool
    source: Source
    prices: tuple[Price, ...] = ()
    notes: tuple[str, ...] = field(default=())
    nvme_instance_store_gb: Optional[int] = None
    """Local NVMe SSD instance store, GB (EC2 ``InstanceStorageInfo.TotalSizeInGB``); 0 for none,
    ``None`` when unknown. A cache for streamed datasets, lost when the instance stops."""
    gpudirect_storage: bool = False
    """NVIDIA GPUDirect Storage to an EFA-enabled FSx for Lustre file system (see
    :mod:`.storage`); False where AWS does not list the type."""
    regions: Optional[tuple[str, ...]] = None
    """Regions that offer the type (EC2 ``DescribeInstanceTypeOfferings``, as of
    :attr:`source`); ``None`` when no offering data covers the type."""
    zones: Optional[tuple[str, ...]] = None
    """Zone names that offer the type (EC2 ``DescribeInstanceTypeOfferings`` by availability zone, as of
    :attr:`source`); ``None`` when no offering data covers the type. Where a region maps zone names per
    account, these are the names of the account that recorded the data (see :mod:`.regions`)."""
    hyperpod_regions: Optional[tuple[str, ...]] = None
    """Regions where SageMaker HyperPod offers ``ml.<name>`` (cfn-lint's per-region list from the AWS pricing
    API, as of :attr:`source`); ``None`` when no data covers the type. HyperPod runs in SageMaker's capacity,
    which EC2's offerings to an account do not show (ml.p5.48xlarge in eu-west-1, p5.48xlarge not)."""

    @property
    def family(self) -> str:
        return self.name.split(".")[0]

    @property
    def hyperpod_name(self) -> str:
        return HYPERPOD_PREFIX + self.name

    def price(self, region: str) -> Optional[Price]:
        """The published on-demand price in ``region``, or ``None`` if none is published."""
        return next((p for p in self.prices if p.region == region), None)

    def offered_in(self, region: str) -> Optional[bool]:
        """Whether EC2 offers the type in ``region`` per the catalog's snapshot; ``None`` if unknown."""
        return None if self.regions is None else region in self.regions

    def offered_for_hyperpod_in(self, region: str) -> Optional[bool]:
        """Whether SageMaker HyperPod offers ``ml.<name>`` in ``region`` per the catalog's data; ``None`` if unknown."""
        return None if self.hyperpod_regions is None else region in self.hyperpod_regions

    def offered_in_zone(self, zone: str) -> Optional[bool]:
        """Whether EC2 offers the type in the zone of this name per the catalog's snapshot; ``None`` if unknown.
        Ask only for a zone whose name means one zone in every account (:attr:`.regions.Region.known_zones`)."""
        return None if self.zones is None else zone in self.zones

    def require(self, fact: str, value: Optional[T], needed_for: str) -> T:
        """Return ``value``, or refuse ``needed_for`` when the fact is unknown."""
        if value is None:
            raise UnknownFactError(
                f"{self.name}: {fact} is not known from any primary source, "
                f"so trainstack cannot {needed_for}. "
                + (" ".join(self.notes) if self.notes else "")
            )
        return value
