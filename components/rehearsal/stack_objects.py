"""The stack's own Kubernetes objects as its plan records them, in the order ``pulumi up`` would
create them: namespaces, then cluster-scoped objects, then namespaced ones.

Helm releases and kustomize directories are the controllers themselves (``rehearsal.controllers``
runs them); Karpenter's NodePool and EC2NodeClass are listed apart: ``rehearsal.karpenter`` applies
the NodePool with a KWOKNodeClass in the EC2NodeClass's place, once Karpenter runs.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from ..analysis import Plan
from ..names import HELM_RELEASE, KUSTOMIZE_DIRECTORY, PROVIDER_PREFIX, YAML_CONFIG_GROUP

INSTALLERS = (HELM_RELEASE, KUSTOMIZE_DIRECTORY)
NOT_REHEARSED_GROUPS = ("karpenter.sh/", "karpenter.k8s.aws/")


@dataclass
class StackObjects:
    apply: list[dict[str, Any]] = field(default_factory=list)
    """Objects to create, in order."""
    not_applied: list[str] = field(default_factory=list)
    """``Kind/name`` of the Karpenter objects, which ``rehearsal.karpenter`` applies or says why not."""


def stack_objects(plan: Plan) -> StackObjects:
    found: list[dict[str, Any]] = []
    result = StackObjects()
    for resource in plan.resources:
        kind_type = resource.type
        if not kind_type.startswith("kubernetes:") or kind_type in INSTALLERS or kind_type.startswith(
                PROVIDER_PREFIX):
            continue
        if kind_type == YAML_CONFIG_GROUP:
            found += [copy.deepcopy(o) for o in resource.inputs.get("objs") or []]
            continue
        api_path, kind = kind_type.split(":")[1], kind_type.split(":")[2]
        api_version = api_path.removeprefix("core/")
        document = {"apiVersion": api_version, "kind": kind, **copy.deepcopy(resource.inputs)}
        if api_version.startswith(NOT_REHEARSED_GROUPS):
            result.not_applied.append(f"{kind}/{document['metadata']['name']}")
            continue
        found.append(document)

    def order(obj: dict[str, Any]) -> int:
        return 0 if obj["kind"] == "Namespace" else 1 if "namespace" not in obj["metadata"] else 2

    result.apply = sorted(found, key=order)
    return result
