"""The checks of the EKS cluster (``eks``, config/cluster.py): its system nodes' pods and sizes, the minors of an
upgrade under way and of a pinned kube-proxy, and who may reach its API server."""

from __future__ import annotations

from ...catalog.eks_versions import KUBELET_SKEW, previous_minor
from ..base import ConfigValueError
from ..cluster import EksConfig, SystemNodesConfig, UpgradeInProgress, minors_behind
from ..pods import pods_per_node
from ..stack import StackConfig
from ..system_load import check_system_nodes


def check_system_max_pods(system: SystemNodesConfig) -> None:
    """The system nodes' ``maxPods`` within what their instance type can address (config/pods.py)."""
    pods_per_node(system.instance_type, False, system.max_pods)


def check_upgrade(eks: EksConfig) -> None:
    """The parts an upgrade holds run one minor behind the control plane, the node groups at most three."""
    upgrade = eks.upgrade
    if upgrade is not None and upgrade.from_version != previous_minor(eks.version):
        raise ConfigValueError(
            f"the held parts run {upgrade.from_version} while the control plane runs {eks.version}: EKS "
            "upgrades one minor at a time, so they can only be one minor behind.",
            fix=f"set fromVersion to \"{previous_minor(eks.version)}\", or use trainstack upgrade to write "
            "the steps.", path=("upgrade", "fromVersion"), value=upgrade.from_version)
    if upgrade is not None and upgrade.nodes_version is not None:
        _held_nodes_within_the_skew(eks.version, upgrade, upgrade.nodes_version)


def _held_nodes_within_the_skew(version: str, upgrade: UpgradeInProgress, held: str) -> None:
    """Node groups held on ``nodesVersion``: held (listed in ``held``), no newer than ``fromVersion`` (they move to
    ``version`` with the node groups' step, never part way) and at most ``KUBELET_SKEW`` minors behind ``version``
    (a kubelet "must not be newer than kube-apiserver" and "may be up to three minor versions older",
    kubernetes.io/releases/version-skew-policy/#kubelet)."""
    path = ("upgrade", "nodesVersion")
    if "nodeGroups" not in upgrade.held:
        raise ConfigValueError(
            f"nodesVersion says the node groups run {held}, but held does not list nodeGroups: the node groups run "
            f"{version}.", fix="add nodeGroups to held, or remove nodesVersion, or use trainstack upgrade to write "
            "the steps.", path=path, value=held)
    if minors_behind(upgrade.from_version, held) < 0:
        raise ConfigValueError(
            f"the node groups are held on {held}, newer than fromVersion ({upgrade.from_version}): held node groups "
            f"stay on a minor the control plane has left and move to {version} in one roll.",
            fix=f"set nodesVersion to the node groups' minor, {upgrade.from_version} or older, or use trainstack "
                "upgrade to write the steps.", path=path, value=held)
    if minors_behind(version, held) > KUBELET_SKEW:
        before = previous_minor(version)
        raise ConfigValueError(
            f"the node groups run {held} while the control plane runs {version}: a kubelet may be at most "
            f"{KUBELET_SKEW} minors older than kube-apiserver (kubernetes.io/releases/version-skew-policy).",
            fix=f"roll the node groups to {before} while the control plane is still on it (version \"{before}\" and "
                f"nodeGroups out of held), then move the control plane to {version}; trainstack upgrade writes "
                "these steps.", path=path, value=held)


def check_kube_proxy_skew(eks: EksConfig) -> None:
    """A pinned kube-proxy within Kubernetes' skew of the API server and of the kubelets."""
    pinned = eks.addon_versions.kube_proxy
    if pinned is None:
        return
    behind_the_api, behind_the_kubelet = (minors_behind(newer, pinned) for newer in (eks.version, eks.nodes_version))
    # version-skew-policy.md, kube-proxy: "must not be newer than kube-apiserver", "may be up to three minor
    # versions older than kube-apiserver", "may be up to three minor versions older or newer than the kubelet
    # instance it runs alongside".
    if not 0 <= behind_the_api <= KUBELET_SKEW or abs(behind_the_kubelet) > KUBELET_SKEW:
        raise ConfigValueError(
            f"kube-proxy {pinned} against kube-apiserver {eks.version} and kubelets on {eks.nodes_version}: "
            f"kube-proxy may not be newer than kube-apiserver, nor more than {KUBELET_SKEW} minors older than "
            f"it or than {KUBELET_SKEW} minors away from the kubelet (kubernetes.io/releases/version-skew-policy).",
            fix=f"pin the kube-proxy release EKS gives {eks.version} (aws eks describe-addon-versions "
                f"--kubernetes-version {eks.version} --addon-name kube-proxy), or leave it unset for EKS's "
                "default.", path=("addonVersions", "kubeProxy"), value=pinned)


def check_allowlist(eks: EksConfig) -> None:
    """An allowlist only beside a public endpoint, and a public endpoint only with one."""
    # publicAccessCidrs are "the CIDR blocks that are allowed access to your cluster's public Kubernetes
    # API server endpoint" (https://docs.aws.amazon.com/eks/latest/APIReference/API_VpcConfigRequest.html);
    # a private endpoint has none, and cluster/eks_cluster.py passes no allowlist for it.
    if eks.public_access_cidrs and eks.api_endpoint == "private":
        raise ConfigValueError(
            "publicAccessCidrs is given, but the API server endpoint is private (endpointAccess "
            f"{'private' if eks.endpoint_access else 'unset, which means private'}): the allowlist "
            "would be dropped.",
            fix="set endpointAccess: publicAndPrivate to reach the API from those ranges (a dev stack's "
            "default; production stacks keep it private), or remove publicAccessCidrs.",
            path=("publicAccessCidrs",), value=eks.public_access_cidrs,
        )
    if eks.api_endpoint != "private" and not eks.public_access_cidrs:
        # Without an allowlist EKS opens the public endpoint to 0.0.0.0/0 (the API's default for
        # publicAccessCidrs, same page): a stack file and a library program alike must say who may reach it.
        raise ConfigValueError(
            f"endpointAccess '{eks.api_endpoint}' opens the API server, but no allowlist is given.",
            fix="set eks.publicAccessCidrs to your egress ranges (e.g. [203.0.113.0/24]), "
            "or set endpointAccess: private.",
            path=("publicAccessCidrs",), value=[])


def check_system_sizes(stack: StackConfig) -> None:
    """The system group, as given, holds what runs on it with the stack's groups at their size
    (config/system_load.py)."""
    if stack.eks is None:
        return
    try:
        check_system_nodes(stack.eks.system_nodes, stack.node_groups)
    except ConfigValueError as error:
        raise ConfigValueError(error.message, fix=error.fix, path=("eks", "systemNodes", *error.path),
                               value=error.value) from None
