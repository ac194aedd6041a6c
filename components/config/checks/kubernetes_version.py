"""The stack's Kubernetes minor judged against what trainstack pins for it (catalog/minor_pins.py): a minor EKS
offers but trainstack cannot serve is refused before anything is planned, with what is missing.

The minor is judged twice during an upgrade: the control plane's (``eks.version``) and the one the charts are still
pinned for (``eks.upgrade``), so that an upgrade that could never finish is refused at its first step."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...catalog import AcceleratorKind
from ...catalog.device_allocation import DRA_MINIMUM_KUBERNETES, supports_dra
from ...catalog.minor_pins import missing_pins
from ..base import ConfigValueError

if TYPE_CHECKING:
    from ..stack_view import StackView


def check_minor_pins(stack: StackView) -> None:
    """Refuse a minor whose pins the stack needs are missing: the Cluster Autoscaler's on a cluster trainstack
    creates, the Neuron scheduler's where Neuron groups run and trainstack installs their plugin."""
    _check_dra_minor(stack)
    neuron = any(group.accelerator.kind is AcceleratorKind.NEURON for group in stack.node_groups)
    if stack.eks is not None:
        minors = dict.fromkeys([stack.eks.version, stack.eks.charts_version])
        path: tuple[str, ...] = ("eks", "version")
        autoscaler = True
    elif stack.existing_cluster is not None:
        minors = dict.fromkeys([stack.existing_cluster.version])
        path = ("existingCluster", "version")
        autoscaler, neuron = False, neuron and stack.existing_cluster.install_device_plugins
    else:
        return
    for minor in minors:
        missing = missing_pins(minor, autoscaler=autoscaler, neuron_scheduler=neuron)
        if missing:
            raise ConfigValueError(
                f"trainstack cannot yet plan Kubernetes {minor}, which EKS offers: {'; '.join(missing)}.",
                fix="stay on the newest minor trainstack pins everything for, or wait for the pin (its row in "
                    "catalog/addons.py).", path=path, value=minor)


def _check_dra_minor(stack: StackView) -> None:
    """A DRA group needs ``resource.k8s.io/v1`` on the API server and a kubelet of 1.34 or later (catalog/
    device_allocation.py): refused on the window's older minors (1.32, 1.33), and on held nodes of one."""
    if stack.eks is not None:
        held = stack.eks.upgrade
        nodes_key = "eks.upgrade.nodesVersion" if held is not None and held.nodes_version else "eks.upgrade.fromVersion"
        minors = {"eks.version": stack.eks.version, nodes_key: stack.eks.nodes_version}
    elif stack.existing_cluster is not None:
        minors = {"existingCluster.version": stack.existing_cluster.version}
    else:
        return
    for index, group in enumerate(stack.node_groups):
        if group.device_allocation != "dra":
            continue
        for key, minor in minors.items():
            if not supports_dra(minor):
                raise ConfigValueError(
                    f"group '{group.name}' allocates its devices through DRA, which needs Kubernetes "
                    f"{DRA_MINIMUM_KUBERNETES} or later on the control plane and the nodes; {key} is {minor}.",
                    fix=f"upgrade to {DRA_MINIMUM_KUBERNETES} first (trainstack upgrade), or set deviceAllocation: "
                        "device-plugins on this group.",
                    path=("nodeGroups", index, "deviceAllocation"), value="dra")
