"""Shared storage: FSx for Lustre and the checkpoint bucket."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field

from .base import ConfigModel
from .checkpoints import CheckpointConfig
from .network import ZONE_PATTERN

# Where each FSx rule below comes from; a refusal names its source.
FSX_API = ("FSx API Reference, CreateFileSystemLustreConfiguration "
           "(docs.aws.amazon.com/fsx/latest/APIReference/API_CreateFileSystemLustreConfiguration.html)")
EFA_GUIDE = ("FSx for Lustre User Guide, Working with EFA-enabled file systems "
             "(docs.aws.amazon.com/fsx/latest/LustreGuide/efa-file-systems.html)")
# pulumi-aws 7.x fsx.LustreFileSystem efa_enabled: "only supported when deployment_type is
# PERSISTENT_2, metadata_configuration is used, and an EFA-enabled security group is attached".
# LustreFileSystem always sends a metadata configuration for PERSISTENT_2 (AUTOMATIC unless
# metadataIops is set) and gives EFA file systems the all-traffic security group rules.

# PERSISTENT_2 SSD per-unit throughput tiers, MB/s per TiB (FSx API, PerUnitStorageThroughput).
PERSISTENT_2_THROUGHPUTS = (125, 250, 500, 1000)
DEFAULT_PERSISTENT_2_THROUGHPUT = 250
SCRATCH_2_THROUGHPUT = 200
"""MB/s per TiB, SCRATCH_2's fixed baseline."""
# EFA-enabled file systems grow in larger steps per tier (FSx for Lustre User Guide, EFA-enabled
# file systems and "Managing storage capacity"): GiB per increment, by MB/s/TiB.
EFA_CAPACITY_INCREMENTS = {1000: 4800, 500: 9600, 250: 19200, 125: 38400}
# User-provisioned metadata IOPS on SSD (FSx API model, MetadataIops).
METADATA_IOPS = (1500, 3000, 6000, *range(12000, 192001, 12000))

# The storage classes FSx for Lustre offers (FSx API CreateFileSystem StorageType; FSx for Lustre User
# Guide, "Deployment and storage class options", using-fsx-lustre.html): SSD, HDD (PERSISTENT_1 only)
# and INTELLIGENT_TIERING (PERSISTENT_2 only). Intelligent-Tiering storage is elastic: no
# StorageCapacity, a file-system ThroughputCapacity in MB/s instead of a per-TiB tier, a
# DataReadCacheConfiguration (required), and a user-provisioned metadata configuration of 6000 or 12000
# IOPS (AUTOMATIC is SSD only) (FSx API CreateFileSystemLustreConfiguration, LustreReadCacheConfiguration,
# CreateFileSystemLustreMetadataConfiguration; pulumi-aws 7.x fsx.LustreFileSystem storage_type:
# "INTELLIGENT_TIERING requires data_read_cache_configuration and metadata_configuration").
STORAGE_CLASS_GUIDE = ("FSx for Lustre User Guide, Deployment and storage class options "
                       "(docs.aws.amazon.com/fsx/latest/LustreGuide/using-fsx-lustre.html)")
DATA_REPOSITORY_GUIDE = ("FSx for Lustre User Guide, Using data repositories: \"Intelligent-Tiering file systems "
                         "don't support linking to Amazon S3 data repositories\" "
                         "(docs.aws.amazon.com/fsx/latest/LustreGuide/fsx-data-repositories.html)")
TIERING_THROUGHPUT_STEP = 4000
TIERING_THROUGHPUT_MAX = 2_000_000
"""MB/s (FSx for Lustre User Guide, managing-throughput-capacity.html: 4,000 MBps or increments of it)."""
TIERING_METADATA_IOPS = (6000, 12000)
TIERING_READ_CACHE_GIB_PER_STEP = (32, 131072)
"""Least and most user-provisioned SSD read cache per 4,000 MB/s (FSx API LustreReadCacheConfiguration)."""


class DataRepositoryConfig(ConfigModel):
    """An S3 data repository association: the bucket prefix mirrored into the file system."""

    s3_path: str = Field(pattern=r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/.*)?$")
    """``s3://bucket/prefix/`` to import from and export to."""
    file_system_path: str = Field(default="/", pattern=r"^/")
    """Where the prefix appears in the file system."""
    auto_import: list[Literal["NEW", "CHANGED", "DELETED"]] = ["NEW", "CHANGED", "DELETED"]
    """S3 events imported into the file system automatically."""
    auto_export: list[Literal["NEW", "CHANGED", "DELETED"]] = []
    """File system events exported to S3 automatically."""


