"""Interconnect facts: EFA network bandwidth as the EC2 API gives it, and a GPU link
for every GPU model in the catalog."""

import gzip
import json
from pathlib import Path

import moto
import pytest
from trainstack import catalog
from trainstack.catalog import AcceleratorKind
from trainstack.catalog.generate import network_gbps
from trainstack.catalog.interconnect import EFA_CAPS, GPU_PEER_LINKS, efa_network_gbps, efa_network_source

EC2_TYPES = json.loads(gzip.decompress(
    (Path(moto.__file__).parent / "ec2" / "resources" / "instance_types.json.gz").read_bytes()))

GPU_TYPES_WITH_EFA = sorted(t.name for t in catalog.INSTANCE_TYPES
                            if t.accelerator and t.accelerator.kind is AcceleratorKind.GPU
                            and t.efa.supported and t.efa.max_interfaces and t.name not in EFA_CAPS)


@pytest.mark.parametrize(("performance", "gbps"), [
    ("3200 Gigabit", 3200), ("4x 100 Gigabit", 400), ("Up to 25 Gigabit", None), ("Moderate", None)])
def test_network_performance_reads_fixed_figures_and_refuses_burst_ones(performance, gbps):
    assert network_gbps(performance) == gbps


@pytest.mark.parametrize("name", GPU_TYPES_WITH_EFA)
def test_efa_network_bandwidth_is_the_ec2_apis_network_performance(name):
    assert efa_network_gbps(name) == network_gbps(EC2_TYPES[name]["NetworkInfo"]["NetworkPerformance"])
    assert efa_network_gbps(name) is not None, f"{name} has EFA but only a burst network figure"


def test_p5_48xlarge_offers_3200_gbits_to_efa_and_p6_b300_6400():
    assert (efa_network_gbps("p5.48xlarge"), efa_network_gbps("p6-b300.48xlarge")) == (3200, 6400)


def test_p6e_gb200_offers_efa_the_1600_gbps_of_awss_efa_page_not_its_3200_gigabit_network():
    assert catalog.get("p6e-gb200.36xlarge").network.bandwidth_gbps == 3200
    assert efa_network_gbps("p6e-gb200.36xlarge") == 1600
    assert "efa-for-p6e" in efa_network_source("p6e-gb200.36xlarge")


def test_a_type_without_efa_has_no_efa_bandwidth():
    assert efa_network_gbps("g5.xlarge") is None
    assert efa_network_gbps("not-a-type.large") is None


def test_every_gpu_model_in_the_catalog_has_a_link():
    models = {t.accelerator.name for t in catalog.INSTANCE_TYPES
              if t.accelerator and t.accelerator.kind is AcceleratorKind.GPU}
    assert models <= set(GPU_PEER_LINKS)
