"""Defaults that depend on other settings, read from the validated models (ADR 0002)."""

import pytest
from trainstack import validate_stack_config
from trainstack.config import FsxConfig, VpcCniConfig

HYPERPOD = {"clusterName": "ml", "controller": {"name": "controller", "instanceType": "ml.c5.xlarge", "count": 1},
            "workers": [{"name": "workers", "instanceType": "ml.g5.8xlarge", "count": 2}]}


@pytest.mark.parametrize("zone, fsx_zone, expected", [
    ("us-east-1b", None, "us-east-1b"),   # as given
    (None, "us-east-1a", "us-east-1a"),   # FSx's zone
    (None, None, "us-east-1a"),           # the first private zone
])
def test_the_hyperpod_zone_is_as_given_else_fsxs_else_the_first_private_zone(valid_config, zone, fsx_zone,
                                                                             expected):
    valid_config.update(hyperpod={**HYPERPOD, **({"zone": zone} if zone else {})})
    valid_config["network"]["zones"] = ["us-east-1a", "us-east-1b"]
    if fsx_zone:
        valid_config["fsx"] = {"zone": fsx_zone}
    config = validate_stack_config(valid_config)
    assert config.hyperpod_zone == expected
    assert config.hyperpod.zone == zone


def test_fsx_throughput_defaults_to_250_per_tib_on_persistent_2_ssd_and_200_on_scratch():
    assert FsxConfig(zone="us-east-1a").per_unit_throughput == 250
    assert FsxConfig(zone="us-east-1a").throughput_mbps == 1200 * 250 // 1024
    scratch = FsxConfig(zone="us-east-1a", deployment_type="SCRATCH_2", storage_capacity_gib=2400)
    assert (scratch.per_unit_throughput, scratch.throughput_mbps) == (None, 2400 * 200 // 1024)


def test_intelligent_tiering_throughput_is_the_file_systems_and_its_metadata_iops_default_to_6000():
    tiering = FsxConfig(zone="us-east-1a", storage_class="INTELLIGENT_TIERING", throughput_capacity_mbps=8000)
    assert (tiering.per_unit_throughput, tiering.throughput_mbps, tiering.provisioned_metadata_iops) == (
        None, 8000, 6000)
    assert FsxConfig(zone="us-east-1a").provisioned_metadata_iops is None  # AUTOMATIC on SSD


def test_the_fsx_throughput_warning_names_the_share_per_accelerator_and_the_floor(valid_config):
    valid_config["fsx"] = {"zone": "us-east-1a", "minThroughputPerAcceleratorMbps": 50}
    warning = validate_stack_config(valid_config).fsx_throughput_warning()
    # 1200 GiB x 250 MB/s/TiB = 292 MB/s over 2 p5 nodes x 8 GPUs
    assert warning is not None and warning.startswith("fsx: 292 MB/s for 16 accelerators at max size is 18.2 MB/s")
    valid_config["fsx"]["minThroughputPerAcceleratorMbps"] = 10
    assert validate_stack_config(valid_config).fsx_throughput_warning() is None


def test_the_vpc_cni_targets_default_to_16_and_8_and_are_not_rendered_beside_an_eni_target():
    assert VpcCniConfig().env() == {"MINIMUM_IP_TARGET": "16", "WARM_IP_TARGET": "8"}
    assert VpcCniConfig(warm_ip_target=2).env() == {"MINIMUM_IP_TARGET": "16", "WARM_IP_TARGET": "2"}
    assert VpcCniConfig(warm_eni_target=1).env() == {"WARM_ENI_TARGET": "1"}


@pytest.mark.parametrize("profile", [[], {"name": "dev"}, 1])
def test_a_profile_that_is_not_a_name_is_refused_with_its_key_not_a_traceback(valid_config, profile):
    from trainstack import ConfigError

    valid_config["profile"] = profile
    with pytest.raises(ConfigError) as refused:
        validate_stack_config(valid_config)
    assert refused.value.issues[0].path == "trainstack:profile"
