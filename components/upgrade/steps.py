"""An upgrade as the ordered stack-file changes EKS requires, one reviewable change each (issue 56).

The control plane moves one minor at a time: "you can update only one minor version at a time" (EKS user guide,
"Update existing cluster to new Kubernetes version",
https://docs.aws.amazon.com/eks/latest/userguide/update-cluster.html; awsdocs/amazon-eks-user-guide
latest/ug/clusters/update-cluster.adoc @ 13c3274b, read 2026-11-29). The add-ons and
the charts follow it minor by minor. The node groups roll once.

Which rule for the nodes. The same EKS page says both. Its step 1 asks: "Before updating your control plane to a new
Kubernetes version, make sure that the Kubernetes minor version of both the managed nodes and Fargate nodes in your
cluster are the same as your control plane's version." Its detailed considerations say: "If the kubelet on your
managed and Fargate nodes is on Kubernetes version 1.25 or newer, you can update your cluster up to three versions
ahead without updating the kubelet version. For example, if the kubelet is on version 1.25, you can update your
Amazon EKS cluster version from 1.25 to 1.26, to 1.27, and to 1.28 while the kubelet remains on version 1.25." The
second is Kubernetes' own rule: "kubelet must not be newer than kube-apiserver" and "may be up to three minor
versions older than kube-apiserver (kubelet < 1.25 may only be up to two minor versions older)" (kubernetes/website
content/en/releases/version-skew-policy.md, https://kubernetes.io/releases/version-skew-policy/#kubelet). This
module follows the three minors. Every minor of EKS's window is 1.25 or later, so the EKS sentence that names the
exception applies to every stack; the strict one is the general advice it refines (the page repeats it as "a best
practice"). EKS's upgrade insight "Kubelet version skew" "Checks for kubelet versions of worker nodes in the cluster
to see if upgrade would cause non compliance with supported Kubernetes kubelet version skew policy" (EKS user guide,
cluster-insights.html): the skew policy, not equality. EKS did once refuse such an update ("Nodegroups ... must be
updated to match cluster version 1.18 before updating cluster version", hashicorp/terraform-provider-aws issue
19478, 2021), before the policy allowed three minors; no AWS account tried it here. And a roll is what a training
cluster pays most for: every distributed job on a rolled node restarts. Rolling at every minor would stop them once
per minor for nothing the policy needs. A managed node group can go several minors at once: UpdateNodegroupVersion
takes the cluster's version ("You can update to the latest AMI version of your cluster's current Kubernetes version
by specifying your cluster's Kubernetes version in the request", EKS API Reference,
https://docs.aws.amazon.com/eks/latest/APIReference/API_UpdateNodegroupVersion.html), and "The version that you
update to can't be greater than the control plane's version" (EKS user guide, update-managed-node-group.html).

So, for each minor between the stack's and the target:

1. the control plane moves to the next minor; ``eks.upgrade`` holds the charts on the previous minor
   (``fromVersion``) and the node groups where they are: on ``fromVersion`` at the first minor, then on
   ``nodesVersion``, the minor they ran when the upgrade began;
2. the EKS managed add-ons that follow the minor (kube-proxy, CoreDNS) move to the new minor's versions
   (catalog/eks_addon_versions.py);
3. the charts pinned per minor (the Cluster Autoscaler, the Neuron custom scheduler) move.

The node groups roll once, to the target, as the last step, and ``eks.upgrade`` goes. They roll earlier only where
the next control plane step would put their kubelets more than three minors behind (from 1.32 to 1.36: to 1.35
before the control plane goes to 1.36, then to 1.36).

The add-ons come before the nodes. eksctl's cluster-upgrade page and EKS's summary roll the nodes first; this order is
kept because the version-skew policy allows it. kube-proxy "must not be newer than kube-apiserver", "may be up to
three minor versions older than kube-apiserver" and "may be up to three minor versions older or newer than the
kubelet instance it runs alongside" (version-skew-policy.md, kube-proxy): kube-proxy on the control plane's minor
beside kubelets at most three minors behind is within it, and config/cluster.py refuses a pinned kube-proxy outside
it. CoreDNS has no upstream skew rule; EKS's add-on tables give its version per cluster minor.

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
from ..catalog.eks_versions import KUBELET_SKEW, previous_minor
from ..catalog.minor_pins import missing_pins
from ..config.cluster import DEFAULT_EKS_VERSION, EKS_VERSIONS, minors_behind

EKS = "trainstack:eks"
EXISTING = "trainstack:existingCluster"
HELD_AT_FIRST = ["charts", "nodeGroups"]
ADDON_KEYS = {"kube-proxy": "kubeProxy", "coredns": "coredns"}
"""The stack file's key (``eks.addonVersions``) of each add-on that follows the minor."""

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
    upgrade = eks.get("upgrade") or {}
    held = list(upgrade.get("held", []))
    nodes = _nodes_minor(upgrade, current)
    neuron = _neuron(document["config"])
    steps: list[Step] = []
    state = copy.deepcopy(document)
    if "charts" in held:
        # Mid-upgrade: the charts catch up with the control plane before it moves on.
        steps.append(_charts(state, current))
        state = steps[-1].document
    if target == current and held:
        return [*steps, *([_node_groups(state, current, nodes)] if nodes != current else [])]
    for minor in _refuse_target(current, target, autoscaler=True, neuron=neuron):
        if minors_behind(minor, nodes) > KUBELET_SKEW:
            steps.append(_node_groups(state, previous_minor(minor), nodes, next_minor=minor))
            state, nodes = steps[-1].document, previous_minor(minor)
        steps.append(_control_plane(state, minor, nodes))
        state = steps[-1].document
        addon_step = _addons(state, minor, addon_version)
        if addon_step is not None:
            steps.append(addon_step)
            state = addon_step.document
        steps.append(_charts(state, minor))
        state = steps[-1].document
    steps.append(_node_groups(state, target, nodes))
    return steps


