"""Lookups: close matches for typos, HyperPod names, and refusing unknown facts."""

import re

import pytest
from trainstack import catalog


def test_a_typo_gets_close_matches_from_the_same_family():
    with pytest.raises(catalog.UnknownInstanceTypeError) as raised:
        catalog.get("p5.48xlarg")
    assert raised.value.close_matches[0] == "p5.48xlarge"
    assert "p5.48xlarge" in str(raised.value)


def test_p6e_gb200_has_awss_published_facts():
    # EC2 Instance Types guide ac.html and the EFA page's P6e-GB200 section, read 2026-11-26.
    gb200 = catalog.get("p6e-gb200.36xlarge")
    assert (gb200.arch, gb200.vcpus, gb200.memory_gib) == ("arm64", 144, 960)
    assert (gb200.accelerator.count, gb200.accelerator.memory_mib) == (4, 185 * 1024)
    assert (gb200.network.cards, gb200.network.ipv4_per_eni, gb200.network.bandwidth_gbps) == (17, 50, 3200)
    assert gb200.efa.max_interfaces == 4 and gb200.efa.cards == (1, 5, 9, 13)
    assert gb200.capacity_block and gb200.nvme_instance_store_gb == 22500


def test_an_unknown_fact_is_refused_by_name():
    gb200 = catalog.get("p6e-gb200.36xlarge")
    with pytest.raises(catalog.UnknownFactError, match=re.escape("p6e-gb200.36xlarge: offered regions")):
        gb200.require("offered regions", gb200.regions, "check its offerings")


def test_p6e_gb200_max_pods_rests_on_the_smaller_reading_of_card_0s_enis():
    # No AWS page gives card 0's ENIs; 2 is the smaller reading of the only per-card source (p6e_gb200.py).
    gb200 = catalog.get("p6e-gb200.36xlarge")
    assert (gb200.network.enis_on_card0, gb200.network.max_pods) == (2, 100)
    assert any("ENIs on card 0" in note for note in gb200.notes)


def test_trn2u_is_a_catalog_type_of_16_trainium2_on_the_neuron_amis():
    # EC2 data (moto 5.2.5) for its network; the Neuron docs' Trn2 UltraServer (4 x trn2u = 64 Trainium2).
    trn2u, trn2 = catalog.get("trn2u.48xlarge"), catalog.get("trn2.48xlarge")
    assert trn2u.accelerator == trn2.accelerator
    assert (trn2u.accelerator.name, trn2u.accelerator.count, trn2u.accelerator.memory_mib) == (
        "Trainium2", 16, 96 * 1024)
    assert trn2u.ami_types == trn2.ami_types == ("AL2023_x86_64_NEURON", "BOTTLEROCKET_x86_64")
    assert (trn2u.efa.max_interfaces, trn2u.network.enis_on_card0, trn2u.network.max_pods) == (16, 2, 100)
    assert trn2u.capacity_block and trn2u.regions == ("ap-south-2",)
    assert "Neuron docs" in trn2u.source.description


def test_p6_b300_has_17_cards_and_16_efa_interfaces_none_on_card_0():
    b300 = catalog.get("p6-b300.48xlarge")
    assert b300.network.cards == 17
    assert b300.efa.max_interfaces == 16
    assert b300.efa.cards == tuple(range(1, 17))


def test_hyperpod_names_exclude_trn1_2xlarge_and_inf2():
    names = catalog.hyperpod_names()
    assert "ml.trn1.32xlarge" in names and "ml.c5.xlarge" in names
    assert "ml.trn1.2xlarge" not in names and "ml.inf2.48xlarge" not in names


def test_p5e_and_trn2_have_no_invented_on_demand_price():
    assert catalog.get("p5e.48xlarge").price("us-east-1") is None
    assert catalog.get("trn2.48xlarge").price("us-east-1") is None


def test_kubernetes_resource_names_follow_the_device_plugins():
    assert catalog.get("p5.48xlarge").accelerator.resource_names == ("nvidia.com/gpu",)
    assert catalog.get("trn1.32xlarge").accelerator.resource_names == (
        "aws.amazon.com/neuron", "aws.amazon.com/neuroncore")


def test_local_nvme_instance_store_comes_from_the_ec2_data():
    # EC2 InstanceStorageInfo: p5.48xlarge 8 x 3800 GB NVMe SSD, trn1.32xlarge 4 x 1900 GB;
    # m5.large has no instance store.
    assert catalog.get("p5.48xlarge").nvme_instance_store_gb == 30400
    assert catalog.get("trn1.32xlarge").nvme_instance_store_gb == 7600
    assert catalog.get("m5.large").nvme_instance_store_gb == 0
    assert catalog.get("p6e-gb200.36xlarge").nvme_instance_store_gb == 22500  # ac.html: 3 x 7500 GB NVMe SSD


def test_gpudirect_storage_only_on_the_families_the_fsx_guide_lists():
    assert catalog.get("p5.48xlarge").gpudirect_storage
    assert catalog.get("p5en.48xlarge").gpudirect_storage
    assert not catalog.get("p4de.24xlarge").gpudirect_storage
    assert not catalog.get("trn1.32xlarge").gpudirect_storage
