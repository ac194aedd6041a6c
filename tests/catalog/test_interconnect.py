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
from trainstack.catalog.interconnect import GPU_PEER_LINKS, efa_network_gbps

EC2_TYPES = json.loads(gzip.decompress(
    (Path(moto.__file__).parent / "ec2" / "resources" / "instance_types.json.gz").read_bytes()))

GPU_TYPES_WITH_EFA = sorted(t.name for t in catalog.INSTANCE_TYPES
                            if t.accelerator and t.accelerator.kind is AcceleratorKind.GPU
                            and t.efa.supported and t.efa.max_interfaces)


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


def test_a_type_without_efa_has_no_efa_bandwidth():
    assert efa_network_gbps("g5.xlarge") is None
    assert efa_network_gbps("not-a-type.large") is None


def test_every_gpu_model_in_the_catalog_has_a_link():
    models = {t.accelerator.name for t in catalog.INSTANCE_TYPES
              if t.accelerator and t.accelerator.kind is AcceleratorKind.GPU}
    assert models <= set(GPU_PEER_LINKS)
