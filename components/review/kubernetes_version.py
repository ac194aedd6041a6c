"""A change of the EKS cluster's Kubernetes version, judged as EKS would take it.

* One minor up: EKS upgrades the control plane in place, one minor at a time (EKS user guide, "Update existing
  cluster to new Kubernetes version", update-cluster.html); each node group's roll is its own finding (risk.py).
  More than one minor up: EKS refuses it, and so does the gate.
* One minor back: EKS version rollback "can revert your cluster's Kubernetes control plane to the previous minor
  version within 7 days of an in-place upgrade" (EKS best practices, "Best Practices for Cluster Version Rollback",
  https://docs.aws.amazon.com/eks/latest/best-practices/rollback-cluster-upgrades.html), on a cluster that was
  upgraded to the current minor, not created on it ("Prerequisites" of "Rollback cluster to previous Kubernetes
  version", https://docs.aws.amazon.com/eks/latest/userguide/rollback-cluster.html; both read 2026-11-29). The
  records say neither when the upgrade completed nor how the cluster came to its minor, so the gate warns with both
  conditions rather than blocking what EKS may allow.
* One minor back, with a managed node group still on the newer minor: blocked. EKS rolls back neither the managed
  node groups nor the add-ons (rollback-cluster.html, "What does NOT get rolled back"); a kubelet may not be newer
  than the API server (kubernetes.io/releases/version-skew-policy), and EKS's rollback readiness insights pass with
  nodes on the previous minor only ("While nodes remain on N-1, the kubelet version skew insight stays PASSING",
  rollback-cluster-upgrades.html). Pulumi updates the cluster before the node groups that stand on it, so
  `pulumi up` would stop at the cluster: the node groups go back first, in a change of their own.
* More than one minor back: EKS rolls back to the previous minor only; blocked.
"""

from __future__ import annotations

from typing import Any, Optional

from ..names import NODE_GROUP
from .diff import PlanDiff, ResourceChange
from .finding import Finding

ROLLBACK_DAYS = 7
"""Days after an in-place upgrade completes during which EKS rolls the control plane back (rollback-cluster.html)."""


def findings(change: ResourceChange, diff: PlanDiff) -> list[Finding]:
    """What the gate says of the EKS cluster ``change``'s Kubernetes version (nothing when it keeps its version)."""
    version = next((c for c in change.inputs if c.path == "version"), None)
    if version is None:
        return []
    before, after = minor(version.before), minor(version.after)
    title = f"{change.name}: Kubernetes {version.before} -> {version.after}"
    if before is None or after is None:
        return [Finding("kubernetes-version", "warning", change.urn,
                        f"{change.name}: Kubernetes version {version.before} -> {version.after}",
                        "one of the versions is not MAJOR.MINOR; EKS moves one minor version at a time")]
    if after < before:
        return [_rollback(change, title, before, after, diff)]
    if after[0] != before[0] or after[1] - before[1] > 1:
        step = f"{before[0]}.{before[1] + 1}"
        return [Finding("kubernetes-version", "blocking", change.urn, f"{title} skips a minor version",
                        f"EKS upgrades one minor version at a time and refuses this; go to {step} first, "
                        "merge and apply, then the next")]
    return [Finding("kubernetes-version", "warning", change.urn, title,
                    "EKS upgrades the control plane in place; then each node group that eks.upgrade does not hold "
                    "rolls to the new version (see its node roll)")]


def _rollback(change: ResourceChange, title: str, before: tuple[int, int], after: tuple[int, int],
              diff: PlanDiff) -> Finding:
    back, now = f"{after[0]}.{after[1]}", f"{before[0]}.{before[1]}"
    if after[0] != before[0] or before[1] - after[1] > 1:
        return Finding("kubernetes-version", "blocking", change.urn, f"{title} rolls back more than one minor",
                       f"EKS rolls a control plane back to the previous minor only ({before[0]}.{before[1] - 1}), "
                       f"within {ROLLBACK_DAYS} days of the upgrade to {now}; keep the version or build a new cluster")
    newer = sorted(r["name"] for r in diff.base["resources"]
                   if r["type"] == NODE_GROUP and (minor(r["inputs"].get("version")) or after) > after)
    if newer:
        return Finding("kubernetes-version", "blocking", change.urn,
                       f"{title} rolls back under node groups still on {now}",
                       f"EKS does not roll back managed node groups, and refuses to take the control plane below "
                       f"their kubelets; Pulumi would move the cluster first and stop there. Roll "
                       f"{', '.join(newer)} back to {back} first, in a change of their own (revert the upgrade's "
                       "steps in reverse order), then the control plane")
    return Finding("kubernetes-version", "warning", change.urn, f"{title} is a rollback",
                   f"EKS rolls the control plane back one minor only within {ROLLBACK_DAYS} days of the in-place "
                   f"upgrade to {now} completing, on a cluster upgraded to {now} rather than created on it; after "
                   "that EKS refuses it and `pulumi up` fails at the cluster. EKS rolls back no add-on: kube-proxy "
                   f"and CoreDNS versions pinned for {now} (eks.addonVersions) go back to {back}'s with their own "
                   "change")


def minor(value: Any) -> Optional[tuple[int, int]]:
    parts = str(value).split(".")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        return None
    return int(parts[0]), int(parts[1])
