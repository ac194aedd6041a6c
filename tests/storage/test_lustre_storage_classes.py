"""FSx for Lustre's storage classes: SSD as before, Intelligent-Tiering built with a throughput
capacity and a read cache, and every combination AWS refuses refused first, with its source."""

import pytest
from trainstack import ConfigError
from trainstack.config import FsxConfig, validate
from trainstack.estimate.checkpoint import checkpoint_timing
from trainstack.estimate.cost import estimate_resources
from trainstack.plan import run_program
from trainstack.review import decide
from trainstack.storage.lustre import LustreFileSystem

FS = "aws:fsx/lustreFileSystem:LustreFileSystem"
TIERING = {"storageClass": "INTELLIGENT_TIERING", "throughputCapacityMBps": 8000}


def plan_lustre(**settings):
    args = {"settings": {"zone": "us-east-1a", **settings}, "vpc_id": "vpc-1", "subnet_id": "subnet-a",
            "client_security_group_ids": ["sg-clients"]}
    return run_program(lambda: LustreFileSystem("fsx", args), project="demo", stack="test")


def refusal(**settings) -> str:
    with pytest.raises(ConfigError) as error:
        validate(FsxConfig, {"zone": "us-east-1a", **settings}, prefix="fsx")
    return str(error.value)


def test_intelligent_tiering_sends_throughput_a_proportional_read_cache_and_6000_metadata_iops_and_no_capacity():
    inputs = plan_lustre(**TIERING).get(FS, "fsx").inputs
    assert inputs["storageType"] == "INTELLIGENT_TIERING" and inputs["deploymentType"] == "PERSISTENT_2"
    assert inputs["throughputCapacity"] == 8000
    assert inputs["dataReadCacheConfiguration"] == {"sizingMode": "PROPORTIONAL_TO_THROUGHPUT_CAPACITY"}
    assert inputs["metadataConfiguration"] == {"mode": "USER_PROVISIONED", "iops": 6000}
    assert "storageCapacity" not in inputs and "perUnitStorageThroughput" not in inputs


def test_a_read_cache_of_0_gib_is_no_cache_and_a_size_is_user_provisioned():
    none = plan_lustre(**TIERING, readCacheGiB=0).get(FS, "fsx").inputs["dataReadCacheConfiguration"]
    sized = plan_lustre(**TIERING, readCacheGiB=2048).get(FS, "fsx").inputs["dataReadCacheConfiguration"]
    assert none == {"sizingMode": "NO_CACHE"}
    assert sized == {"sizingMode": "USER_PROVISIONED", "size": 2048}


def test_ssd_is_the_default_and_sends_no_intelligent_tiering_inputs():
    inputs = plan_lustre().get(FS, "fsx").inputs
    assert inputs["storageType"] == "SSD" and inputs["storageCapacity"] == 1200
    assert "throughputCapacity" not in inputs and "dataReadCacheConfiguration" not in inputs


def test_an_efa_enabled_intelligent_tiering_file_system_plans():
    inputs = plan_lustre(**TIERING, efa=True).get(FS, "fsx").inputs
    assert inputs["efaEnabled"] is True and inputs["storageType"] == "INTELLIGENT_TIERING"


@pytest.mark.parametrize("settings, names", [
    ({"storageClass": "HDD"}, ("storageClass", "PERSISTENT_1 only", "using-fsx-lustre.html")),
    ({**TIERING, "deploymentType": "SCRATCH_2"}, ("deploymentType", "PERSISTENT_2 only", "using-fsx-lustre.html")),
    ({"storageClass": "INTELLIGENT_TIERING"}, ("throughputCapacityMBps", "4000 or a multiple", "ThroughputCapacity")),
    ({**TIERING, "throughputCapacityMBps": 6000},
     ("throughputCapacityMBps = 6000", "set throughputCapacityMBps: 4000")),
    ({**TIERING, "storageCapacityGiB": 2400}, ("storageCapacityGiB = 2400", "no storageCapacityGiB")),
    ({**TIERING, "perUnitStorageThroughput": 250}, ("perUnitStorageThroughput = 250",)),
    ({**TIERING, "readCacheGiB": 16}, ("readCacheGiB = 16", "64 to 262144 GiB", "LustreReadCacheConfiguration")),
    ({**TIERING, "metadataIops": 3000}, ("metadataIops = 3000", "6000 or 12000")),
    ({**TIERING, "dataRepository": {"s3Path": "s3://datasets/train/"}},
     ("dataRepository", "don't support linking to Amazon S3 data repositories", "fsx-data-repositories.html")),
    ({**TIERING, "checkpoints": {"sizeGB": 100, "intervalMinutes": 30}},
     ("checkpoints.exportToBucket", "exportToBucket: false")),
    ({"throughputCapacityMBps": 4000}, ("throughputCapacityMBps = 4000", "storageClass: INTELLIGENT_TIERING")),
], ids=["hdd", "scratch", "no-throughput", "not-a-multiple", "capacity", "per-unit", "cache", "metadata",
        "data-repository", "checkpoint-export", "throughput-on-ssd"])
