"""Is HyperPod's dependencies chart in the EKS cluster? Read, not promised, before the HyperPod cluster exists.

AWS calls the chart a required step before a HyperPod cluster is attached to an EKS cluster, and
says that without it the creation can fail entirely; clusters set up through the APIs (Cloud
Control, which pulumi-aws-native drives, is one) do not get it installed for them (SageMaker
developer guide, sagemaker-hyperpod-eks-install-packages-using-helm-chart.html). The chart has no
published release (dependencies_chart.py), so the program cannot install it; it reads the cluster
instead, and the HyperPod cluster's creation waits on what it read:

    the stack's kubeconfig (the one its Kubernetes provider is given)
      -> Helm's release records (Secrets labelled owner=helm, status=deployed), any namespace
      -> a deployed release of the chart named HYPERPOD_CHART_NAME, whatever the release is called
      -> its values: the switches trainstack turns off are off (two operators or device plugins of
         one kind would reconcile the same objects twice)
      -> found and right: the HyperPod cluster is created; else the deploy stops, naming the command

Why the program reads through trainstack's own client and not a resource of the Kubernetes
provider: reading a missing object through the provider (``Secret.get``) fails the deployment with
the engine's "resource ... does not exist", which cannot name the install command, and Helm's
record has a revision in its name that no program knows in advance.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import pulumi
import yaml

from ..boundary import cut
from ..catalog.hyperpod_eks import HYPERPOD_CHART_NAME
from ..kube import helm_records
from ..kube.client import Cluster
from ..kube.kubeconfig import connect as open_cluster
from ..kube.kubeconfig import read_access
from . import dependencies_chart

PREREQUISITE_PAGE = ("https://docs.aws.amazon.com/sagemaker/latest/dg/"
                     "sagemaker-hyperpod-eks-install-packages-using-helm-chart.html")


@dataclass(frozen=True)
class Release:
    """A deployed Helm release, as Helm recorded it."""

    name: str
    namespace: str
    chart: str
    """The chart's own name (Chart.yaml ``name``)."""
    chart_values: Mapping[str, Any] = field(default_factory=dict)
    """The chart's default values, as the release recorded them."""
    values: Mapping[str, Any] = field(default_factory=dict)
    """What the installer set (``--set``, ``-f``)."""

    def switch(self, dotted: str) -> Optional[bool]:
        """A switch's value (``a.b.enabled``): what the installer set, else the chart's default; None if neither."""
        for source in (self.values, self.chart_values):
            found = _dig(source, dotted.split("."))
            if isinstance(found, bool):
                return found
        return None


def deployed_releases(cluster: Cluster) -> list[Release]:
    """Every deployed Helm release in the cluster, in either of the storages Helm keeps them in by default
    (``kube.helm_records``: one record per revision, the deployed one labelled ``status=deployed``)."""
    return [Release(found.name, found.namespace, found.chart, found.chart_values, found.values)
            for found in map(helm_records.release_of, helm_records.release_records(cluster, status="deployed"))]


def chart_release(releases: list[Release]) -> Optional[Release]:
    """The release of HyperPod's chart among ``releases``, whatever it is called; None if there is none."""
    return next((r for r in releases if r.chart == HYPERPOD_CHART_NAME), None)


def problem(releases: list[Release], switches_off: list[str], cluster_name: str) -> Optional[str]:
    """Why the HyperPod cluster must not be created yet, with the command that fixes it; None when it may be."""
    release = chart_release(releases)
    if release is None:
        return (f"HyperPod's dependencies chart is not installed in the EKS cluster {cluster_name}: no deployed Helm "
                f"release of the chart {HYPERPOD_CHART_NAME} is there. AWS requires it before the HyperPod cluster "
                f"is created ({PREREQUISITE_PAGE}), so the HyperPod cluster was not created. Install it: "
                f"{dependencies_chart.install_command(switches_off)}; then run pulumi up again.")
    still_on = [s for s in switches_off if release.switch(s) is not False]
    if not still_on:
        return None
    return (f"HyperPod's dependencies chart is installed in the EKS cluster {cluster_name} (release {release.name} "
            f"in {release.namespace}), but with {', '.join(still_on)} on, where trainstack runs its own: two "
            "controllers of one kind would act on the same jobs and devices, so the HyperPod cluster was not "
            "created. Turn them off from the chart's clone (dependencies_chart's install command makes it): "
            f"{dependencies_chart.upgrade_command(release.name, release.namespace, still_on)}; then run pulumi up "
            "again.")


def check(kubeconfig: str, switches_off: list[str], cluster_name: str) -> str:
    """Read the cluster through ``kubeconfig`` (pulumi-eks's JSON, or YAML) and raise ``pulumi.RunError`` (a clean
    stop, no traceback) when the chart is missing or wrong, or the cluster cannot be read; return what was found."""
    try:
        document = yaml.safe_load(kubeconfig)
        access = read_access(document, f"the EKS cluster {cluster_name}'s kubeconfig", Path.cwd())
        with open_cluster(access) as cluster:
            releases = deployed_releases(cluster)
    except Exception as error:  # noqa: BLE001 - whatever stops the read stops the HyperPod cluster too
        raise pulumi.RunError(
            f"HyperPod on EKS: could not read the EKS cluster {cluster_name} to find HyperPod's dependencies chart "
            f"({cut(str(error))}), so the HyperPod cluster was not created. Check that this machine can reach the "
            "cluster with the stack's kubeconfig (the Kubernetes provider uses the same), then run pulumi up "
            "again.") from None
    found = problem(releases, switches_off, cluster_name)
    if found is not None:
        raise pulumi.RunError(f"HyperPod on EKS: {found}")
    release = chart_release(releases)
    assert release is not None  # problem() found it
    return f"{release.namespace}/{release.name}"


def offline() -> bool:
    """Pulumi's mocks stand in for the engine (trainstack's offline plan, a program's unit tests): no cluster."""
    from pulumi.runtime import mocks, settings

    return isinstance(settings.SETTINGS.monitor, mocks.MockMonitor)


def chart_checked(kubeconfig: pulumi.Input[str], switches_off: list[str],
                  cluster_name: pulumi.Input[str]) -> pulumi.Output[str]:
    """The release found (``namespace/name``), known once the cluster was read during a deploy: what the HyperPod
    cluster's creation waits on. Offline it reads nothing and says so."""
    def read(values: list[Any]) -> str:
        text, name = values
        return "not read: offline" if offline() else check(text, switches_off, name)

    # What was found names a release, not the kubeconfig's secrets: the cluster's ARN that waits on it stays plain.
    return pulumi.Output.unsecret(pulumi.Output.all(kubeconfig, cluster_name).apply(read))


def _dig(values: Mapping[str, Any], keys: list[str]) -> Any:
    for key in keys:
        if not isinstance(values, Mapping) or key not in values:
            return None
        values = values[key]
    return values
