"""What the training job writes to FSx for Lustre: its checkpoint, how often, how many are kept.

The file system is sized from these (``trainstack plan`` prints the time one checkpoint
takes to write and the share of the interval it costs; the ``checkpoint-write-share``
policy fails above a ceiling), not from a per-accelerator floor.

A checkpoint's size is given, or derived from the model: parameters x (bytes of the
weights + bytes of the optimizer state) per parameter. The defaults are mixed-precision
training with Adam as the ZeRO paper counts it (Rajbhandari et al., "ZeRO: Memory
Optimizations Toward Training Trillion Parameter Models", SC 2020, section 3.1):
2 bytes of bf16/fp16 weights, and K = 12 bytes of optimizer state (fp32 master weights,
momentum and variance, 4 bytes each). Gradients (the paper's other 2 bytes) are not
saved. Sizes are decimal gigabytes (10^9 bytes), the unit FSx throughput (MB/s) uses.
"""

from __future__ import annotations

from typing import Optional, TypedDict

from pydantic import Field

from .base import ConfigModel

WEIGHT_BYTES = 2.0
"""bf16/fp16 weights (ZeRO, section 3.1)."""
ADAM_STATE_BYTES = 12.0
"""fp32 master weights, momentum and variance (ZeRO's K = 12)."""


class CheckpointWriters(TypedDict):
    """The instances that write one checkpoint together: the largest accelerated group at max size."""
    instance_type: str
    """Their instance type (its network bandwidth bounds each writer)."""
    count: int
    """How many write at once."""
    efa: bool
    """Whether they have EFA interfaces (and so can reach an EFA-enabled file system over EFA)."""


class CheckpointConfig(ConfigModel):
    """The job's checkpoints on FSx: give ``sizeGB``, or ``parametersBillions`` (with the bytes per
    parameter when they differ from mixed-precision Adam), and ``intervalMinutes``."""

    size_gb: Optional[float] = Field(default=None, alias="sizeGB", gt=0)
    """One checkpoint, decimal GB (weights and optimizer state, all ranks together)."""
    parameters_billions: Optional[float] = Field(default=None, gt=0)
    """Model parameters, in billions (70 for Llama 2 70B)."""
    bytes_per_parameter: float = Field(default=WEIGHT_BYTES, gt=0)
    """Bytes of the saved weights per parameter (2 for bf16)."""
    optimizer_bytes_per_parameter: float = Field(default=ADAM_STATE_BYTES, ge=0)
    """Bytes of saved optimizer state per parameter (12 for Adam with fp32 master weights; 0 for weights only)."""
    interval_minutes: float = Field(gt=0)
    """Minutes of training between two checkpoints."""
    keep: int = Field(default=3, ge=1)
    """Checkpoints kept on the file system at once (the rest are deleted or exported)."""
    path: str = Field(default="/checkpoints", pattern=r"^/[A-Za-z0-9._/-]*$")
    """Where on the file system the job writes them."""
    export_to_bucket: bool = True
    """Export new and changed checkpoints under ``path`` to the stack's checkpoint bucket with a data
    repository association (auto-export NEW, CHANGED; never DELETED, so the bucket keeps what FSx drops)."""

    @property
    def checkpoint_gb(self) -> float:
        """One checkpoint in decimal GB: given, or parameters x bytes per parameter."""
        if self.size_gb is not None:
            return self.size_gb
        assert self.parameters_billions is not None  # config/checks/checkpoints.py
        return self.parameters_billions * (self.bytes_per_parameter + self.optimizer_bytes_per_parameter)
