"""The check of the region's image registries (``region``): AWS's images the stack renders come from the region's
registry (catalog/image_registries.py)."""

from __future__ import annotations

from ... import catalog
from ...catalog.image_registries import UnknownRegistryRegion, dlc_registry, eks_registry
from ..base import ConfigValueError
from ..stack import StackConfig


def check_image_registries(stack: StackConfig) -> None:
    """The EFA device plugin's registry where EKS nodes have EFA, the Neuron training container's where Kubeflow
    Trainer runs beside Neuron nodes. A region the tables do not name is refused here."""
    if stack.eks is None:
        return
    joining = ([catalog.get_hyperpod(g.instance_type) for g in stack.hyperpod.groups]
               if stack.hyperpod is not None and stack.hyperpod.orchestrator == "eks" else [])
    kinds = {g.accelerator.kind for g in stack.node_groups} | {t.accelerator.kind for t in joining if t.accelerator}
    try:
        if any(g.efa_enabled for g in stack.node_groups) or any(t.efa.supported for t in joining):
            eks_registry(stack.region)
        if stack.operators.trainer and catalog.AcceleratorKind.NEURON in kinds:
            dlc_registry(stack.region, neuron=True)
    except UnknownRegistryRegion as error:
        raise ConfigValueError(error.problem, fix=error.fix, path=("region",), value=stack.region) from None
