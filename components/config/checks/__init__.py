"""Every check of the configuration that reads more than one key, and the one function that runs them.

A schema module (config/nodegroups.py, config/stack.py, ...) declares its keys, their types and what one key
alone must be (a field validator beside the key). What spans keys, blocks or the stack is a check here: a function
of this package that takes the built block and raises a ``ConfigValueError`` whose path is relative to that block.
``CHECKS`` lists them by block, in the order they run; ``run_checks`` runs a block's.

``config.validate`` (which ``validate_stack_config``, ``load_stack_config`` and every component's Args use) passes
``run_checks`` to pydantic in the validation context, and ``ConfigModel`` hands each block to it once the block is
built (config/base.py). So a block's checks run after every block inside it has passed its own, the first check
that fails stops that block's, and its issue is reported at the block's key together with every other problem of
the input, as pydantic reports a model validator's. ``Model(...)`` and ``Model.model_validate`` alone build a block
from its schema, without these checks.

Imports run one way: the schema modules import nothing of this package; its modules import the schema modules
(and the helpers beside them); only ``config/__init__.py`` imports this runner.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..addons import OperatorsConfig
from ..base import ConfigModel
from ..checkpoints import CheckpointConfig
from ..cluster import EksConfig, SystemNodesConfig
from ..existing_cluster import ExistingClusterConfig
from ..hyperpod import HyperPodConfig
from ..network import ExistingVpc, NetworkConfig
from ..node_repair import NodeRepair
from ..nodegroups import Capacity, NodeGroupConfig
from ..scheduling import SchedulingConfig
from ..stack import StackConfig
from ..storage import FsxConfig
from ..vpc_cni import VpcCniConfig
from . import (
    addons,
    capacity,
    checkpoints,
    cluster,
    datasets,
    device_allocation,
    device_wait,
    existing_cluster,
    hyperpod,
    image_registries,
    ip_budget,
    job_operators,
    karpenter_groups,
    kubernetes_version,
    network,
    node_repair,
    nodegroups,
    offerings,
    profiles,
    scheduling,
    storage,
    vpc_cni,
)

Check = Callable[[Any], None]
"""A check: takes a built block, returns nothing or raises ``ConfigValueError`` (its path from that block)."""

CHECKS: dict[type[ConfigModel], tuple[Check, ...]] = {
    ExistingVpc: (network.check_subnets_apart,),
    NetworkConfig: (network.check_new_or_existing,),
    SystemNodesConfig: (cluster.check_system_max_pods,),
    VpcCniConfig: (vpc_cni.check_one_mode,),
    EksConfig: (cluster.check_upgrade, cluster.check_kube_proxy_skew, cluster.check_allowlist),
    ExistingClusterConfig: (existing_cluster.check_one_way_in,),
    Capacity: (capacity.check_capacity,),
    NodeRepair: (node_repair.check_node_repair,),
    NodeGroupConfig: (
        nodegroups.check_sizes,
        device_allocation.check_device_allocation,
        nodegroups.check_update_batch,
        node_repair.check_group_repair,
        karpenter_groups.check_autoscaler,
        nodegroups.check_efa,
        nodegroups.check_max_pods,
        karpenter_groups.check_spot,
        capacity.check_group_capacity,
        capacity.check_placement_group,
    ),
    CheckpointConfig: (checkpoints.check_one_size,),
    FsxConfig: (storage.check_deployment,),
    HyperPodConfig: (hyperpod.check_instance_groups,),
    OperatorsConfig: (addons.check_one_generation,),
    SchedulingConfig: (scheduling.check_teams_once,),
    StackConfig: (
        offerings.check_zones,
        existing_cluster.check_nothing_made_in_aws,
        nodegroups.check_groups_in_stack,
        cluster.check_system_sizes,
        ip_budget.check_ip_budget,
        storage.check_fsx_in_stack,
        datasets.check_datasets,
        device_wait.check_device_wait,
        hyperpod.check_hyperpod_in_stack,
        offerings.check_offerings,
        image_registries.check_image_registries,
        scheduling.check_scheduling_in_stack,
        datasets.check_dataset_teams,
        scheduling.check_team_paths,
        profiles.check_profile,
        job_operators.check_job_operators,
        kubernetes_version.check_minor_pins,
    ),
}
"""Each block's checks, in the order they run: a block's first failing check is its issue. A block is listed
before the blocks that hold it, as pydantic checks them (the stack last)."""


def run_checks(block: ConfigModel) -> None:
    """Run the checks of ``block``'s type (and of the types it is made from: a subclass keeps its base's)."""
    for kind in reversed(type(block).__mro__):
        for check in CHECKS.get(kind, ()):
            check(block)
