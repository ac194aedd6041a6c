"""Which instance types EKS labels with their place in the EC2 network (EC2 User Guide,
Prerequisites for Amazon EC2 topology; EKS User Guide, ml-workload-topology)."""

import pytest
from trainstack import catalog
from trainstack.catalog.network_topology import NETWORK_LAYERS, network_node_labels


@pytest.mark.parametrize("instance_type, layers", [
    ("p5.48xlarge", 3), ("p4de.24xlarge", 3), ("trn1.32xlarge", 3), ("trn2.48xlarge", 3),
    ("p6-b200.48xlarge", 4), ("g5.48xlarge", 0), ("g6.48xlarge", 0),
])
def test_network_layers_per_type(instance_type, layers):
    labels = network_node_labels(instance_type)
    assert labels == tuple(f"topology.k8s.aws/network-node-layer-{n}" for n in range(1, layers + 1))


def test_every_catalog_type_with_a_topology_is_accelerated():
    known = [name for name in NETWORK_LAYERS if catalog.find(name) is not None]
    assert "p5.48xlarge" in known
    assert all(catalog.get(name).accelerator is not None for name in known)
