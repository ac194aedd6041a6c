"""TrainiumNodeGroup: Trainium (trn1, trn1n, trn2) nodes on the EKS-optimized AL2023 Neuron AMI.

pulumi-eks cannot build these (its AMI selection knows no Neuron AMI type and
throws when a custom launch template needs one), one reason node groups are ours.
"""

from __future__ import annotations

from ..catalog import AcceleratorKind
from .accelerated import AcceleratedNodeGroup

NEURON_PRESENT_LABEL = "aws.amazon.com/neuron.present"
NEURON_TAINT = {"key": "aws.amazon.com/neuron", "value": "true", "effect": "NoSchedule"}


class TrainiumNodeGroup(AcceleratedNodeGroup):
    """Trainium nodes (trn1, trn1n, trn2) with EFA; Args: ``AcceleratedNodeGroupArgs``."""

    TYPE = "trainstack:index:TrainiumNodeGroup"
    ACCELERATOR = AcceleratorKind.NEURON
    PRESENT_LABEL = NEURON_PRESENT_LABEL
    TAINT = NEURON_TAINT