class FsxConfig(ConfigModel):
    """FSx for Lustre for datasets, scripts, compile caches and checkpoints.

    These changes replace the file system, and with it its data: ``deploymentType``,
    ``zone`` (its subnet), ``efa``, ``kmsKeyArn``, a smaller ``storageCapacityGiB``, a
    lower ``metadataIops``. With ``protect`` (the default) Pulumi stops such an update
    instead. Growing capacity, throughput (not on EFA file systems), backups, the S3
    association and compression change in place.
    """

    deployment_type: Literal["PERSISTENT_2", "SCRATCH_2"] = "PERSISTENT_2"
    """PERSISTENT_2 (replicated, backed up). SCRATCH_2 is dev-only: no replication, no backups."""
    storage_class: Literal["SSD", "INTELLIGENT_TIERING", "HDD"] = "SSD"
    """SSD: provisioned capacity and per-TiB throughput. INTELLIGENT_TIERING (PERSISTENT_2): elastic
    storage billed by what it holds, with ``throughputCapacityMBps`` and an SSD read cache; no S3 data
    repository associations. HDD is PERSISTENT_1 only, which trainstack does not build."""
    storage_capacity_gib: int = Field(default=1200, alias="storageCapacityGiB", ge=1200)
    """SSD capacity in GiB: 1200, 2400, then multiples of 2400. Not set for Intelligent-Tiering."""
    per_unit_storage_throughput: Optional[int] = None
    """PERSISTENT_2 SSD: MB/s per TiB, one of 125, 250, 500, 1000. Default 250."""
    throughput_capacity_mbps: Optional[int] = Field(default=None, alias="throughputCapacityMBps")
    """INTELLIGENT_TIERING (required): the file system's throughput, 4000 MB/s or a multiple up to 2,000,000."""
    read_cache_gib: Optional[int] = Field(default=None, alias="readCacheGiB", ge=0)
    """INTELLIGENT_TIERING: SSD read cache in GiB, 32 to 131072 per 4000 MB/s; 0 for none; unset sizes
    it in proportion to the throughput capacity."""
    zone: str = Field(pattern=ZONE_PATTERN)
    """The zone (and so the subnet) of the file system: the accelerated node groups' zone."""
    efa: bool = False
    """EFA-enabled file system: clients on EFA node groups read and write over EFA, with GPUDirect
    Storage where the catalog says the type supports it. PERSISTENT_2 with a metadata configuration,
    capacity in the tier's EFA increments; set at creation only; not for trn2 clients."""
    metadata_iops: Optional[int] = None
    """User-provisioned metadata IOPS; unset means AUTOMATIC on SSD, 6000 on Intelligent-Tiering (which
    takes 6000 or 12000)."""
    kms_key_arn: Optional[str] = Field(default=None, pattern=r"^arn:aws[-a-z]*:kms:")
    """Customer managed KMS key; unset means the AWS managed key."""
    backup_retention_days: int = Field(default=7, ge=0, le=90)
    """Automatic daily backups (persistent types)."""
    data_repository: Optional[DataRepositoryConfig] = None
    """Link the file system to an S3 prefix; omit for none."""
    mount_path: str = Field(default="/fsx", pattern=r"^/")
    """Where jobs mount the file system."""
    claim_name: str = Field(default="fsx-claim", pattern=r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
    """EKS: the PersistentVolumeClaim jobs mount the file system by."""
    namespace: str = Field(default="default", pattern=r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
    """EKS: the namespace of the claim (where training jobs run)."""
    min_throughput_per_accelerator_mbps: float = Field(default=10, ge=0)
    """Warn when aggregate throughput divided by the accelerators at max size falls below
    this (MB/s). A team's floor for streaming data and checkpoints, not an AWS figure."""
    protect: bool = True
    """Pulumi ``protect``: the file system cannot be deleted or replaced until this is false."""
    checkpoints: Optional[CheckpointConfig] = None
    """The job's checkpoints: size, interval, how many are kept, export to S3 (see config.checkpoints)."""

    @property
    def per_unit_throughput(self) -> Optional[int]:
        """PERSISTENT_2 SSD: MB/s per TiB, as given or the default; None where the storage has no
        per-TiB tier (SCRATCH_2's is fixed, Intelligent-Tiering's is the file system's)."""
        if self.deployment_type != "PERSISTENT_2" or self.storage_class != "SSD":
            return None
        return self.per_unit_storage_throughput or DEFAULT_PERSISTENT_2_THROUGHPUT

    @property
    def provisioned_metadata_iops(self) -> Optional[int]:
        """User-provisioned metadata IOPS: as given, or Intelligent-Tiering's least (it has no
        AUTOMATIC mode); None means AUTOMATIC."""
        if self.storage_class == "INTELLIGENT_TIERING":
            return self.metadata_iops or TIERING_METADATA_IOPS[0]
        return self.metadata_iops

    @property
    def throughput_mbps(self) -> int:
        """Aggregate throughput: Intelligent-Tiering's is provisioned for the file system; SSD's is
        capacity in TiB x per-unit throughput."""
        if self.throughput_capacity_mbps is not None:
            return self.throughput_capacity_mbps
        return self.storage_capacity_gib * (self.per_unit_throughput or SCRATCH_2_THROUGHPUT) // 1024


class CheckpointBucketConfig(ConfigModel):
    """The S3 bucket that holds checkpoints: versioned, encrypted, private, protected."""

    enabled: bool = True
    """Create the bucket."""
    protect: bool = True
    """Pulumi ``protect``: the bucket cannot be deleted or replaced until this is false."""
    noncurrent_version_days: int = Field(default=30, ge=1)
    """Days an overwritten or deleted checkpoint version is kept before it expires."""
    kms_key_arn: Optional[str] = Field(default=None, pattern=r"^arn:aws[-a-z]*:kms:")
    """Customer managed KMS key; unset means SSE-KMS with the AWS managed key."""