def test_combinations_aws_refuses_are_refused_naming_the_field_and_the_source(settings, names):
    message = refusal(**settings)
    for name in names:
        assert name in message, message


def test_checkpoints_without_export_are_accepted_on_intelligent_tiering():
    settings = validate(FsxConfig, {"zone": "us-east-1a", **TIERING, "checkpoints": {
        "sizeGB": 100, "intervalMinutes": 30, "exportToBucket": False}}, prefix="fsx")
    assert settings.provisioned_metadata_iops == 6000 and settings.checkpoints is not None


def test_a_checkpoint_on_intelligent_tiering_is_written_at_its_throughput_capacity():
    """8 p5 over EFA drive 8 x 87,500 MB/s; the file system's 8,000 MB/s bounds the write:
    1,000 GB / 8,000 MB/s = 125 s, 125 / 1,800 s = 6.9 % of a 30-minute interval."""
    fsx = {"storageType": "INTELLIGENT_TIERING", "throughputCapacity": 8000, "deploymentType": "PERSISTENT_2",
           "efaEnabled": True}
    job = {"sizeGB": 1000, "intervalMinutes": 30, "keep": 3, "writers": 8, "writerInstanceType": "p5.48xlarge",
           "writersUseEfa": True}
    timing = checkpoint_timing("fs", job, fsx)
    assert timing is not None
    assert timing.file_system_mbps == 8000 and timing.write_seconds == pytest.approx(125)
    assert timing.share == pytest.approx(125 / 1800)
    assert timing.capacity_gb is None and timing.as_dict()["capacityGB"] is None
    assert "3 kept fill 3,000 GB of elastic storage" in timing.render()


def test_intelligent_tiering_is_an_unpriced_cost_line_never_zero():
    plan = plan_lustre(**TIERING)
    estimate = estimate_resources(plan.resources, "us-east-1")
    (line,) = [line for line in estimate.unpriced if line.item.startswith("FSx fsx")]
    assert "Intelligent-Tiering, 8000 MB/s" in line.item
    assert "no dated price found for FSx for Lustre Intelligent-Tiering" in line.source
    assert estimate.as_dict()["complete"] is False


def test_throughput_and_the_read_cache_change_in_place_and_the_storage_class_replaces():
    assert decide(FS, "throughputCapacity", 4000, 8000, {}).effect == "update"
    assert decide(FS, "dataReadCacheConfiguration.sizingMode", "NO_CACHE", "USER_PROVISIONED", {}).effect == "update"
    assert decide(FS, "storageType", "SSD", "INTELLIGENT_TIERING", {}).effect == "replace"


def test_the_report_shows_checkpoints_on_intelligent_tiering_as_filling_elastic_storage():
    from types import SimpleNamespace

    from trainstack.plan import SavedSection, Sections
    from trainstack.report.page import _storage

    fsx = {"storageType": "INTELLIGENT_TIERING", "throughputCapacity": 8000, "deploymentType": "PERSISTENT_2"}
    job = {"sizeGB": 1000, "intervalMinutes": 30, "keep": 3, "writers": 8, "writerInstanceType": "p5.48xlarge"}
    timing = checkpoint_timing("fs", job, fsx)
    assert timing is not None
    saved = SavedSection("storage", {"checkpoints": [timing.as_dict()]})
    page = _storage(SimpleNamespace(sections=Sections(storage=saved)))
    assert "<td>8,000</td>" in page and "<td>3,000 GB (elastic storage)</td>" in page
