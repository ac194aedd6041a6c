"""Typical creation times, in minutes, of the resources a plan records.

Each resource type's time, and where it was read, is its row in ``catalog/resource_types.py``;
a type no row names is one API call (``OTHER``), or one object written to the API server
for a Kubernetes kind (``KUBERNETES_OBJECT``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..catalog import resource_types
from ..catalog.resource_types import KUBERNETES_OBJECT, OTHER
from ..names import PROVIDER_PREFIX

if TYPE_CHECKING:
    from ..plan import ResourceRecord

KUBERNETES_PREFIX = "kubernetes:"


def minutes(resource: ResourceRecord) -> float:
    """Creation time of one recorded resource; components take none of their own."""
    if not resource.custom and not resource.remote:
        return 0.0
    if resource.type.startswith(PROVIDER_PREFIX):
        return 0.0
    row = resource_types.find(resource.type)
    if row is not None:
        return row.created_in(resource.inputs)
    return KUBERNETES_OBJECT if resource.type.startswith(KUBERNETES_PREFIX) else OTHER
