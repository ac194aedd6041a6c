"""What the launchers' pods ask of each node of a group that the instance type does not say: the 2 MiB
huge pages of EFA groups.

The EFA pods request them (``catalog.EFA_HUGEPAGES``), but a node offers only what its AMI's EFA install
reserved at boot, which can differ between AMI releases (docs/adr/0005-efa-huge-pages.md). Read here from
the launchers' own resource functions, not copied, so the plan's words and the check of running nodes
(``trainstack preflight nodes``) follow the pods if they change.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import HUGEPAGES_RESOURCE
from ..outputs import StackOutputs
from .hyperpod_eks import node_selector, pod_resources
from .placement import resources


@dataclass(frozen=True)
class HugePagesNeed:
    """Each pod the launchers render for ``group`` requests ``request`` of ``hugepages-2Mi``; they render one
    pod per node (whole-node requests), so that is what each of the group's nodes must offer."""

    group: str
    instance_type: str
    node_selector: dict[str, str]
    """The labels the pods select the group's nodes by (the contract's ``nodeSelector``)."""
    request: str
    """The quantity as the pods request it (``5120Mi``)."""
    hyperpod: bool = False
    """An instance group of a HyperPod cluster (HyperPod's AMI, not EKS's, reserves its nodes' huge pages)."""


def hugepages_needs(outputs: StackOutputs) -> list[HugePagesNeed]:
    """Every group of the stack whose pods request 2 MiB huge pages: the EKS accelerated groups, then the
    instance groups of a HyperPod cluster that EKS orchestrates."""
    needs = []
    for name, group in sorted(outputs.accelerated_groups.items()):
        request = resources(group, group.accelerators_per_node)["requests"].get(HUGEPAGES_RESOURCE)
        if request:
            needs.append(HugePagesNeed(name, group.instance_type, dict(group.node_selector), request))
    hyperpod = outputs.hyperpod
    if hyperpod is not None and hyperpod.orchestrator == "eks":
        for instance_group in hyperpod.instance_groups:
            if not instance_group.accelerator_resource:
                continue  # nothing to launch there: the launcher refuses a group without accelerators
            requests = pod_resources(instance_group, instance_group.accelerators_per_node)["requests"]
            if requests.get(HUGEPAGES_RESOURCE):
                needs.append(HugePagesNeed(instance_group.name, instance_group.instance_type,
                                           node_selector(instance_group.name),
                                           requests[HUGEPAGES_RESOURCE], hyperpod=True))
    return needs
