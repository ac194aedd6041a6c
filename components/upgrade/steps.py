"""An upgrade as the ordered stack-file changes EKS requires, one reviewable change each (issue 56).

For each minor between the stack's and the target, one minor at a time with the control plane first (EKS user guide,
"Update existing cluster to new Kubernetes version", update-cluster.html), then the add-ons, then the nodes.
eksctl's cluster-upgrade page and the EKS page roll the nodes before the add-ons (as issue 64 reads them); the order
here is kept because the version-skew policy allows it (kubernetes/website content/en/releases/version-skew-policy.md,
kube-proxy: "must not be newer than kube-apiserver" and "may be up to three minor versions older or newer than the
kubelet instance it runs alongside"): kube-proxy at the new minor beside kubelets one minor behind is within it.
CoreDNS has no upstream skew rule; EKS's add-on tables give its version per cluster minor. So the nodes roll last,
once every other part of the minor is in place:

1. the control plane moves to the next minor; ``eks.upgrade`` holds the charts and the node groups on the previous
   one (the kubelet may be up to three minors older than the API server and never newer: Kubernetes' version-skew
   policy, kubernetes.io/releases/version-skew-policy). The nodes still roll at every minor, so a kubelet is never
   more than one minor behind: the strict reading of EKS's update-cluster page, not the three minors the policy
   allows (which would roll them once for a multi-minor upgrade; issue 64, not done);
2. the EKS managed add-ons that follow the minor (kube-proxy, CoreDNS) move to the new minor's versions
   (catalog/eks_addon_versions.py);
3. the charts pinned per minor (the Cluster Autoscaler, the Neuron custom scheduler) move;
4. the node groups roll to the new minor's AMI, and ``eks.upgrade`` goes.

Each step is a whole stack file, so the gate (``trainstack diff``) judges it as any pull request. The objects
trainstack renders are checked against the target's API first (upgrade/api_check.py). On a bring-your-own-cluster
stack trainstack owns only the layer it installs: one step per minor, after the cluster's owner has moved the
control plane (and its add-ons and node groups within the skew policy).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

from .. import catalog
from ..catalog import AcceleratorKind, addons
from ..catalog.eks_addon_versions import FOLLOWS_THE_MINOR
from ..catalog.eks_versions import previous_minor
from ..catalog.minor_pins import missing_pins
from ..config.cluster import DEFAULT_EKS_VERSION, EKS_VERSIONS

EKS = "trainstack:eks"
EXISTING = "trainstack:existingCluster"
HELD_AT_FIRST = ["charts", "nodeGroups"]
ADDON_KEYS = {"kube-proxy": "kubeProxy", "coredns": "coredns"}
"""The stack file's key (``eks.addonVersions``) of each add-on that follows the minor."""
KUBELET_SKEW = 3
"""Minors a kubelet may be behind kube-apiserver (version-skew policy, since Kubernetes 1.28)."""

Part = Literal["control plane", "add-ons", "charts", "node groups", "existing cluster"]
AddonVersion = Callable[[str, str], Optional[str]]
"""(add-on, minor) -> the version EKS gives that minor, or None where it is not known."""


class UpgradeRefused(Exception):
    """The upgrade cannot be written: a target outside the window, a downgrade, or a minor missing its pins."""

    def __init__(self, message: str, fix: str):
        super().__init__(f"{message} Fix: {fix}")
        self.message, self.fix = message, fix


@dataclass(frozen=True)
class Step:
    part: Part
    minor: str
    """The minor this step moves its part to."""
    document: dict[str, Any]
    """The whole stack file after the step."""
    changes: dict[str, Any]
    """``trainstack:eks.version`` style key paths to their new value (None: the key is removed)."""
    notes: list[str] = field(default_factory=list)
    """What the step leaves to its reader: add-on versions not known offline, what a cluster owner does first."""

    @property
    def title(self) -> str:
        return f"{self.part} to {self.minor}"


def stack_file_minor(document: dict[str, Any]) -> str:
    """The minor a stack file's control plane runs: its cluster's ``version``, or its existing cluster's, or, where
    the file sets none, the default the config models give it."""
    config = document.get("config", {})
    block = config.get(EKS) or config.get(EXISTING) or {}
    return str(block.get("version", DEFAULT_EKS_VERSION))


