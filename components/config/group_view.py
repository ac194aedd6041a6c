"""What some node-group checks read of a group: Protocols that ``NodeGroupConfig``, its ``Capacity`` and
``CapacityPurchase`` (config/nodegroups.py) meet. The checks (config/checks/block_end.py, device_allocation.py,
karpenter_groups.py) say with them exactly what of a group they read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional, Protocol

from .. import catalog


class PurchaseView(Protocol):
    """A Capacity Block the stack buys (``CapacityPurchase``)."""

    @property
    def offering_id(self) -> str: ...


class CapacityView(Protocol):
    """Where a group's instances come from (``Capacity``)."""

    @property
    def type(self) -> str: ...

    @property
    def resource_group_arn(self) -> Optional[str]: ...

    @property
    def reservations(self) -> Sequence[object]: ...

    @property
    def reservation_ids(self) -> list[str]: ...

    @property
    def purchase(self) -> Optional[PurchaseView]: ...


class GroupView(Protocol):
    """One accelerated node group (``NodeGroupConfig``)."""

    @property
    def instance_type(self) -> str: ...

    @property
    def accelerator(self) -> catalog.Accelerator: ...

    @property
    def device_allocation(self) -> str: ...

    @property
    def autoscaler(self) -> str: ...

    @property
    def min_size(self) -> int: ...

    @property
    def capacity(self) -> CapacityView: ...

    @property
    def efa(self) -> Optional[bool]: ...

    @property
    def placement_group(self) -> Optional[bool]: ...

    @property
    def spot(self) -> bool: ...

    @property
    def ami_version(self) -> Optional[str]: ...

    @property
    def efa_enabled(self) -> bool: ...
