"""The checks of where a group's instances come from (``nodeGroups[].capacity``, config/nodegroups.py): a
reservation, a Capacity Block or a pool of them that declares what the plan checks, and a group that fits in it."""

from __future__ import annotations

from typing import Any

from ... import catalog
from ..base import ConfigModel, ConfigValueError
from ..nodegroups import CAPACITY_BLOCK_MAX_INSTANCES, Capacity, NodeGroupConfig
from ..ultraserver_capacity import check_block_units
from .block_end import check_end_lead, check_purchase


def check_capacity(capacity: Capacity) -> None:
    """Only the keys of the capacity's type, each reservation once, and what the plan needs declared: the zone, the
    instances and, for a block, its end."""
    if capacity.reservations:
        _check_pool(capacity)
    if capacity.type == "none":
        for key, value in (("reservationId", capacity.reservation_id),
                           ("resourceGroupArn", capacity.resource_group_arn), ("zone", capacity.zone),
                           ("instanceCount", capacity.instance_count), ("reservations", capacity.reservations or None),
                           ("endsAt", capacity.ends_at), ("startsAt", capacity.starts_at),
                           ("endLeadMinutes", capacity.end_lead_minutes), ("purchase", capacity.purchase)):
            if value is not None:
                raise ConfigValueError(f"'{key}' is set but capacity type is 'none'.",
                                       fix="set type: reservation or type: capacityBlock, or remove the key.",
                                       path=(key,), value=value)
        return
    if capacity.type == "reservation" and not capacity.reservations and \
            (capacity.reservation_id is None) == (capacity.resource_group_arn is None):
        raise ConfigValueError("a reservation needs exactly one of reservationId or resourceGroupArn.",
                               fix="give the reservation id (cr-…) or the resource group ARN, not both.",
                               path=("reservationId",), value=capacity.reservation_id)
    if capacity.type == "capacityBlock":
        check_purchase(capacity.purchase, capacity.reservation_id, capacity.starts_at, capacity.ends_at)
        if capacity.reservation_id is None and capacity.purchase is None and not capacity.reservations:
            raise ConfigValueError("a capacity block needs its reservationId.",
                                   fix="set reservationId to the block's cr-… id.", path=("reservationId",),
                                   value=None)
        if capacity.resource_group_arn is not None:
            raise ConfigValueError("capacity blocks are targeted by id, not by resource group.",
                                   fix="remove resourceGroupArn.", path=("resourceGroupArn",),
                                   value=capacity.resource_group_arn)
    if capacity.starts_at is not None and capacity.ends_at is not None and capacity.starts_at >= capacity.ends_at:
        raise ConfigValueError(f"startsAt {capacity.starts_at:%Y-%m-%dT%H:%M:%SZ} is not before endsAt "
                               f"{capacity.ends_at:%Y-%m-%dT%H:%M:%SZ}.",
                               fix="set both as EC2 shows the block (aws ec2 describe-capacity-reservations).",
                               path=("startsAt",), value=capacity.starts_at)
    check_end_lead(capacity.type, capacity.end_lead_minutes, capacity.starts_at, capacity.ends_at)
    required: list[tuple[str, Any]] = [("zone", capacity.zone), ("instanceCount", capacity.total_instances)]
    if capacity.type == "capacityBlock":
        required.append(("endsAt", capacity.ends_at))
    for key, value in required:
        if value is None:
            raise ConfigValueError(
                f"a {capacity.type} must declare its {key}, so the plan can check it against the node group.",
                fix=f"set {key} as the reservation shows it (aws ec2 describe-capacity-reservations).",
                path=(key,), value=None)


def _check_pool(capacity: Capacity) -> None:
    for key, value in (("reservationId", capacity.reservation_id), ("resourceGroupArn", capacity.resource_group_arn),
                       ("instanceCount", capacity.instance_count), ("purchase", capacity.purchase)):
        if value is not None:
            raise ConfigValueError(
                f"'{key}' is set beside reservations; a pool names each of its reservations in the list.",
                fix=f"move it into reservations (reservationId and instanceCount each), or remove {key}.",
                path=(key,), value=value if not isinstance(value, ConfigModel) else key)
    ids = [r.reservation_id for r in capacity.reservations]
    for index, reservation_id in enumerate(ids):
        if ids.index(reservation_id) != index:
            raise ConfigValueError(f"{reservation_id} is listed twice.", fix="list each reservation once.",
                                   path=("reservations", index, "reservationId"), value=reservation_id)
        count = capacity.reservations[index].instance_count
        if capacity.type == "capacityBlock" and count > CAPACITY_BLOCK_MAX_INSTANCES:
            raise ConfigValueError(
                f"a capacity block holds at most {CAPACITY_BLOCK_MAX_INSTANCES} instances.",
                fix="give the block the instances EC2 shows it holds; more instances are more blocks.",
                path=("reservations", index, "instanceCount"), value=count)


def check_group_capacity(group: NodeGroupConfig) -> None:
    """A group on a reservation or block is in its zone and no larger than it; a block is of a type EC2 sells as
    Capacity Blocks, in whole UltraServers where the type comes in them, and at most 64 instances."""
    capacity = group.capacity
    if capacity.type == "none":
        return
    held = capacity.total_instances
    assert held is not None  # check_capacity requires it for reservations and blocks
    if capacity.zone != group.zone:
        raise ConfigValueError(
            f"the {capacity.type} is in {capacity.zone} but the node group is in {group.zone}; "
            "instances can only launch into a reservation in its own zone.",
            fix=f"set zone: {capacity.zone} on the node group (and its subnet), or use a "
            f"reservation in {group.zone}.", path=("capacity", "zone"), value=capacity.zone)
    if held < group.max_size:
        raise ConfigValueError(
            f"the {capacity.type} holds {held} instances but maxSize is {group.max_size}.",
            fix=f"set maxSize to at most {held}, or declare the real instanceCount.",
            path=("maxSize",), value=group.max_size)
    if capacity.type == "capacityBlock":
        if not group.instance.capacity_block:
            raise ConfigValueError(
                f"{group.instance_type} is not sold as EC2 Capacity Blocks.",
                fix="use an on-demand reservation, or a capacity-block type "
                f"({', '.join(catalog.family_names(t for t in catalog.INSTANCE_TYPES if t.capacity_block))}).",
                path=("capacity", "type"), value=capacity.type)
        check_block_units(group.instance_type, instance_count=held,
                          desired_size=group.desired_size, max_size=group.max_size)
        if capacity.instance_count is not None and capacity.instance_count > CAPACITY_BLOCK_MAX_INSTANCES:
            raise ConfigValueError(
                f"a capacity block holds at most {CAPACITY_BLOCK_MAX_INSTANCES} instances.",
                fix="split the capacity over several blocks and node groups.",
                path=("capacity", "instanceCount"), value=capacity.instance_count)


def check_placement_group(group: NodeGroupConfig) -> None:
    """No placement group on held capacity: a block is already co-located, a reservation cannot move."""
    if group.placement_group and group.capacity.type != "none":
        why = ("capacity blocks are already co-located in an UltraCluster"
               if group.capacity.type == "capacityBlock"
               else "an existing reservation cannot move into a new placement group")
        raise ConfigValueError(f"a placement group cannot be used with a {group.capacity.type}: {why}.",
                               fix="set placementGroup: false (or remove it).", path=("placementGroup",),
                               value=True)
