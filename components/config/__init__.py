"""Typed stack configuration (``trainstack:`` keys) and its validation.

``load_stack_config()`` reads the running program's Pulumi config;
``validate_stack_config(raw)`` validates a plain mapping of the same keys.
Both raise :class:`ConfigError`, which names each bad key, its value and the fix.

Validation is the schema modules' (each block's keys, types and single-key rules) and then the checks of
``config/checks/`` (what spans keys, blocks or the stack), which ``validate`` runs on each block once it is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import pulumi
from pydantic import BaseModel, ValidationError

from .addons import CostConfig, ObservabilityConfig, OperatorsConfig
from .base import CHECKS, ConfigModel, ConfigValueError
from .checkpoints import CheckpointConfig
from .checks import run_checks
from .cluster import AddonVersions, EksConfig, SystemNodesConfig
from .datasets import DatasetConfig
from .errors import NAMESPACE, ConfigError, ConfigIssue, issues_from_validation_error
from .hyperpod import HyperPodConfig, InstanceGroupConfig, PosixUser, WorkerGroupConfig
from .network import ExistingSubnet, ExistingVpc, NetworkConfig
from .nodegroups import Capacity, NodeGroupConfig, RootVolume, Taint
from .scheduling import PriorityClassConfig, SchedulingConfig, TeamConfig, cohort_of_groups
from .stack import StackConfig
from .storage import CheckpointBucketConfig, DataRepositoryConfig, FsxConfig
from .vpc_cni import VpcCniConfig

Model = TypeVar("Model", bound=BaseModel)


def validate_stack_config(raw: Mapping[str, Any] | StackConfig) -> StackConfig:
    """Validate the ``trainstack:`` keys (without the namespace) as one StackConfig. A StackConfig built with
    ``StackConfig(...)`` has its schema alone: it is checked here too, and returned as it is."""
    return validate(StackConfig, raw, prefix=NAMESPACE, source="the trainstack stack configuration")


def validate(model: type[Model], raw: Any, *, prefix: str, source: str | None = None,
             at: tuple[str | int, ...] = ()) -> Model:
    """Validate ``raw`` as ``model``; component Args go through here too, so library callers
    get the same errors as stack files, named from the component: ``prefix`` is ``GpuEksCluster(train)`` and
    ``at`` the Args key that holds the block (``("nodeGroups", 0)``), as in
    ``GpuEksCluster(train):nodeGroups[0].instanceType``."""
    try:
        # The checks run on each block once pydantic has built it (config/base.py), so a failing one is reported
        # with every other problem of the input; a block built elsewhere is checked too, and returned as it is.
        return model.model_validate(raw, context={CHECKS: run_checks})
    except ValidationError as error:
        raise ConfigError(issues_from_validation_error(error, model, prefix, at),
                          source or f"{prefix} arguments") from None


def load_stack_config() -> StackConfig:
    """Read every ``trainstack:`` key of the running stack and validate them together.

    All keys of the namespace are read, so a mistyped top-level key
    (``trainstack:nodegroups``) is an error rather than silently ignored.
    """
    config = pulumi.Config(NAMESPACE)
    raw = {key: _read(config, key) for key in _namespace_keys()}
    return validate_stack_config(raw)


def _namespace_keys() -> list[str]:
    from pulumi.runtime import config as runtime_config

    keys = set(runtime_config.CONFIG.get()) | set(runtime_config.get_config_env())
    return sorted(key.split(":", 1)[1] for key in keys if key.startswith(NAMESPACE + ":"))


def _read(config: pulumi.Config, key: str) -> Any:
    """Structured keys arrive as JSON; scalar keys (profile, region) as plain strings."""
    try:
        return config.require_object(key)
    except pulumi.ConfigTypeError:
        return config.get(key)
    except pulumi.ConfigMissingError:  # present, with the value null: validation names the key
        return None


__all__ = [
    "AddonVersions", "Capacity", "CheckpointBucketConfig", "CheckpointConfig", "ConfigError", "ConfigIssue",
    "ConfigModel", "ConfigValueError", "CostConfig", "DataRepositoryConfig", "DatasetConfig", "EksConfig",
    "ExistingSubnet", "ExistingVpc",
    "FsxConfig", "HyperPodConfig", "InstanceGroupConfig", "NetworkConfig", "NodeGroupConfig",
    "ObservabilityConfig", "OperatorsConfig", "PosixUser", "PriorityClassConfig", "RootVolume", "SchedulingConfig",
    "StackConfig", "SystemNodesConfig", "Taint", "TeamConfig", "VpcCniConfig", "WorkerGroupConfig",
    "cohort_of_groups", "load_stack_config", "validate", "validate_stack_config",
]
