"""Where a stack can be: its region is an AWS region, its zones are that region's, and every instance
type it asks for is offered there.

Judged against the catalog's regions table and offering snapshot (``catalog/regions.py``, dated),
never against the account: ``trainstack preflight`` asks the account. Only what the data knows
refuses anything: a region the offering data does not cover, a catalog entry without offering data,
and zone names in the regions where AWS maps them per account are let through here (preflight
checks them). A group whose type AWS began offering after the data was generated sets
``offeringUnchecked`` to the reason, and this check steps aside for it.

The stack's zones and offerings are checked with these by config/checks/offerings.py; a component used on its own
by ``check_component``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from .. import catalog
from ..boundary import cut
from ..catalog import regions
from .base import ConfigValueError
from .errors import ConfigError, ConfigIssue, format_path

if TYPE_CHECKING:
    from .cluster import SystemNodesConfig
    from .hyperpod import HyperPodConfig, InstanceGroupConfig
    from .network import NetworkConfig
    from .nodegroups import NodeGroupConfig
    from .stack_view import StackView

Path = tuple[str | int, ...]

OVERRIDE = "offeringUnchecked"
_OVERRIDE_FIX = f"or, if AWS offers it there since the data was generated, set {OVERRIDE} on the group to the reason."


def check_region(region: str) -> None:
    """Refuse a region the regions table does not hold, listing the ones it does."""
    if regions.find(region) is None:
        raise ConfigValueError(f"'{cut(region)}' is not an AWS region ({regions.SOURCE}).",
                               fix=f"use one of {', '.join(regions.names())}.")


def check_component(prefix: str, region: str, *, zones: Iterable[tuple[Path, str]] = (),
                    groups: Iterable[Placement] = (), hyperpod: bool = False) -> None:
    """The same checks for a component used on its own (its ``region`` argument, the zones and groups of its
    settings), raised as a :class:`ConfigError` whose paths start with ``prefix``."""
    try:
        try:
            check_region(region)
        except ConfigValueError as error:
            raise ConfigValueError(error.message, fix=error.fix, path=("region",), value=region) from None
        check_zone_names(region, zones)
        if hyperpod:
            check_hyperpod_region(region, ("region",))
        check_placements(region, groups)
    except ConfigValueError as error:
        raise ConfigError([ConfigIssue(format_path(error.path, prefix), error.value, error.message, error.fix)],
                          f"{prefix} arguments") from None


def network_zones(network: NetworkConfig, at: Path = ()) -> Iterator[tuple[Path, str]]:
    """Each zone the network names (new VPC zones, or the existing subnets' zones) with its path."""
    existing = network.existing_vpc
    if existing is None:
        yield from (((*at, "zones", index), zone) for index, zone in enumerate(network.zones))
        return
    for kind, subnets in (("privateSubnets", existing.private_subnets), ("publicSubnets", existing.public_subnets)):
        yield from (((*at, "existingVpc", kind, index, "zone"), s.zone) for index, s in enumerate(subnets))


def check_zone_names(region_name: str, zones: Iterable[tuple[Path, str]]) -> None:
    """Refuse a zone outside the region, or one the region's every account does not name."""
    region = regions.get(region_name)
    for path, zone in zones:
        if not zone.startswith(region_name) or len(zone) <= len(region_name):
            raise ConfigValueError(f"zone {zone} is not in region {region_name}.",
                                   fix=f"use zones of {region_name} (e.g. {region_name}a), or change region.",
                                   path=path, value=zone)
        known = region.known_zones
        if known is not None and zone not in known:
            raise ConfigValueError(f"{region_name} has no zone {zone} ({regions.SOURCE}).",
                                   fix=f"use one of {', '.join(known)}.", path=path, value=zone)


def check_hyperpod_region(region_name: str, path: Path) -> None:
    """Refuse a region where HyperPod offers no instance type."""
    if region_name not in regions.HYPERPOD_REGIONS:
        raise ConfigValueError(
            f"SageMaker HyperPod offers no instance type in {region_name} ({regions.HYPERPOD_SOURCE}).",
            fix=f"use a region that has it ({', '.join(regions.HYPERPOD_REGIONS)}).", path=path, value=region_name)


def check_placements(region_name: str, groups: Iterable[Placement]) -> None:
    """Refuse an instance type the region, or the group's zone where the data knows it, does not offer."""
    region = regions.get(region_name)
    for placement in groups:
        if placement.unchecked is None:
            _check_offered(placement, region)


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
    hyperpod: bool = False
    """A HyperPod instance group: SageMaker's per-region offering decides, not EC2's (see :func:`_check_offered`)."""
    training_plan: bool = False
    """A HyperPod group with a training plan: its capacity is the plan's, bought for the region, and may be of
    types with no on-demand HyperPod price anywhere (p5e); no per-region list judges it."""


def placements(stack: StackView) -> Iterator[Placement]:
    """Every group's instance type with the zones it launches in: system nodes, node groups, HyperPod groups."""
    if stack.eks is not None:
        yield system_placement(stack.eks.system_nodes, stack.zones, ("eks", "systemNodes"))
    yield from group_placements(stack.node_groups, ("nodeGroups",))
    if stack.hyperpod is not None:
        yield from hyperpod_placements(stack.hyperpod, [stack.hyperpod_zone], ("hyperpod",))


def system_placement(system: SystemNodesConfig, zones: list[str], at: Path) -> Placement:
    """The system node group, spread over every private zone."""
    return Placement((*at, "instanceType"), "system nodes", system.instance_type, zones, system.offering_unchecked)


def group_placements(groups: Iterable[NodeGroupConfig], at: Path) -> Iterator[Placement]:
    """Each accelerated node group in its one zone."""
    for index, group in enumerate(groups):
        yield Placement((*at, index, "instanceType"), group.name, group.instance_type, [group.zone],
                        group.offering_unchecked)


def hyperpod_placements(hyperpod: HyperPodConfig, zones: list[str], at: Path) -> Iterator[Placement]:
    """Each HyperPod instance group (controller, login, workers) in the cluster's zone."""
    named: list[tuple[Path, InstanceGroupConfig]] = [
        ((key,), group) for key, group in (("controller", hyperpod.controller), ("login", hyperpod.login))
        if group is not None]
    named += [(("workers", index), worker) for index, worker in enumerate(hyperpod.workers)]
    for key, group in named:
        yield Placement((*at, *key, "instanceType"), group.name, group.instance_type, zones, group.offering_unchecked,
                        hyperpod=True, training_plan=group.training_plan_arn is not None)


def _check_offered(placement: Placement, region: regions.Region) -> None:
    """Refuse the type where the data says it is not offered: EC2's offerings for node groups and system nodes,
    by region and, where zone names are every account's, by zone; SageMaker's per-region list for HyperPod,
    whose instances run in SageMaker's capacity (it offers ml.p5.48xlarge in eu-west-1, where EC2 offers
    accounts no p5.48xlarge), so EC2's offerings decide nothing there."""
    written, path = placement.instance_type, placement.path
    instance = catalog.get_hyperpod(written)
    if placement.hyperpod:
        if placement.training_plan:
            return
        if region.name in regions.HYPERPOD_REGIONS and instance.offered_for_hyperpod_in(region.name) is False:
            raise ConfigValueError(
                f"SageMaker HyperPod does not offer {written} in {region.name} ({regions.HYPERPOD_SOURCE}); the "
                f"regions that offer it: {', '.join(instance.hyperpod_regions or ()) or 'none'}.",
                fix=f"use one of those regions, or another instance type, {_OVERRIDE_FIX}", path=path, value=written)
        return
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
    missing = [zone for zone in placement.zones if zone in known and not instance.offered_in_zone(zone)]
    if missing:
        offering = [zone for zone in known if instance.offered_in_zone(zone)]
        raise ConfigValueError(
            f"{written} is not offered in {', '.join(missing)} ({regions.SOURCE}); the zones of {region.name} "
            f"that offer it: {', '.join(offering)}.",
            fix=f"use a zone that offers it, or another instance type, {_OVERRIDE_FIX}", path=path, value=written)
