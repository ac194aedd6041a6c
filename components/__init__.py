"""trainstack: Pulumi components for AWS distributed-training clusters.

    from trainstack import TrainingStack, load_stack_config

Components import pulumi-aws on first use, so the CLI and the config models stay
quick to load.
"""

from typing import Any

from .config import ConfigError, StackConfig, load_stack_config, validate_stack_config

_COMPONENTS = {
    "TrainingStack": "trainstack.training_stack",
    "CheckpointBucket": "trainstack.storage.checkpoint_bucket",
}


def __getattr__(name: str) -> Any:
    if name in _COMPONENTS:
        import importlib

        return getattr(importlib.import_module(_COMPONENTS[name]), name)
    raise AttributeError(f"module 'trainstack' has no attribute {name!r}")


__all__ = ["CheckpointBucket", "ConfigError", "StackConfig", "TrainingStack", "load_stack_config",
           "validate_stack_config"]
