"""The checks of FSx for Lustre (``fsx``, config/storage.py): the combinations of deployment type, storage class,
capacity, throughput, metadata IOPS and EFA that FSx accepts, each refused with its source; and the file system's
place in the stack (its zone, its clients, the bucket it exports to, the profile)."""

from __future__ import annotations

from ... import catalog
from ..base import ConfigValueError
from ..stack import StackConfig
from ..storage import (
    DATA_REPOSITORY_GUIDE,
    DEFAULT_PERSISTENT_2_THROUGHPUT,
    EFA_CAPACITY_INCREMENTS,
    EFA_GUIDE,
    FSX_API,
    METADATA_IOPS,
    PERSISTENT_2_THROUGHPUTS,
    STORAGE_CLASS_GUIDE,
    TIERING_METADATA_IOPS,
    TIERING_READ_CACHE_GIB_PER_STEP,
    TIERING_THROUGHPUT_MAX,
    TIERING_THROUGHPUT_STEP,
    FsxConfig,
)


def check_deployment(fsx: FsxConfig) -> None:
    """SSD: capacity steps, SCRATCH_2's fixed throughput, PERSISTENT_2's tiers and metadata IOPS, EFA's steps;
    Intelligent-Tiering: its own keys (``_check_intelligent_tiering``)."""
    if fsx.storage_class != "SSD":
        _check_intelligent_tiering(fsx)
        return
    for field, value in (("throughputCapacityMBps", fsx.throughput_capacity_mbps),
                         ("readCacheGiB", fsx.read_cache_gib)):
        if value is not None:
            raise ConfigValueError(f"{field} is for the INTELLIGENT_TIERING storage class ({FSX_API}).",
                                   fix=f"remove {field}, or set storageClass: INTELLIGENT_TIERING.",
                                   path=(field,), value=value)
    capacity = fsx.storage_capacity_gib
    if capacity != 1200 and capacity % 2400 != 0:
        lower = capacity // 2400 * 2400
        nearest = (1200, 2400) if lower < 2400 else (lower, lower + 2400)
        raise ConfigValueError(
            f"{fsx.deployment_type} SSD capacity must be 1200, 2400 or a multiple of 2400 GiB.",
            fix=f"use {nearest[0]} or {nearest[1]}.", path=("storageCapacityGiB",), value=capacity)
    if fsx.deployment_type == "SCRATCH_2":
        if fsx.per_unit_storage_throughput is not None:
            raise ConfigValueError("SCRATCH_2 has a fixed throughput (200 MB/s/TiB baseline).",
                                   fix="remove perUnitStorageThroughput, or use PERSISTENT_2.",
                                   path=("perUnitStorageThroughput",), value=fsx.per_unit_storage_throughput)
        if fsx.efa:
            raise ConfigValueError(f"EFA-enabled file systems must be PERSISTENT_2 ({EFA_GUIDE}).",
                                   fix="use deploymentType: PERSISTENT_2 or set efa: false.",
                                   path=("efa",), value=True)
        return
    throughput = fsx.per_unit_storage_throughput or DEFAULT_PERSISTENT_2_THROUGHPUT
    if throughput not in PERSISTENT_2_THROUGHPUTS:
        raise ConfigValueError(f"PERSISTENT_2 throughput must be one of {PERSISTENT_2_THROUGHPUTS} MB/s/TiB "
                               f"({FSX_API}).",
                               fix=f"use one of {', '.join(map(str, PERSISTENT_2_THROUGHPUTS))}.",
                               path=("perUnitStorageThroughput",), value=throughput)
    if fsx.metadata_iops is not None and fsx.metadata_iops not in METADATA_IOPS:
        raise ConfigValueError(
            f"metadata IOPS must be 1500, 3000, 6000, 12000 or a multiple of 12000 up to 192000 ({FSX_API}, "
            "MetadataConfiguration).",
            fix="use one of those values, or remove metadataIops for AUTOMATIC mode.",
            path=("metadataIops",), value=fsx.metadata_iops)
    step = EFA_CAPACITY_INCREMENTS[throughput]
    if fsx.efa and capacity % step != 0:
        raise ConfigValueError(
            f"EFA-enabled file systems at {throughput} MB/s/TiB grow in steps of {step} GiB ({EFA_GUIDE}).",
            fix=f"use a multiple of {step} GiB (e.g. {max(step, capacity // step * step)}), or another "
            f"throughput tier ({', '.join(f'{t}: {g} GiB' for t, g in EFA_CAPACITY_INCREMENTS.items())}).",
            path=("storageCapacityGiB",), value=capacity)