def minors_between(current: str, target: str) -> list[str]:
    """The minors after ``current`` up to ``target``, in order."""
    major, number = addons.minor(current)
    return [f"{major}.{step}" for step in range(number + 1, addons.minor(target)[1] + 1)]


def upgrade_steps(document: dict[str, Any], target: str, addon_version: AddonVersion) -> list[Step]:
    """The steps that bring the stack file ``document`` to Kubernetes ``target``; UpgradeRefused when they cannot."""
    config = document.get("config", {})
    if EKS in config:
        return _managed(document, target, addon_version)
    if EXISTING in config:
        return _existing(document, target)
    raise UpgradeRefused("the stack has no EKS cluster (neither trainstack:eks nor trainstack:existingCluster).",
                         "upgrade a stack with an EKS cluster.")


def _refuse_target(current: str, target: str, *, autoscaler: bool, neuron: bool) -> list[str]:
    """The minors to walk, after refusing a target outside the window, a downgrade or missing pins."""
    if target not in EKS_VERSIONS:
        newer = ", ".join(known for known in EKS_VERSIONS if addons.minor(known) > addons.minor(current))
        raise UpgradeRefused(f"Kubernetes {target} is not a minor EKS offers (window: {', '.join(EKS_VERSIONS)}).",
                             f"choose one of {newer or 'none: ' + current + ' is the newest'}.")
    if addons.minor(target) <= addons.minor(current):
        raise UpgradeRefused(f"the stack is already on {current}; {target} is not newer.", _older_fix(current, target))
    minors = minors_between(current, target)
    for minor in minors:
        missing = missing_pins(minor, autoscaler=autoscaler, neuron_scheduler=neuron)
        if missing:
            raise UpgradeRefused(f"trainstack cannot yet plan Kubernetes {minor}: {'; '.join(missing)}.",
                                 f"upgrade to {previous_minor(minor)} at most for now.")
    return minors


def _older_fix(current: str, target: str) -> str:
    """What to do instead of upgrading to ``target``, no newer than ``current``: the gate's rule for a rollback
    (review/kubernetes_version.py), from EKS's (docs.aws.amazon.com/eks/latest/userguide/rollback-cluster.html)."""
    if target == current:
        return "name a newer minor."
    if target != previous_minor(current):
        return (f"name a newer minor; EKS rolls a control plane back to the previous minor only "
                f"({previous_minor(current)}), within 7 days of the upgrade.")
    return (f"name a newer minor. To roll back to {target} instead (EKS takes a control plane back one minor within 7 "
            f"days of its upgrade to {current}), revert the upgrade's changes in reverse order, the node groups' first "
            "and the control plane's last, each judged by `trainstack diff`.")


def _neuron(config: dict[str, Any]) -> bool:
    """Whether the stack file's groups include Neuron instances (their custom scheduler is pinned per minor)."""
    groups = config.get("trainstack:nodeGroups") or []
    found = [catalog.find(str(group.get("instanceType"))) for group in groups]
    return any(each is not None and each.accelerator is not None and each.accelerator.kind is AcceleratorKind.NEURON
               for each in found)


def _managed(document: dict[str, Any], target: str, addon_version: AddonVersion) -> list[Step]:
    eks = document["config"][EKS]
    current = stack_file_minor(document)
    held = list((eks.get("upgrade") or {}).get("held", []))
    neuron = _neuron(document["config"])
    steps: list[Step] = []
    state = copy.deepcopy(document)
    if held:
        # Mid-upgrade: finish the current minor first.
        steps += _finish(state, current, held, addon_version, addons_done=True)
        state = steps[-1].document
    if target == current and held:
        return steps
    for minor in _refuse_target(current, target, autoscaler=True, neuron=neuron):
        state = _with_eks(state, version=minor, upgrade={"fromVersion": previous_minor(minor),
                                                          "held": list(HELD_AT_FIRST)})
        steps.append(Step("control plane", minor, state, {
            f"{EKS}.version": minor, f"{EKS}.upgrade": {"fromVersion": previous_minor(minor),
                                                         "held": list(HELD_AT_FIRST)}},
            [f"The node groups stay on {previous_minor(minor)}: the kubelet may be up to {KUBELET_SKEW} minors "
             "older than the API server and never newer (kubernetes.io/releases/version-skew-policy)."]))
        steps += _finish(state, minor, list(HELD_AT_FIRST), addon_version, addons_done=False)
        state = steps[-1].document
    return steps


