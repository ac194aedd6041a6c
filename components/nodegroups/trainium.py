"""TrainiumNodeGroup: Trainium (trn1, trn1n, trn2) nodes on the EKS-optimized AL2023 Neuron AMI.

pulumi-eks cannot build these (its AMI selection knows no Neuron AMI type and
throws when a custom launch template needs one), one reason node groups are ours.
"""

from __future__ import annotations

from ..catalog import AcceleratorKind
from ..names import NEURON_PRESENT_LABEL, NEURON_TAINT, TRAINIUM_NODE_GROUP_COMPONENT
from .accelerated import AcceleratedNodeGroup


class TrainiumNodeGroup(AcceleratedNodeGroup):
    """Trainium nodes (trn1, trn1n, trn2) with EFA; Args: ``AcceleratedNodeGroupArgs``."""

    TYPE = TRAINIUM_NODE_GROUP_COMPONENT
    ACCELERATOR = AcceleratorKind.NEURON
    PRESENT_LABEL = NEURON_PRESENT_LABEL
    TAINT = NEURON_TAINT
