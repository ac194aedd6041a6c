"""The checks of the wait for devices (``deviceWait``, config/device_wait.py)."""

from __future__ import annotations

from ..base import ConfigValueError
from ..stack import StackConfig


def check_device_wait(stack: StackConfig) -> None:
    """The wait is for the accelerated groups' nodes: a stack with none has nothing to wait for."""
    if stack.device_wait is not None and not stack.node_groups:
        raise ConfigValueError("deviceWait waits for the nodes of the accelerated groups, and the stack has none "
                               "(HyperPod's nodes are HyperPod's to check).",
                               fix="remove deviceWait, or add nodeGroups.", path=("deviceWait",),
                               value=stack.device_wait.model_dump(by_alias=True))
