"""Versions: does every pinned component support the stack's Kubernetes version?

Each chart and operator the plan installs is looked up in the catalog's table of pinned
add-ons (``catalog/addons.py``), one row per pinned version with its published support
statement and where it was read. A
component the table does not know is a finding too: a new add-on needs its row.

Components that talk to the API server as part of the control plane follow Kubernetes'
version-skew policy (kubernetes.io/releases/version-skew-policy): kube-scheduler "must
not be newer than kube-apiserver" and "may be up to one minor version older"; kubelet
"must not be newer than kube-apiserver, and may be up to three minor versions older".
The Neuron chart's custom scheduler is such a kube-scheduler.

Not checked: versions of EKS managed add-ons pinned in ``eks.addonVersions`` (their
compatibility is EKS's DescribeAddonVersions, an API call; unpinned add-ons get EKS's
default for the cluster version), and components whose project publishes no matrix
(their rows say so).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Optional

from ..catalog.addons import Support, chart_reference, minor, support
from ..catalog.eks_versions import KUBELET_SKEW
from ..names import EKS_CLUSTER, EKS_COMPONENT_CLUSTER, HELM_RELEASE, KUSTOMIZE_DIRECTORY, NODE_GROUP
from ..plan import library_paths
from ..policy.model import Resource, Stack
from .cluster_controllers import kustomization
from .model import Finding

CONTROLLER = "versions"
SKEW_SOURCE = "kubernetes.io/releases/version-skew-policy (kube-scheduler, kubelet)"
CONTROL_PLANE = (EKS_COMPONENT_CLUSTER, EKS_CLUSTER)


# The Neuron chart's own kube-scheduler when values set no image (values.yaml at b77a6f9).
NEURON_CHART_SCHEDULER_TAG = "v1.31.12-eks-1-31-30"


def _show(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


def cluster_version(stack: Stack) -> Optional[str]:
    for resource in stack.of_type(*CONTROL_PLANE):
        if resource.props.get("version"):
            return str(resource.props["version"])
    return None


def pinned_components(stack: Stack) -> list[tuple[Resource, str, str]]:
    """(resource, component, version) for every Helm release and operator manifest the plan installs.

    An operator's version is read from the kustomization the record names (an identifier of the
    overlay inside trainstack, ``plan/library_paths.py``), in the trainstack this runs in. One that
    cannot be read yields version ``?``; one whose directory is not in view (under the engine:
    ``cluster_controllers.kustomization``) is left out, and the CrossGuard pack says so."""
    found = []
    for release in stack.of_type(HELM_RELEASE):
        found.append((release, chart_reference(str(release.props.get("chart"))), str(release.props.get("version"))))
    for directory in stack.of_type(KUSTOMIZE_DIRECTORY):
        recorded = kustomization(directory)
        if recorded is None:
            continue
        overlay = library_paths.installed(recorded)
        file = None if overlay is None else overlay / "kustomization.yaml"
        text = file.read_text() if file is not None and file.is_file() else ""
        match = re.search(r"kubeflow/(training-operator|mpi-operator)\S*?(?:ref=|/)(v\d+\.\d+\.\d+)", text)
        inside = library_paths.shipped_path(recorded)
        named = inside.parts[2] if inside is not None and len(inside.parts) > 2 else PurePosixPath(recorded).name
        operator = match.group(1) if match else named
        found.append((directory, f"kustomize:{operator}", match.group(2) if match else "?"))
    return found


def check(stack: Stack) -> list[Finding]:
    version = cluster_version(stack)
    if version is None:
        return []
    cluster = minor(version)
    findings = []
    for resource, component, pinned in pinned_components(stack):
        values = resource.props.get("values") if resource.type == HELM_RELEASE else None
        image = (values or {}).get("image") if isinstance(values, dict) else None
        row = support(component, pinned, image.get("tag") if isinstance(image, dict) else None)
        if row is None:
            findings.append(Finding(CONTROLLER, f"{component} {pinned}", "no support row: pin it in the catalog's "
                                    "table of add-ons (catalog/addons.py) with the version's published Kubernetes "
                                    "support and its source.", "catalog/addons.py", urn=resource.urn))
            continue
        if _held_for_the_upgrade(row, cluster):
            findings.append(Finding(CONTROLLER, f"{component} {pinned}", f"built for Kubernetes {row.maximum}, one "
                                    f"minor behind the cluster's {version} while the upgrade holds the charts "
                                    "(eks.upgrade): its minor should match the cluster's, so the upgrade's charts "
                                    "step moves it next.", row.source, severity="warning", urn=resource.urn))
        elif not row.covers(cluster):
            supported = f"{row.minimum or '?'} to {row.maximum or 'newer'}"
            findings.append(Finding(CONTROLLER, f"{component} {pinned}", f"supports Kubernetes {supported}, the "
                                    f"cluster runs {version}: pin a release built for {version}.", row.source,
                                    urn=resource.urn))
        if component.endswith("neuron-helm-chart"):
            findings.extend(_scheduler_skew(resource, cluster))
    for group in stack.of_type(NODE_GROUP):
        kubelet = minor(str(group.props.get("version") or version))
        if not (cluster[0] == kubelet[0] and cluster[1] - KUBELET_SKEW <= kubelet[1] <= cluster[1]):
            findings.append(Finding(CONTROLLER, group.name, f"kubelet {_show(kubelet)} against kube-apiserver "
                                    f"{version}: a kubelet may be up to three minors older, never newer.",
                                    SKEW_SOURCE, urn=group.urn))
    return findings


def _held_for_the_upgrade(row: Support, cluster: tuple[int, int]) -> bool:
    """A release built for one minor only (the Cluster Autoscaler's) that is exactly one minor behind the cluster:
    what ``eks.upgrade`` holds between the control plane's step and the charts' (upgrade/steps.py). A warning, not an
    error: the autoscaler's README asks for the matching minor, and the next step gives it; EKS itself moves the
    control plane before anything that runs on it."""
    if row.minimum is None or row.minimum != row.maximum:
        return False
    built = minor(row.maximum)
    return built[0] == cluster[0] and built[1] == cluster[1] - 1


def _scheduler_skew(release: Resource, cluster: tuple[int, int]) -> list[Finding]:
    scheduler = (release.props.get("values") or {}).get("scheduler") or {}
    custom = scheduler.get("customScheduler") or {}
    if not scheduler.get("enabled") or custom.get("enabled") is False:
        return []
    tag = str((custom.get("image") or {}).get("tag") or NEURON_CHART_SCHEDULER_TAG)
    running = minor(tag)
    if running[0] == cluster[0] and cluster[1] - 1 <= running[1] <= cluster[1]:
        return []
    return [Finding(CONTROLLER, f"{release.name} custom kube-scheduler {tag}",
                    f"kube-scheduler {_show(running)} against kube-apiserver {_show(cluster)}: kube-scheduler may be "
                    "at most one minor older and never newer; set scheduler.customScheduler.image to the "
                    "cluster's minor release (catalog/addons.py NEURON_SCHEDULER_IMAGES).", SKEW_SOURCE,
                    urn=release.urn)]
