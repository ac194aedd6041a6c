"""Interconnect facts: EFA network bandwidth as the EC2 API gives it, and a GPU link
for every GPU model in the catalog."""

import gzip
import json
import re
from pathlib import Path

import moto
import pytest

from trainstack import catalog
from trainstack.catalog import AcceleratorKind
from trainstack.catalog.interconnect import EFA_NETWORK_GBPS, GPU_PEER_LINKS

EC2_TYPES = json.loads(gzip.decompress(
    (Path(moto.__file__).parent / "ec2" / "resources" / "instance_types.json.gz").read_bytes()))


def network_performance_gbps(text: str) -> float:
    """'3200 Gigabit' -> 3200, '4x 100 Gigabit' -> 400."""
    match = re.fullmatch(r"(?:(\d+)x )?(\d+(?:\.\d+)?) Gigabit", text)
    assert match, f"not a fixed bandwidth: {text!r}"
    return int(match.group(1) or 1) * float(match.group(2))


@pytest.mark.parametrize("name", sorted(EFA_NETWORK_GBPS))
def test_efa_network_bandwidth_is_the_ec2_apis_network_performance(name):
    assert EFA_NETWORK_GBPS[name] == network_performance_gbps(EC2_TYPES[name]["NetworkInfo"]["NetworkPerformance"])


def test_every_gpu_type_with_known_efa_has_its_network_bandwidth():
    with_efa = {t.name for t in catalog.INSTANCE_TYPES if t.accelerator and t.accelerator.kind is AcceleratorKind.GPU
                and t.efa.supported and t.efa.max_interfaces}
    assert with_efa == set(EFA_NETWORK_GBPS)


def test_every_gpu_model_in_the_catalog_has_a_link():
    models = {t.accelerator.name for t in catalog.INSTANCE_TYPES
              if t.accelerator and t.accelerator.kind is AcceleratorKind.GPU}
    assert models <= set(GPU_PEER_LINKS)
