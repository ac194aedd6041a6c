"""Lookups: close matches for typos, HyperPod names, and refusing unknown facts."""

import re

import pytest
from trainstack import catalog


def test_a_typo_gets_close_matches_from_the_same_family():
    with pytest.raises(catalog.UnknownInstanceTypeError) as raised:
        catalog.get("p5.48xlarg")
    assert raised.value.close_matches[0] == "p5.48xlarge"
    assert "p5.48xlarge" in str(raised.value)


def test_p6e_gb200_efa_count_is_unknown_and_using_it_is_refused():
    gb200 = catalog.get("p6e-gb200.36xlarge")
    assert gb200.efa.supported and gb200.efa.max_interfaces is None
    with pytest.raises(catalog.UnknownFactError, match=re.escape("p6e-gb200.36xlarge: EFA interfaces")):
        gb200.require("EFA interfaces", gb200.efa.max_interfaces, "lay out EFA interfaces")


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
    assert catalog.get("p6e-gb200.36xlarge").nvme_instance_store_gb is None


def test_gpudirect_storage_only_on_the_families_the_fsx_guide_lists():
    assert catalog.get("p5.48xlarge").gpudirect_storage
    assert catalog.get("p5en.48xlarge").gpudirect_storage
    assert not catalog.get("p4de.24xlarge").gpudirect_storage
    assert not catalog.get("trn1.32xlarge").gpudirect_storage
