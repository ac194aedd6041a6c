"""The device check of ``trainstack preflight nodes``: do a deployed stack's accelerated nodes show the devices their
instance type has? The same judgement as ``trainstack up``'s wait (preflight/devices.py reads each node; the catalog
says what it must show, config/device_wait.py), for stacks deployed by ``pulumi up`` or a program of their own.

The groups come from the outputs contract, which every stack exports whatever deployed it: each accelerated
group's instance type, node selector, EFA interfaces per node and device allocation. The contract does not carry
a group's desired size, so how many nodes a group should have comes from the stack file where one is at hand
(``node_counts``) and is otherwise said to be unchecked. One check per group, as the huge-pages check has.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..config.device_wait import DeviceNeed, fabric_manager_note, group_devices
from ..outputs import StackOutputs
from .check import Check
from .devices import GroupReading

CHECK = "node devices"
SHORTS_SHOWN = 5
"""Short devices a failing group's reason names one by one (the count says how many more)."""


def needs_from_outputs(outputs: StackOutputs, node_counts: Mapping[str, int]) -> list[DeviceNeed]:
    """Each accelerated group of the outputs and what every node of it must show (the catalog's counts for its
    instance type, the EFA interfaces its launch template attaches); ``node_counts`` the nodes each group should
    have, where known (a group missing from it is not counted)."""
    return [DeviceNeed(name, group.instance_type, group.device_allocation,
                       group_devices(group.device_allocation, group.instance_type, group.efa_interfaces_per_node),
                       node_counts.get(name, 0), dict(group.node_selector), fabric_manager_note(group.instance_type))
            for name, group in sorted(outputs.accelerated_groups.items())]


def subject(need: DeviceNeed) -> str:
    return f"{need.group} ({need.instance_type})"


def check_devices(readings: list[GroupReading], uncounted: str) -> list[Check]:
    """One check per group read: pass when each of its nodes shows every device and the group has its nodes, fail
    naming each node short of a device (``node X shows 7 of 8 nvidia.com/gpu``) and the nodes not joined,
    could-not-check when none of its nodes is running and none is expected. ``uncounted``: why node counts are
    not checked (empty where the stack file gave them)."""
    return [_group(reading, uncounted) for reading in readings]


def _group(reading: GroupReading, uncounted: str) -> Check:
    need = reading.need
    where = "allocatable" if need.allocation == "device-plugins" else "ResourceSlices (DRA)"
    devices = ", ".join(f"{count} {name}" for name, count in need.devices.items())
    count = (f"node count not checked: {uncounted}" if uncounted else
             f"{need.nodes} nodes expected (desiredSize)" if need.nodes else
             "no node count to check (desiredSize 0, or Karpenter decides)")
    fabric = f"; fabric manager: {need.fabric_manager}" if need.fabric_manager else ""
    if not reading.nodes and not need.nodes:
        selector = ", ".join(f"{k}={v}" for k, v in need.node_selector.items())
        return Check(CHECK, subject(need), "could-not-check",
                     f"no node of the group is running (none labelled {selector}); each must show {devices} in "
                     f"{where}: check again once a node has joined")
    if reading.complete:
        counted = f"{len(reading.nodes)} nodes show" if len(reading.nodes) != 1 else "1 node shows"
        return Check(CHECK, subject(need), "pass", f"{counted} {devices} each in {where}; {count}{fabric}")
    named = [short.said() for short in reading.short]
    more = f"; and {len(named) - SHORTS_SHOWN} more" if len(named) > SHORTS_SHOWN else ""
    joined = ([f"{reading.missing_nodes} of {need.nodes} nodes have not joined"] if reading.missing_nodes else [])
    return Check(CHECK, subject(need), "fail",
                 "; ".join([*named[:SHORTS_SHOWN], *joined]) + f"{more} (each must show {devices} in {where}). "
                 "Fix: a node short of a device has a device plugin or DRA driver that found fewer (a GPU fallen off "
                 "the bus, an EFA interface not attached): read its plugin's or driver's logs on that node, or "
                 f"replace the node; a node not joined: read the node group's health in EKS{fabric}")
