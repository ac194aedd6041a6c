"""What a node with EFA interfaces offers its pods, beside the instance's own facts.

One place for the names and amounts that the node groups tag for the Cluster
Autoscaler, the launchers request and the controller models check against each
other: if they drifted apart, a group at zero would never scale up for its jobs.
"""

from __future__ import annotations

EFA_RESOURCE = "vpc.amazonaws.com/efa"
"""The extended resource the EFA device plugin advertises, one per EFA interface."""

HUGEPAGES_RESOURCE = "hugepages-2Mi"
"""The kubelet's resource for 2 MiB huge pages."""

# The EKS user guide (node-efa, its example pod spec) has each EFA pod request 5120Mi of
# 2 MiB huge pages. Pods request this amount; groups at zero are tagged with it; the
# controller models take it as what a node offers.
# Why: docs/adr/0005-efa-huge-pages.md
EFA_HUGEPAGES = "5120Mi"
