"""The access table in words, one row per thing a team reaches: the plan's text and the HTML report both read
it from the ``access`` section's data (``analysis/access_table.py``), so a saved record reads as a planned one."""

from __future__ import annotations

import json
from typing import Any, Optional

NAMESPACE_NAME = "kubernetes.io/metadata.name"
"""The label the API server sets on every namespace to its name (Kubernetes docs, Well-Known Labels)."""
EXISTING_CLUSTER = ("The cluster was made elsewhere: its own access entries are left alone and this stack makes "
                    "none; its owner maps each member to the team's group")

UNENFORCED = {
    "unchecked": (" (not enforced until checked: the cluster's network plugin is its owner's; `trainstack preflight "
                  "nodes` reads whether it enforces NetworkPolicy)"),
    "off": " (not enforced: this stack's vpc-cni add-on does not set enableNetworkPolicy)",
}
"""What the ingress row adds where no part of the stack enforces the NetworkPolicy it shows (the access section's
``ingressEnforced``; a record saved before it has none, and shows the row as it did)."""


def team_rows(team: dict[str, Any]) -> list[tuple[str, str]]:
    """The table's rows for one team: (label, value in words)."""
    groups = ", ".join(team["groups"]) or "none bound"
    members = [f"{m['principal']} (access entry -> {', '.join(m['groups'])})" for m in team["members"]]
    members += [f"{m}: no access entry here; map it to {groups} in the cluster's own access entries"
                for m in team["unmapped"]]
    rows = [("members", "; ".join(members) or "none"), ("group", groups),
            ("namespace", f"{team['namespace']} (Pod Security: enforce {team['podSecurity'] or 'not labelled'})"),
            ("queue", f"LocalQueue {team['queue']}" if team["queue"] else "none"),
            ("reaches", "; ".join(f"{g}: up to {r['maxNodes']} nodes ({r['guaranteedNodes']} guaranteed)"
                                  for g, r in team["reach"].items()) or "no node group"),
            ("kubernetes", "; ".join(team["kubernetes"]) or "nothing bound"),
            ("ingress", "from any pod of the cluster (no NetworkPolicy selects all its pods)"
             if team["ingress"] is None else ("; ".join(_peer(p) for p in team["ingress"]) or "from nowhere")
             + UNENFORCED.get(team.get("ingressEnforced") or "", "")),
            ("runs as", ", ".join(f"{team['namespace']}/{sa}" for sa in team["serviceAccounts"])
             + (f" -> IAM role {', '.join(team['roles'])} (Pod Identity)" if team["roles"] else "")
             or "no Pod Identity role in this stack"),
            ("checkpoints", "; ".join(team["checkpoints"]) or "none"),
            ("datasets", "; ".join(team["datasets"]) or "none"),
            ("fsx", _fsx(team["fsx"], team["team"])),
            ("quota", ", ".join(f"{k} {v}" for k, v in sorted(team["quota"].items())) or "none"),
            ("other AWS", "; ".join(team["otherAws"]) or "none")]
    return rows


def _peer(peer: str) -> str:
    """A NetworkPolicy peer in words: its own pods, a namespace by name, or as written."""
    rule = json.loads(peer)
    source, ports = rule["from"], rule.get("ports")
    labels = (source.get("namespaceSelector") or {}).get("matchLabels") if isinstance(source, dict) else None
    if source == {"podSelector": {}}:
        said = "its own pods"
    elif source == "any":
        said = "anywhere"
    elif isinstance(labels, dict) and set(source) == {"namespaceSelector"} and list(labels) == [NAMESPACE_NAME]:
        said = f"namespace {labels[NAMESPACE_NAME]}"
    else:
        said = json.dumps(source, sort_keys=True)
    return said + (f" (ports {json.dumps(ports, sort_keys=True)})" if ports else "")


def _fsx(mounted: Optional[str], team: str) -> str:
    if mounted is None:
        return "none"
    # A mount name with no directory after it is the file system's root: every team's claim reaches every file.
    root = "/" not in mounted.split(":/", 1)[1]
    return mounted + (" (the whole file system: no directory of its own)" if root else "")
