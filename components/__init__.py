"""trainstack: Pulumi components for AWS distributed-training clusters."""

from .config import ConfigError, StackConfig, load_stack_config, validate_stack_config

__all__ = ["ConfigError", "StackConfig", "load_stack_config", "validate_stack_config"]
