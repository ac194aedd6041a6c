"""Datasets streamed from S3 with Mountpoint for Amazon S3 (EKS): one bucket or prefix each.

Each dataset becomes a static PersistentVolume of the Mountpoint for S3 CSI driver and a
claim jobs mount beside FSx. Read-only by default: the driver's role may only list the
prefix and read its objects.
"""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field

from .base import ConfigModel

BUCKET_PATTERN = r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$"
"""S3 general purpose bucket names (S3 User Guide, bucket naming rules)."""
NAME_PATTERN = r"^[a-z0-9]([-a-z0-9]{0,40}[a-z0-9])?$"


class DatasetConfig(ConfigModel):
    """An S3 bucket or prefix mounted into training pods by Mountpoint for S3."""

    name: str = Field(pattern=NAME_PATTERN)
    """Names the claim (``<name>-dataset``) and the volume in job files."""
    bucket: str = Field(pattern=BUCKET_PATTERN)
    """The bucket, in the stack's region (a bucket elsewhere is slow and billed per GB)."""
    prefix: Optional[str] = Field(default=None, pattern=r"^[^/].*/$")
    """Mount only this prefix (ends with ``/``; the role is scoped to it); unset for the whole bucket."""
    mount_path: str = Field(pattern=r"^/[A-Za-z0-9._/-]*$")
    """Where jobs see the dataset (``/datasets/c4``)."""
    read_only: bool = True
    """Read-only mount and role. False lets jobs write new objects (never delete them)."""
    cache_gib: Optional[int] = Field(default=None, alias="cacheGiB", ge=1)
    """Local cache of the objects read, per node, on the instance store (every accelerated group
    needs local NVMe; the catalog knows which types have it). Unset: no data cache."""
    teams: Optional[list[str]] = None
    """The teams (``scheduling.teams[].name``) whose jobs may mount it; unset: every team. Each team's pods read
    it with their own Pod Identity role (Mountpoint's pod-level credentials), so a team not named cannot."""
    metadata_ttl: Literal["indefinite", "minimal"] = "indefinite"
    """How long listings and object metadata are cached: ``indefinite`` for data that does not change
    while jobs read it, ``minimal`` when writers replace objects under it."""
