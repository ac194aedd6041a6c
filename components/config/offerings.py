"""Where a stack can be: its region is an AWS region, its zones are that region's, and every instance
type it asks for is offered there.

Judged against the catalog's regions table and offering snapshot (``catalog/regions.py``, dated),
never against the account: ``trainstack preflight`` asks the account. Only what the data knows
refuses anything: a region the offering data does not cover, a catalog entry without offering data,
and zone names in the regions where AWS maps them per account are let through here (preflight
checks them). A group whose type AWS began offering after the data was generated sets
``offeringUnchecked`` to the reason, and this check steps aside for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from .. import catalog
from ..boundary import cut
from ..catalog import regions
from .base import ConfigValueError

if TYPE_CHECKING:
    from .hyperpod import HyperPodConfig, InstanceGroupConfig
    from .stack import StackConfig

Path = tuple[str | int, ...]

OVERRIDE = "offeringUnchecked"
_OVERRIDE_FIX = f"or, if AWS offers it there since the data was generated, set {OVERRIDE} on the group to the reason."


def check_region(region: str) -> None:
    """Refuse a region the regions table does not hold, listing the ones it does."""
    if regions.find(region) is None:
        raise ConfigValueError(f"'{cut(region)}' is not an AWS region ({regions.SOURCE}).",
                               fix=f"use one of {', '.join(regions.names())}.")


def check_zones(stack: StackConfig) -> None:
    """Every zone the network names is in the stack's region and, where every account's zone names are
    known, one of them."""
    region = regions.get(stack.region)
    for path, zone in _network_zones(stack):
        if not zone.startswith(stack.region) or len(zone) <= len(stack.region):
            raise ConfigValueError(f"zone {zone} is not in region {stack.region}.",
                                   fix=f"use zones of {stack.region} (e.g. {stack.region}a), or change region.",
                                   path=path, value=zone)
        known = region.known_zones
        if known is not None and zone not in known:
            raise ConfigValueError(f"{stack.region} has no zone {zone} ({regions.SOURCE}).",
                                   fix=f"use one of {', '.join(known)}.", path=path, value=zone)


def check_offerings(stack: StackConfig) -> None:
    """Every instance type is offered in the region, and in its zones where the data knows them."""
    region = regions.get(stack.region)
    if stack.hyperpod is not None and region.zones is not None and not region.hyperpod:
        raise ConfigValueError(
            f"SageMaker HyperPod is not offered in {stack.region}: its CloudFormation registry has no "
            f"AWS::SageMaker::Cluster ({regions.SOURCE}).",
            fix=f"use a region that has it ({', '.join(r.name for r in regions.REGIONS.values() if r.hyperpod)}).",
            path=("hyperpod",), value=stack.region)
    for placement in placements(stack):
        if placement.unchecked is None:
            _check_offered(placement.instance_type, region, placement.zones, placement.path)


def _network_zones(stack: StackConfig) -> Iterator[tuple[Path, str]]:
    existing = stack.network.existing_vpc
    if existing is None:
        yield from ((("network", "zones", index), zone) for index, zone in enumerate(stack.network.zones))
        return
    for kind in ("privateSubnets", "publicSubnets"):
        subnets = existing.private_subnets if kind == "privateSubnets" else existing.public_subnets
        yield from ((("network", "existingVpc", kind, index, "zone"), s.zone) for index, s in enumerate(subnets))


@dataclass(frozen=True)
class Placement:
    """One group's instance type and where it launches."""

    path: Path
    """The path of the group's instanceType key."""
    group: str
    """The group's name as the stack gives it (``system nodes`` for the EKS system node group)."""
    instance_type: str
    """The type as written (``ml.`` for HyperPod)."""
    zones: list[str]
    """The zones it launches in."""
    unchecked: Optional[str]
    """The group's ``offeringUnchecked`` reason."""

    @property
    def ec2_type(self) -> str:
        """The EC2 type behind it (``p5.48xlarge`` for ``ml.p5.48xlarge``)."""
        return catalog.get_hyperpod(self.instance_type).name


def placements(stack: StackConfig) -> Iterator[Placement]:
    """Every group's instance type with the zones it launches in: system nodes, node groups, HyperPod groups."""
    if stack.eks is not None:
        system = stack.eks.system_nodes
        yield Placement(("eks", "systemNodes", "instanceType"), "system nodes", system.instance_type, stack.zones,
                        system.offering_unchecked)
    for index, group in enumerate(stack.node_groups):
        yield Placement(("nodeGroups", index, "instanceType"), group.name, group.instance_type, [group.zone],
                        group.offering_unchecked)
    if stack.hyperpod is not None:
        for key, hyperpod_group in _hyperpod_groups(stack.hyperpod):
            yield Placement((*key, "instanceType"), hyperpod_group.name, hyperpod_group.instance_type,
                            [stack.hyperpod_zone], hyperpod_group.offering_unchecked)


def _hyperpod_groups(hyperpod: HyperPodConfig) -> Iterator[tuple[Path, InstanceGroupConfig]]:
    for key, group in (("controller", hyperpod.controller), ("login", hyperpod.login)):
        if group is not None:
            yield ("hyperpod", key), group
    for index, worker in enumerate(hyperpod.workers):
        yield ("hyperpod", "workers", index), worker


def _check_offered(written: str, region: regions.Region, zones: list[str], path: Path) -> None:
    """Refuse the type where the offering data says EC2 does not offer it. HyperPod runs its ``ml.`` types on
    EC2 capacity of the region, so an EC2 type not offered there cannot be a HyperPod instance there either."""
    instance = catalog.get_hyperpod(written)
    if region.zones is None:
        return  # the offering data does not cover the region
    if instance.offered_in(region.name) is False:
        raise ConfigValueError(
            f"{written} is not offered in {region.name} ({regions.SOURCE}); the regions that offer it: "
            f"{', '.join(instance.regions or ()) or 'none'}.",
            fix=f"use one of those regions, or another instance type, {_OVERRIDE_FIX}", path=path, value=written)
    known = region.known_zones
    if known is None or instance.zones is None:
        return
    missing = [zone for zone in zones if zone in known and not instance.offered_in_zone(zone)]
    if missing:
        offering = [zone for zone in known if instance.offered_in_zone(zone)]
        raise ConfigValueError(
            f"{written} is not offered in {', '.join(missing)} ({regions.SOURCE}); the zones of {region.name} "
            f"that offer it: {', '.join(offering)}.",
            fix=f"use a zone that offers it, or another instance type, {_OVERRIDE_FIX}", path=path, value=written)
