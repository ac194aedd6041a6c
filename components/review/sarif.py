"""SARIF 2.1.0 for code scanning: failed policies and blocking diff findings, at the stack file's line.

Each result points at ``Pulumi.<stack>.yaml`` and the line of the config key behind the
resource (see ``locate``), with the resource's URN as a logical location, so GitHub code
scanning annotates the pull request where the fix goes. One run per stack, told apart by
``automationDetails.id`` (``trainstack/<stack>/``). All of the head's failing policies are
reported (code scanning closes alerts that a later run no longer reports), plus the
diff's blocking findings (unapproved data loss, refused Kubernetes version jumps, a running
cluster's VPC replaced, subnets EC2 would refuse) and, as warnings, its security changes (a team's access
widened: ``widening``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Optional

from ..names import EKS_COMPONENT_CLUSTER
from ..policy import RULES
from ..version import version
from .diff import PlanDiff
from .finding import Finding
from .locate import config_keys, line_of, load_config

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_DIFF_RULES = {
    "access": "A change widens a team's access (a new member or viewer, a wider group, a Role or IAM policy that "
              "grants more, a looser Pod Security level, a NetworkPolicy removed or widened)",
    "cost": "The monthly cost at desired size rises past the stack's cost.maxMonthlyIncreaseUsd",
    "data-loss": "A stateful resource (file system, bucket, image repository, cluster, key) is replaced or deleted",
    "kubernetes-version": "A Kubernetes version change EKS refuses (more than one minor up or back, or a rollback "
                          "above node groups still on the newer minor)",
    "network": "The VPC of a running cluster, file system or HyperPod cluster is replaced or deleted",
    "purchase": "A resource that buys something for good (a Capacity Block, paid up front) is created or replaced",
    "rejected": "A change AWS or the Pulumi engine cannot apply (a replacement subnet overlapping a subnet the VPC "
                "still has; a Kubernetes object given a new URN)",
    "reserved-capacity": "A group keeps its reservation, Capacity Block or training plan under an instance type that "
                         "cannot launch in it, while it keeps billing",
    "unclassified": "A change of a resource type the resource-type table does not know",
    "unknown-replacement": "A changed input of a resource that holds data or carries running things, which no "
                           "replacement fact classifies: it may replace the resource",
}


def render_sarif(diff: PlanDiff, findings: list[Finding], root: Path) -> dict[str, Any]:
    """The SARIF log; ``root`` is the project root the stack file's path is relative to."""
    stack_file = diff.stack_file or f"Pulumi.{diff.stack}.yaml"
    config = load_config(root / stack_file)
    descriptions = {rule.id: rule.description for rule in RULES}
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}

    def rule_index(rule_id: str, text: str, level: str) -> int:
        if rule_id not in index:
            index[rule_id] = len(rules)
            rules.append({"id": rule_id, "name": rule_id, "shortDescription": {"text": text},
                          "defaultConfiguration": {"level": level}})
        return index[rule_id]

    results = []
    for rule in ((diff.section("policies", "head") or {}).get("rules") or []):
        if rule.get("enforcement") == "disabled" or not rule.get("violations"):
            continue
        level = "error" if rule.get("enforcement") == "mandatory" else "warning"
        position = rule_index(rule["id"], descriptions.get(rule["id"], rule["id"]), level)
        for violation in rule["violations"]:
            keys = config_keys(diff.head, config, violation.get("urn"), rule=rule["id"])
            results.append(_result(rule["id"], position, level, violation.get("message", ""), violation.get("urn"),
                                   stack_file, line_of(root / stack_file, keys)))
    for finding in findings:
        shown = finding.severity == "blocking" or finding.kind == "access"
        if finding.kind not in _DIFF_RULES or not shown:
            continue
        rule_id = f"trainstack-diff/{finding.kind}"
        level = "error" if finding.severity == "blocking" else "warning"
        position = rule_index(rule_id, _DIFF_RULES[finding.kind], level)
        change = next((c for c in diff.changes if c.urn == finding.urn), None)
        cause = change.replaced_by[0].path if change and change.replaced_by else None
        if change and change.type == EKS_COMPONENT_CLUSTER:
            cause = "version"
        keys = config_keys(diff.head if change and change.head else diff.base, config, finding.urn,
                           input_path=cause)
        results.append(_result(rule_id, position, level, f"{finding.title}. {finding.detail}", finding.urn,
                               stack_file, line_of(root / stack_file, keys)))
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "trainstack", "version": version(), "rules": rules}},
            "automationDetails": {"id": f"trainstack/{diff.stack}/"},
            "results": results,
        }],
    }


def _result(rule_id: str, position: int, level: str, message: str, urn: Optional[str], stack_file: str,
            line: Optional[int]) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": stack_file}}
    if line is not None:
        physical["region"] = {"startLine": line}
    location: dict[str, Any] = {"physicalLocation": physical}
    if urn:
        location["logicalLocations"] = [{"fullyQualifiedName": urn, "kind": "resource"}]
    fingerprint = hashlib.sha256(f"{rule_id}|{urn or ''}".encode()).hexdigest()[:32]
    return {"ruleId": rule_id, "ruleIndex": position, "level": level, "message": {"text": message},
            "locations": [location], "partialFingerprints": {"trainstackFinding/v1": fingerprint}}