def _nodes_minor(upgrade: dict[str, Any], current: str) -> str:
    """The minor the node groups run: ``nodesVersion`` or ``fromVersion`` while ``eks.upgrade`` holds them, else the
    control plane's (config/cluster.py ``EksConfig.nodes_version``'s rule, on the stack file as written)."""
    if "nodeGroups" not in upgrade.get("held", []):
        return current
    return str(upgrade.get("nodesVersion") or upgrade["fromVersion"])


def _upgrade_changes(before: Optional[dict[str, Any]], after: Optional[dict[str, Any]]) -> dict[str, Any]:
    """``eks.upgrade``'s change as the stack file shows it: the whole block where it comes or goes, else each of its
    keys that changes (None: removed)."""
    if before is None or after is None:
        return {f"{EKS}.upgrade": after}
    return {f"{EKS}.upgrade.{key}": after.get(key) for key in dict.fromkeys([*before, *after])
            if before.get(key) != after.get(key)}


def _control_plane(state: dict[str, Any], minor: str, nodes: str) -> Step:
    """The control plane to ``minor``, the charts held one minor behind and the node groups on ``nodes``."""
    previous = previous_minor(minor)
    upgrade: dict[str, Any] = {"fromVersion": previous, "held": list(HELD_AT_FIRST)}
    if nodes != previous:
        upgrade["nodesVersion"] = nodes
    changes = {f"{EKS}.version": minor, **_upgrade_changes(state["config"][EKS].get("upgrade"), upgrade)}
    return Step("control plane", minor, _with_eks(state, version=minor, upgrade=upgrade), changes, [
        f"The node groups stay on {nodes}: the kubelet may be up to {KUBELET_SKEW} minors older than the API server "
        "and never newer (kubernetes.io/releases/version-skew-policy), so they roll at the end, or sooner only where "
        f"the control plane would get more than {KUBELET_SKEW} minors ahead of them."])


def _charts(state: dict[str, Any], minor: str) -> Step:
    """The charts to ``minor``, the control plane's; ``eks.upgrade`` keeps holding the node groups, if it does."""
    before = state["config"][EKS]["upgrade"]
    held = [part for part in before["held"] if part != "charts"]
    after = {**before, "held": held} if held else None
    return Step("charts", minor, _with_eks(state, upgrade=after), _upgrade_changes(before, after), [
        f"The Cluster Autoscaler (and the Neuron scheduler, where Neuron groups run) move to their {minor} "
        "release; their pods restart on the system nodes, no job is touched."])


def _node_groups(state: dict[str, Any], minor: str, nodes: str, next_minor: Optional[str] = None) -> Step:
    """Every node group from ``nodes`` to ``minor``, the control plane's; ``eks.upgrade`` goes. ``next_minor``: the
    control plane step this roll makes room for, where the roll comes before the target."""
    why = "" if next_minor is None else (
        f" They roll now, before the target, because the control plane's move to {next_minor} would leave their "
        f"kubelets {minors_behind(next_minor, nodes)} minors behind, more than the {KUBELET_SKEW} the "
        "version-skew policy allows.")
    return Step("node groups", minor, _with_eks(state, upgrade=None), {f"{EKS}.upgrade": None}, [
        f"Every managed node group rolls from {nodes} to the {minor} AMI in one update at its updateConfig pace "
        "(UpdateNodegroupVersion to the cluster's version); jobs on a rolled node restart from their last "
        f"checkpoint (the gate counts them).{why}"])


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
