"""The Helm releases a plan names, as doctor's add-on checks compare them with the cluster's (``doctor.addons``)
and find the nodes each device plugin must serve (``doctor.plugin_coverage``).

A release the plan names without a ``name`` is named by the Pulumi Kubernetes provider ``<resource name>-<8 hex
digits>`` (pulumi/pulumi-kubernetes provider/pkg/provider/helm_release.go ``assignNameIfAutonameable``, with
pulumi/pulumi sdk ``resource.NewUniqueHex``); trainstack's own releases always give one (``helm.helm_release``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..catalog.addons import chart_reference
from ..names import HELM_RELEASE
from ..plan import Plan

AUTONAME = re.compile(r"-[0-9a-f]{8}$")


@dataclass(frozen=True)
class PlannedRelease:
    """A ``helm.v3.Release`` of the plan record."""

    resource: str
    name: str | None
    """The Helm release's name; None when the plan gives none (the provider then picks one)."""
    namespace: str | None
    chart: str
    """As the catalog names it (``catalog.addons.chart_reference``)."""
    version: str
    values: dict[str, Any]

    def shown(self) -> str:
        return f"{self.namespace or '<provider default>'}/{self.name or self.resource + '-<8 hex>'}"

    def is_named(self, namespace: str, name: str) -> bool:
        if self.namespace is not None and namespace != self.namespace:
            return False
        if self.name is not None:
            return name == self.name
        return name.startswith(self.resource) and AUTONAME.fullmatch(name[len(self.resource):]) is not None


def planned_releases(plan: Plan) -> list[PlannedRelease]:
    found = []
    for record in plan.by_type(HELM_RELEASE):
        inputs = record.inputs
        found.append(PlannedRelease(record.name, str(inputs["name"]) if inputs.get("name") else None,
                                    str(inputs["namespace"]) if inputs.get("namespace") else None,
                                    chart_reference(str(inputs.get("chart", ""))), str(inputs.get("version", "")),
                                    dict(inputs.get("values") or {})))
    return found
