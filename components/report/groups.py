"""Which part of the architecture a recorded resource belongs to: the component it was built under."""

from __future__ import annotations

from ..plan import ResourceRecord
from ..review import STATEFUL

# Nearest component ancestor wins, so a node group's launch template is "node groups", not "control plane".
PARTS = {
    "trainstack:index:Network": "network",
    "trainstack:index:GpuEksCluster": "control plane",
    "trainstack:index:GpuNodeGroup": "node groups",
    "trainstack:index:TrainiumNodeGroup": "node groups",
    "trainstack:index:LustreFileSystem": "storage",
    "trainstack:index:CheckpointBucket": "storage",
    "trainstack:index:ClusterAddons": "add-ons",
    "trainstack:index:HyperPodCluster": "HyperPod",
}
ORDER = ("network", "control plane", "node groups", "storage", "add-ons", "HyperPod", "stack")


def part_of(resource: ResourceRecord, by_urn: dict[str, ResourceRecord]) -> str:
    """The part a resource is drawn in; resources directly under the stack (the ECR repository, the
    provider) are "stack"."""
    parent = resource.parent
    while parent is not None and parent in by_urn:
        ancestor = by_urn[parent]
        if ancestor.type in PARTS:
            return PARTS[ancestor.type]
        parent = ancestor.parent
    return "stack"


def shown(resource: ResourceRecord) -> bool:
    """Resources that hold cloud state (custom ones, remote components); providers are configuration."""
    return (resource.custom or resource.remote) and not resource.type.startswith("pulumi:providers:")


def short_type(type_token: str) -> str:
    """``aws:eks/nodeGroup:NodeGroup`` -> ``eks NodeGroup``: enough to read on a small box."""
    package, _, rest = type_token.partition(":")
    module, _, kind = rest.partition(":")
    return f"{module.split('/')[0] if module != 'index' else package} {kind}"


def marks(resource: ResourceRecord, critical: set[str], changed: dict[str, str]) -> list[str]:
    """What the graph and the resource table say of a resource: protected, stateful, on the
    critical path, and its diff action."""
    return [mark for mark, on in (("protected", resource.options.protect), ("stateful", resource.type in STATEFUL),
                                  ("critical path", resource.urn in critical),
                                  (changed.get(resource.urn, ""), resource.urn in changed)) if on]