def _check_intelligent_tiering(fsx: FsxConfig) -> None:
    """The combinations AWS refuses for Intelligent-Tiering, refused here first with their source."""
    def refuse(message: str, fix: str, field: str, value: object) -> ConfigValueError:
        return ConfigValueError(message, fix=fix, path=tuple(field.split(".")), value=value)
    if fsx.storage_class == "HDD":
        raise refuse(f"HDD storage is PERSISTENT_1 only ({STORAGE_CLASS_GUIDE}); trainstack builds PERSISTENT_2 "
                     "and SCRATCH_2, whose Lustre 2.15 AL2023 clients mount.",
                     "use storageClass: SSD, or INTELLIGENT_TIERING for cheaper, rarely read data.",
                     "storageClass", "HDD")
    if fsx.deployment_type != "PERSISTENT_2":
        raise refuse(f"Intelligent-Tiering is PERSISTENT_2 only ({STORAGE_CLASS_GUIDE}).",
                     "use deploymentType: PERSISTENT_2, or storageClass: SSD.", "deploymentType",
                     fsx.deployment_type)
    for field, name in (("storageCapacityGiB", "storage_capacity_gib"),
                        ("perUnitStorageThroughput", "per_unit_storage_throughput")):
        if name in fsx.model_fields_set:
            raise refuse(f"Intelligent-Tiering storage grows and shrinks with its data and has no {field} "
                         f"({FSX_API}).", f"remove {field}; size throughput with throughputCapacityMBps.",
                         field, getattr(fsx, name))
    throughput, step = fsx.throughput_capacity_mbps, TIERING_THROUGHPUT_STEP
    if (throughput is None or throughput % TIERING_THROUGHPUT_STEP != 0
            or not TIERING_THROUGHPUT_STEP <= throughput <= TIERING_THROUGHPUT_MAX):
        raise refuse(f"Intelligent-Tiering needs throughputCapacityMBps: {TIERING_THROUGHPUT_STEP} or a multiple "
                     f"of it up to {TIERING_THROUGHPUT_MAX:,} ({FSX_API}, ThroughputCapacity).",
                     f"set throughputCapacityMBps: {max(step, (throughput or 0) // step * step)}.",
                     "throughputCapacityMBps", throughput)
    low, high = (bound * throughput // TIERING_THROUGHPUT_STEP for bound in TIERING_READ_CACHE_GIB_PER_STEP)
    if fsx.read_cache_gib and not low <= fsx.read_cache_gib <= high:
        raise refuse(f"at {throughput} MB/s the SSD read cache is {low} to {high} GiB "
                     "(FSx API LustreReadCacheConfiguration: 32 to 131072 GiB per 4000 MB/s).",
                     f"use {low}-{high} GiB, 0 for no cache, or remove readCacheGiB to size it with throughput.",
                     "readCacheGiB", fsx.read_cache_gib)
    if fsx.metadata_iops is not None and fsx.metadata_iops not in TIERING_METADATA_IOPS:
        raise refuse(f"Intelligent-Tiering metadata IOPS are 6000 or 12000 ({FSX_API}, MetadataConfiguration).",
                     "use 6000 or 12000, or remove metadataIops for 6000.", "metadataIops", fsx.metadata_iops)
    if fsx.data_repository is not None:
        raise refuse(DATA_REPOSITORY_GUIDE + ".", "remove dataRepository (mount datasets with Mountpoint for S3), "
                     "or use storageClass: SSD.", "dataRepository", fsx.data_repository.s3_path)
    if fsx.checkpoints is not None and fsx.checkpoints.export_to_bucket:
        raise refuse("checkpoint export is a data repository association, which " + DATA_REPOSITORY_GUIDE + ".",
                     "set checkpoints.exportToBucket: false, or use storageClass: SSD.",
                     "checkpoints.exportToBucket", True)


def check_fsx_in_stack(stack: StackConfig) -> None:
    """The file system in a zone with a private subnet and every node group's; no trn2 client of an EFA file
    system; the bucket it exports checkpoints to; SCRATCH_2 not on production."""
    if stack.fsx is None:
        return
    fsx = stack.fsx
    if fsx.zone not in stack.network.private_zones:
        raise ConfigValueError(f"FSx zone {fsx.zone} has no private subnet in the network.",
                               fix=f"use one of {', '.join(stack.network.private_zones)}.",
                               path=("fsx", "zone"), value=fsx.zone)
    for group in stack.node_groups:
        if group.zone != fsx.zone:
            raise ConfigValueError(
                f"FSx is in {fsx.zone} but node group '{group.name}' is in {group.zone}; "
                "Lustre traffic across zones is slow and billed.",
                fix=f"put the file system in {group.zone}, or the node group in {fsx.zone}.",
                path=("fsx", "zone"), value=fsx.zone)
    clients = [g.instance_type for g in stack.node_groups] + (
        [catalog.get_hyperpod(g.instance_type).name for g in stack.hyperpod.groups] if stack.hyperpod else [])
    if fsx.efa and any(t.startswith("trn2") for t in clients):
        raise ConfigValueError(f"EFA-enabled FSx does not support trn2 clients ({EFA_GUIDE}).",
                               fix="set fsx.efa: false for stacks with trn2 node groups or instance groups.",
                               path=("fsx", "efa"), value=True)
    export = fsx.checkpoints is not None and fsx.checkpoints.export_to_bucket
    if export and not stack.checkpoint_bucket.enabled:
        raise ConfigValueError("fsx.checkpoints.exportToBucket exports checkpoints to the stack's checkpoint "
                               "bucket, which checkpointBucket.enabled: false turns off.",
                               fix="enable the checkpoint bucket, or set fsx.checkpoints.exportToBucket: false.",
                               path=("fsx", "checkpoints", "exportToBucket"), value=True)
    if fsx.deployment_type == "SCRATCH_2" and stack.profile == "production":
        raise ConfigValueError("SCRATCH_2 keeps no replica and no backup; production data needs PERSISTENT_2.",
                               fix="use deploymentType: PERSISTENT_2, or profile: dev.",
                               path=("fsx", "deploymentType"), value="SCRATCH_2")
