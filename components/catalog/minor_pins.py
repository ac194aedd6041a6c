"""What trainstack must pin for each Kubernetes minor before it can plan a cluster on it, and what is missing.

Most of what trainstack installs runs on every minor of the EKS window (each chart's and operator's bounds are its
row in catalog/addons.py, which controllers/versions.py judges). Two things follow the cluster's own minor and are
pinned once per minor:

* the Cluster Autoscaler, on every cluster trainstack creates: its minor must be the cluster's
  (``addons.CLUSTER_AUTOSCALER``);
* the Neuron chart's custom kube-scheduler, where Neuron nodes run: kube-scheduler may be at most one minor older
  than kube-apiserver and never newer (``addons.NEURON_SCHEDULER_IMAGES``).

A minor EKS offers whose pins cannot be established is refused with what is missing (issue 56), rather than
served by the nearest pin: the autoscaler of another minor is outside its own support statement. The EKS managed
add-ons are no pin of this kind: unpinned, each gets EKS's default for the cluster's version, and an upgrade moves
them by ``eks.addonVersions`` (upgrade/steps.py).
"""

from __future__ import annotations

from .addons import AUTOSCALER_SOURCE, CLUSTER_AUTOSCALER, NEURON_SCHEDULER_IMAGES, minor


def missing_pins(kubernetes: str, *, autoscaler: bool, neuron_scheduler: bool) -> list[str]:
    """What trainstack lacks to plan a cluster on minor ``kubernetes``: one sentence per missing pin, naming where it
    was looked for. ``autoscaler``: trainstack installs the Cluster Autoscaler (every cluster it creates);
    ``neuron_scheduler``: the cluster runs Neuron nodes."""
    missing = []
    if autoscaler and kubernetes not in CLUSTER_AUTOSCALER:
        newest = max(CLUSTER_AUTOSCALER, key=minor)
        missing.append(f"no Cluster Autoscaler chart runs the autoscaler of Kubernetes {kubernetes} (the newest, "
                       f"{CLUSTER_AUTOSCALER[newest].version}, runs {newest}; {AUTOSCALER_SOURCE})")
    if neuron_scheduler and kubernetes not in NEURON_SCHEDULER_IMAGES:
        missing.append(f"no kube-scheduler image of Kubernetes {kubernetes} is pinned for the Neuron chart's custom "
                       "scheduler (catalog/addons.py NEURON_SCHEDULER_IMAGES)")
    return missing
