"""The stack's expected usage, for the charges billed by use rather than by what is provisioned (infracost's
usage file, as a block of the stack file): NAT data processing, checkpoint storage and requests in S3, FSx
data repository traffic. Every figure is per month; a charge without a figure is not estimated, and the cost
section says which."""

from __future__ import annotations

from pydantic import Field

from .base import ConfigModel


class S3RequestsConfig(ConfigModel):
    """Requests to the checkpoint bucket per month."""

    put: int = Field(default=0, ge=0)
    """PUT, COPY, POST and LIST requests (a checkpoint shard written is at least one)."""
    get: int = Field(default=0, ge=0)
    """GET and other requests (a checkpoint shard read back on restart is at least one)."""


class UsageConfig(ConfigModel):
    """Expected usage per month; each key is optional and prices one usage line."""

    nat_data_processed_gb: float | None = Field(default=None, ge=0)
    """GB through the NAT gateways per month (image pulls, pip installs, anything leaving the private subnets)."""
    checkpoint_storage_gb: float | None = Field(default=None, ge=0)
    """GB the checkpoint bucket holds on average over the month (every kept version counts)."""
    s3_requests: S3RequestsConfig | None = None
    """Requests to the checkpoint bucket per month."""
    fsx_data_repository_gb: float | None = Field(default=None, ge=0)
    """GB the file system imports from or exports to its S3 data repository per month."""
