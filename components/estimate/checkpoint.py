"""How long the job's checkpoint takes to write to FSx for Lustre, and what it fills.

Read from a plan record: each ``LustreFileSystem`` component carries the job's
checkpoint (size, interval, how many are kept, who writes it) as its inputs, and its
FSx file system the capacity, per-unit throughput and whether EFA is on.

A checkpoint is written at the slower of two rates:

* the file system's: capacity (TiB) x per-unit throughput (MB/s/TiB), the disk
  throughput that governs writes (FSx for Lustre User Guide, "Amazon FSx for Lustre
  performance": writes run at the lower of network and disk throughput); on the
  Intelligent-Tiering storage class the provisioned ``throughputCapacity`` (MB/s), which
  is independent of its (elastic) storage (User Guide, "Performance characteristics of
  Intelligent-Tiering storage class", intelligent-tiering-file-systems.html);
* the clients': the writing instances x what one client can drive. FSx for Lustre
  User Guide, "Throughput to individual client instances" (performance.html,
  read 2026-11 through a quoting study): up to 100 Gbps per client over ENA (TCP),
  700 Gbps over EFA; never above the instance's own network bandwidth (the catalog's).
  The guide's 1200 Gbps with GPUDirect Storage is not credited: GDS needs the NVIDIA GDS
  driver (nvidia-fs) on the node and a writer that calls cuFile, and trainstack installs
  neither and has no setting that says a stack has them. The estimate is what the stack
  gives: TCP, or EFA without GDS.

The share of the interval is the write time over the interval: training waits for a
synchronous checkpoint, so that is the fraction of the run spent checkpointing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Optional, TypeGuard

from .. import catalog
from ..names import LUSTRE_FILE_SYSTEM, LUSTRE_FILE_SYSTEM_COMPONENT

if TYPE_CHECKING:
    from ..plan import Plan

SCRATCH_2_MBPS_PER_TIB = 200
CLIENT_GBPS = {"tcp": 100.0, "efa": 700.0}
"""Most one FSx for Lustre client drives, per transport (FSx for Lustre User Guide, performance)."""
GB_PER_GIB = 1.073741824


@dataclass(frozen=True)
class CheckpointTiming:
    file_system: str
    checkpoint_gb: float
    interval_minutes: float
    keep: int
    writers: int
    writer_instance_type: str
    capacity_gib: Optional[int]
    """None on Intelligent-Tiering, whose storage grows with what it holds."""
    file_system_mbps: float
    tcp_mbps: float
    """The write rate over TCP: the file system's, or the writers' ENA limit if lower."""
    efa_mbps: Optional[float]
    """The write rate over EFA (without GDS: see the module); None without EFA on both sides."""
    transport: str
    """What the writers use: tcp or efa."""

    @property
    def rate_mbps(self) -> float:
        return self.efa_mbps if self.efa_mbps is not None else self.tcp_mbps

    @property
    def write_seconds(self) -> float:
        return self.checkpoint_gb * 1000 / self.rate_mbps

    @property
    def tcp_write_seconds(self) -> float:
        return self.checkpoint_gb * 1000 / self.tcp_mbps

    @property
    def share(self) -> float:
        """The fraction of each checkpoint interval spent writing."""
        return self.write_seconds / (self.interval_minutes * 60)

    @property
    def stored_gb(self) -> float:
        return self.keep * self.checkpoint_gb

    @property
    def capacity_gb(self) -> Optional[float]:
        return None if self.capacity_gib is None else self.capacity_gib * GB_PER_GIB

    def as_dict(self) -> dict[str, Any]:
        return {"fileSystem": self.file_system, "checkpointGB": self.checkpoint_gb,
                "intervalMinutes": self.interval_minutes, "keep": self.keep, "writers": self.writers,
                "writerInstanceType": self.writer_instance_type, "transport": self.transport,
                "fileSystemMBps": round(self.file_system_mbps, 1), "tcpMBps": round(self.tcp_mbps, 1),
                "efaMBps": None if self.efa_mbps is None else round(self.efa_mbps, 1),
                "writeSeconds": round(self.write_seconds, 1), "tcpWriteSeconds": round(self.tcp_write_seconds, 1),
                "intervalShare": round(self.share, 4), "storedGB": round(self.stored_gb, 1),
                "capacityGB": None if self.capacity_gb is None else round(self.capacity_gb, 1)}

    def render(self) -> str:
        lines = [f"  {self.file_system}: {self.checkpoint_gb:,.0f} GB every {self.interval_minutes:g} min, "
                 f"written by {self.writers} x {self.writer_instance_type}",
                 f"    file system {self._capacity_text()} at {self.file_system_mbps:,.0f} MB/s; over TCP "
                 f"{self.tcp_mbps:,.0f} MB/s: {self.tcp_write_seconds:,.0f} s per checkpoint"]
        if self.efa_mbps is not None:
            lines.append(f"    over {self.transport.upper()}: {self.efa_mbps:,.0f} MB/s: "
                         f"{self.write_seconds:,.0f} s per checkpoint")
        held = ("elastic storage" if self.capacity_gb is None else
                f"{self.capacity_gb:,.0f} GB ({self.stored_gb / self.capacity_gb:.0%})")
        lines.append(f"    {self.share:.1%} of each interval spent checkpointing; {self.keep} kept fill "
                     f"{self.stored_gb:,.0f} GB of {held}")
        return "\n".join(lines)

    def _capacity_text(self) -> str:
        return "Intelligent-Tiering" if self.capacity_gib is None else f"{self.capacity_gib:,} GiB"


def checkpoint_timing(file_system: str, checkpoint: dict[str, Any], fsx: dict[str, Any]) -> Optional[CheckpointTiming]:
    """The timing of ``checkpoint`` (a LustreFileSystem's ``checkpoint`` input) on ``fsx`` (its file
    system's inputs); None when a number it needs is not known (an unknown preview value)."""
    capacity, file_system_mbps = _file_system(fsx)
    size, interval, writers = checkpoint.get("sizeGB"), checkpoint.get("intervalMinutes"), checkpoint.get("writers")
    numbers = (file_system_mbps, size, interval, writers)
    if not all(_is_number(v) for v in numbers):
        return None
    file_system_mbps, size, interval, writers = (float(v) for v in numbers)  # type: ignore[arg-type] # checked
    instance = catalog.find_hyperpod(str(checkpoint.get("writerInstanceType", "")))
    tcp = min(file_system_mbps, writers * _client_mbps(instance, "tcp"))
    transport = "efa" if fsx.get("efaEnabled") and checkpoint.get("writersUseEfa") else "tcp"
    efa = None if transport == "tcp" else min(file_system_mbps, writers * _client_mbps(instance, transport))
    return CheckpointTiming(file_system, float(size), float(interval), int(checkpoint.get("keep") or 1),
                            int(writers), str(checkpoint.get("writerInstanceType")), capacity,
                            file_system_mbps, tcp, efa, transport)


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _file_system(fsx: dict[str, Any]) -> tuple[Optional[int], Optional[float]]:
    """(capacity GiB, throughput MB/s) of an FSx file system's inputs; capacity None on Intelligent-Tiering,
    throughput None when a number it needs is unknown."""
    if fsx.get("storageType") == "INTELLIGENT_TIERING":
        throughput = fsx.get("throughputCapacity")
        return None, float(throughput) if _is_number(throughput) else None
    capacity, per_unit = fsx.get("storageCapacity"), fsx.get("perUnitStorageThroughput")
    if fsx.get("deploymentType") == "SCRATCH_2":
        per_unit = SCRATCH_2_MBPS_PER_TIB
    if _is_number(capacity) and _is_number(per_unit):
        return int(capacity), capacity * per_unit / 1024
    return None, None


def _client_mbps(instance: Optional[catalog.InstanceType], transport: str) -> float:
    """MB/s one client drives: FSx's limit for the transport, capped by the instance's bandwidth."""
    gbps = CLIENT_GBPS[transport]
    if instance is not None and instance.network.bandwidth_gbps is not None:
        gbps = min(gbps, instance.network.bandwidth_gbps)
    return gbps * 1000 / 8


@dataclass(frozen=True)
class StorageSizing:
    key: ClassVar[str] = "storage"
    """Its key in a plan record (a ``plan.Section``)."""

    timings: tuple[CheckpointTiming, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"checkpoints": [t.as_dict() for t in self.timings]}

    def render(self) -> str:
        return "\n".join(["Checkpoints on FSx for Lustre:", *(t.render() for t in self.timings)])


def storage_sizing(plan: Plan) -> Optional[StorageSizing]:
    """The checkpoint timing of every file system that knows its job's checkpoint; None if none does."""
    timings = []
    for component in plan.by_type(LUSTRE_FILE_SYSTEM_COMPONENT):
        checkpoint = component.inputs.get("checkpoint")
        file_systems = [r for r in plan.by_type(LUSTRE_FILE_SYSTEM) if r.parent == component.urn]
        if not isinstance(checkpoint, dict) or not file_systems:
            continue
        timing = checkpoint_timing(component.name, checkpoint, file_systems[0].inputs)
        if timing is not None:
            timings.append(timing)
    return StorageSizing(tuple(timings)) if timings else None
