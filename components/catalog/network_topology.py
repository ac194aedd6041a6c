"""Where an instance sits in the AWS network: the EC2 instance-topology layers EKS labels nodes with.

The AWS network is a hierarchy of layers; EC2 describes an instance's place in it as one
network node per layer (DescribeInstanceTopology). Amazon EKS copies that node set onto
each Kubernetes node as labels, ``topology.k8s.aws/network-node-layer-1`` (the top, the
broadest grouping) down to ``-3`` (the bottom for most types: nodes sharing it are the
closest), and ``-4`` on the types whose topology has four layers.

Sources:

* EC2 User Guide, "Prerequisites for Amazon EC2 topology", Instance types
  (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-instance-topology-prerequisites.html):
  which types return 3 network nodes and which return 4. Only the accelerated types of
  that list are written here (trainstack's catalog holds no hpc types).
* EKS User Guide, "Place distributed AI/ML workloads with network topology labels"
  (https://docs.aws.amazon.com/eks/latest/userguide/ml-workload-topology.html): the label
  keys, and layer 4 present only on four-layer types.

A type missing here has no topology labels: its nodes cannot be placed by network block.
"""

from __future__ import annotations

LABEL_PREFIX = "topology.k8s.aws/network-node-layer-"
SOURCE = ("EC2 User Guide, Prerequisites for Amazon EC2 topology (instance types); "
          "EKS User Guide, ml-workload-topology (node labels)")

_THREE_LAYERS = (
    "g6e.xlarge", "g6e.2xlarge", "g6e.4xlarge", "g6e.8xlarge", "g6e.12xlarge", "g6e.16xlarge", "g6e.24xlarge",
    "g6e.48xlarge", "g7e.2xlarge", "g7e.4xlarge", "g7e.8xlarge", "g7e.12xlarge", "g7e.24xlarge", "g7e.48xlarge",
    "p3dn.24xlarge", "p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge",
    "p6e-gb200.36xlarge", "trn1.2xlarge", "trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge", "trn2u.48xlarge",
)
_FOUR_LAYERS = ("p6-b200.48xlarge", "p6-b300.48xlarge")

NETWORK_LAYERS: dict[str, int] = {**dict.fromkeys(_THREE_LAYERS, 3), **dict.fromkeys(_FOUR_LAYERS, 4)}
"""Instance type -> how many network layers EC2 describes for it (and EKS labels)."""


def network_node_labels(instance_type: str) -> tuple[str, ...]:
    """The topology node labels of the type, top layer first; empty where EC2 describes none."""
    return tuple(f"{LABEL_PREFIX}{layer}" for layer in range(1, NETWORK_LAYERS.get(instance_type, 0) + 1))
