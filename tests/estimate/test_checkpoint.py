"""The time a checkpoint takes to write to FSx for Lustre, worked by hand, and the plan's storage section."""

import pytest
from support.policy_stacks import PROJECT
from trainstack.estimate.checkpoint import checkpoint_timing, storage_sizing
from trainstack.plan import run_plan


def fsx(capacity, per_unit, efa=False, deployment="PERSISTENT_2"):
    return {"storageCapacity": capacity, "perUnitStorageThroughput": per_unit, "efaEnabled": efa,
            "deploymentType": deployment}


def job(size_gb, interval, writers, instance_type, keep=3, efa=False):
    return {"sizeGB": size_gb, "intervalMinutes": interval, "keep": keep, "writers": writers,
            "writerInstanceType": instance_type, "writersUseEfa": efa}


def test_trn1_as_shipped_before_it_was_resized_spends_a_third_of_each_interval_checkpointing():
    """Llama 2 13B with Adam: 13e9 x (2 + 12) bytes = 182 GB.
    1200 GiB at 250 MB/s/TiB: 1200 x 250 / 1024 = 292.97 MB/s.
    4 trn1.32xlarge over TCP drive up to 4 x 100 Gbps = 4 x 12,500 MB/s: the file system governs.
    182,000 MB / 292.97 MB/s = 621.2 s; over a 30-minute interval (1,800 s): 34.5%.
    3 kept: 546 GB of 1200 GiB x 1.0737 = 1,288.5 GB."""
    timing = checkpoint_timing("trn1-fsx", job(182, 30, 4, "trn1.32xlarge"), fsx(1200, 250))
    assert timing.file_system_mbps == pytest.approx(292.97, abs=0.01)
    assert timing.write_seconds == pytest.approx(621.2, abs=0.1)
    assert timing.share == pytest.approx(0.3451, abs=0.0001)
    assert timing.stored_gb == 546 and timing.capacity_gb == pytest.approx(1288.49, abs=0.01)
    assert timing.efa_mbps is None and timing.transport == "tcp"


def test_trn1_resized_to_2400_gib_at_500_writes_in_under_a_tenth_of_the_interval():
    """2400 x 500 / 1024 = 1,171.9 MB/s; 182,000 / 1,171.9 = 155.3 s; 155.3 / 1,800 = 8.6%."""
    timing = checkpoint_timing("trn1-fsx", job(182, 30, 4, "trn1.32xlarge"), fsx(2400, 500))
    assert timing.write_seconds == pytest.approx(155.3, abs=0.1)
    assert timing.share == pytest.approx(0.0863, abs=0.0001)


def test_one_writer_over_tcp_is_held_to_its_own_bandwidth_when_the_file_system_is_faster():
    """4800 GiB at 1000: 4,687.5 MB/s. One g5.8xlarge (25 Gbps, under FSx's 100 Gbps per ENA client)
    drives 25,000 / 8 = 3,125 MB/s: 100 GB take 100,000 / 3,125 = 32 s."""
    timing = checkpoint_timing("fs", job(100, 60, 1, "g5.8xlarge"), fsx(4800, 1000))
    assert timing.tcp_mbps == 3125 and timing.write_seconds == 32


def test_over_efa_a_p5_writes_at_efas_client_rate_never_gpudirect_storages():
    """One p5.48xlarge over EFA: FSx's 700 Gbps per EFA client, under the instance's 3200 Gbps: 87,500
    MB/s; over TCP 12,500 MB/s. On a 38,400 GiB file system at 1000 MB/s/TiB (37,500 MB/s), 1,000 GB
    take 26.7 s over EFA and 80 s over TCP. GDS (1200 Gbps) is never credited: trainstack installs
    neither the GDS driver nor a cuFile writer. A p4de.24xlarge is the same over EFA."""
    p5 = checkpoint_timing("fs", job(1000, 60, 1, "p5.48xlarge", efa=True), fsx(38400, 1000, efa=True))
    assert p5.transport == "efa" and p5.efa_mbps == 37500
    one_client = checkpoint_timing("fs", job(1000, 60, 1, "p5.48xlarge", efa=True), fsx(384000, 1000, efa=True))
    assert one_client.efa_mbps == 700 * 1000 / 8  # the EFA client rate, not GDS's 150,000
    assert p5.write_seconds == pytest.approx(26.67, abs=0.01) and p5.tcp_write_seconds == 80
    p4de = checkpoint_timing("fs", job(1000, 60, 1, "p4de.24xlarge", efa=True), fsx(38400, 1000, efa=True))
    assert p4de.transport == "efa"


def test_efa_on_one_side_only_is_tcp():
    timing = checkpoint_timing("fs", job(1000, 60, 1, "p5.48xlarge", efa=False), fsx(4800, 1000, efa=True))
    assert timing.transport == "tcp" and timing.efa_mbps is None


def test_scratch_2_writes_at_its_fixed_200_mb_s_per_tib():
    """SCRATCH_2 2400 GiB: 2400 x 200 / 1024 = 468.75 MB/s."""
    timing = checkpoint_timing("fs", job(46.875, 10, 2, "g5.8xlarge"), fsx(2400, None, deployment="SCRATCH_2"))
    assert timing.file_system_mbps == 468.75 and timing.write_seconds == 100


def test_an_unknown_number_is_not_estimated():
    assert checkpoint_timing("fs", job(10, 10, 1, "p5.48xlarge"), fsx(None, 1000)) is None


def test_the_plan_carries_the_storage_section_of_the_shipped_fsdp_p5_stack():
    """fsdp-p5: 70e9 x 14 = 980 GB every 60 minutes by 16 p5.48xlarge over EFA; 4800 GiB at
    1000 MB/s/TiB = 4,687.5 MB/s governs: 980,000 / 4,687.5 = 209.1 s, 5.8% of 3,600 s."""
    (timing,) = storage_sizing(run_plan(PROJECT, "fsdp-p5")).as_dict()["checkpoints"]
    assert timing == {"fileSystem": "fsdp-p5-fsx", "checkpointGB": 980.0, "intervalMinutes": 60.0, "keep": 3,
                      "writers": 16, "writerInstanceType": "p5.48xlarge", "transport": "efa",
                      "fileSystemMBps": 4687.5, "tcpMBps": 4687.5, "efaMBps": 4687.5, "writeSeconds": 209.1,
                      "tcpWriteSeconds": 209.1, "intervalShare": 0.0581, "storedGB": 2940.0, "capacityGB": 5154.0}


def test_the_higher_throughput_tiers_are_priced_only_where_a_dated_source_gives_them():
    """ap-northeast-1, 2022-09-03: 1000 MB/s/TiB at $1.39/h per 1.2 TiB = 1.39 x 730 / 1200 = $0.846/GB-month.
    us-east-1 has a price for 125 only; its higher tiers stay unpriced, never borrowed from another region."""
    from trainstack.estimate.prices import fsx_price

    assert fsx_price("PERSISTENT_2", 1000, "ap-northeast-1").usd == pytest.approx(1.39 * 730 / 1200, abs=0.001)
    assert fsx_price("PERSISTENT_2", 125, "us-east-1").usd == 0.145
    assert fsx_price("PERSISTENT_2", 1000, "us-east-1") is None
