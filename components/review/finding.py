"""What the review says of a change: one finding's kind, severity, resource and words. The type every judge of a
diff returns (review/cost.py, held_capacity.py, kubernetes_version.py, same_object.py, widening.py) and
review/risk.py, which gathers them, reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Optional

Severity = Literal["blocking", "warning", "note"]
Kind = Literal["data-loss", "protected", "node-roll", "kubernetes-version", "policy", "provider-decides",
               "unknown-replacement", "network", "rejected", "instance-group", "ignored", "cost", "purchase",
               "unclassified", "reserved-capacity", "access"]


@dataclass(frozen=True)
class Finding:
    kind: Kind
    severity: Severity
    urn: Optional[str]
    title: str
    detail: str
