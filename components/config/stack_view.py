"""What some checks and derivations read of a whole stack: a Protocol that ``StackConfig`` (config/stack.py) meets.
The IP budget and the offerings (``ip_budget.py``, ``offerings.py``) and their checks and those of
config/checks/job_operators.py and kubernetes_version.py name this view: it says what of a stack they read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Protocol

if TYPE_CHECKING:
    from .addons import OperatorsConfig
    from .cluster import EksConfig
    from .existing_cluster import ExistingClusterConfig
    from .hyperpod import HyperPodConfig
    from .network import NetworkConfig
    from .nodegroups import NodeGroupConfig


class StackView(Protocol):
    """A validated stack's blocks, as the checks that span them read them (``StackConfig``)."""

    @property
    def region(self) -> str: ...

    @property
    def network(self) -> NetworkConfig: ...

    @property
    def zones(self) -> list[str]: ...

    @property
    def eks(self) -> Optional[EksConfig]: ...

    @property
    def existing_cluster(self) -> Optional[ExistingClusterConfig]: ...

    @property
    def node_groups(self) -> list[NodeGroupConfig]: ...

    @property
    def hyperpod(self) -> Optional[HyperPodConfig]: ...

    @property
    def hyperpod_zone(self) -> str: ...

    @property
    def operators(self) -> OperatorsConfig: ...