def _finish(state: dict[str, Any], minor: str, held: list[str], addon_version: AddonVersion,
            addons_done: bool) -> list[Step]:
    """The add-ons', charts' and node groups' steps of ``minor`` that are still to do."""
    steps: list[Step] = []
    if not addons_done:
        addon_step = _addons(state, minor, addon_version)
        if addon_step is not None:
            steps.append(addon_step)
            state = addon_step.document
    if "charts" in held:
        held = [part for part in held if part != "charts"]
        state = _with_eks(state, upgrade={"fromVersion": previous_minor(minor), "held": held} if held else None)
        steps.append(Step("charts", minor, state, {f"{EKS}.upgrade.held": held or None}, [
            f"The Cluster Autoscaler (and the Neuron scheduler, where Neuron groups run) move to their {minor} "
            "release; their pods restart on the system nodes, no job is touched."]))
    if "nodeGroups" in held:
        state = _with_eks(state, upgrade=None)
        steps.append(Step("node groups", minor, state, {f"{EKS}.upgrade": None}, [
            f"Every managed node group rolls to the {minor} AMI at its updateConfig pace; jobs on a rolled node "
            "restart from their last checkpoint (the gate counts them)."]))
    return steps


def _addons(state: dict[str, Any], minor: str, addon_version: AddonVersion) -> Optional[Step]:
    """The step that moves the add-ons that follow the minor; None when none of their versions is known (said in
    the control plane step's notes instead)."""
    versions = dict(state["config"][EKS].get("addonVersions") or {})
    changes: dict[str, Any] = {}
    unknown = []
    for addon, key in ADDON_KEYS.items():
        found = addon_version(addon, minor)
        if found is None:
            unknown.append(addon)
        elif versions.get(key) != found:
            versions[key] = found
            changes[f"{EKS}.addonVersions.{key}"] = found
    notes = [f"{addon} for {minor}: {FOLLOWS_THE_MINOR[addon][1]} has no row for it, so this step leaves it at its "
             f"running version; run trainstack upgrade with --aws to ask EKS (DescribeAddonVersions), or pin "
             f"eks.addonVersions.{ADDON_KEYS[addon]} from `aws eks describe-addon-versions --kubernetes-version "
             f"{minor} --addon-name {addon}`." for addon in unknown]
    if not changes:
        return Step("add-ons", minor, state, {}, notes) if notes else None
    return Step("add-ons", minor, _with_eks(state, addonVersions=versions), changes, notes)


def _with_eks(document: dict[str, Any], **keys: Any) -> dict[str, Any]:
    """A copy of ``document`` with ``trainstack:eks`` keys set (None removes one)."""
    changed = copy.deepcopy(document)
    eks = changed["config"][EKS]
    for key, value in keys.items():
        if value is None:
            eks.pop(key, None)
        else:
            eks[key] = value
    return changed


def _existing(document: dict[str, Any], target: str) -> list[Step]:
    cluster = document["config"][EXISTING]
    current = stack_file_minor(document)
    neuron = _neuron(document["config"]) and cluster.get("installDevicePlugins", True)
    steps = []
    state = copy.deepcopy(document)
    for minor in _refuse_target(current, target, autoscaler=False, neuron=bool(neuron)):
        state = copy.deepcopy(state)
        state["config"][EXISTING]["version"] = minor
        steps.append(Step("existing cluster", minor, state, {f"{EXISTING}.version": minor}, [
            f"First, the cluster's owner: the control plane to {minor} (aws eks update-cluster-version), then its "
            f"add-ons, and every node group within {KUBELET_SKEW} minors of {minor} before the next minor.",
            f"Then this step: trainstack's layer follows (the Neuron scheduler, where it runs, to {minor}'s "
            "kube-scheduler)."]))
    return steps
