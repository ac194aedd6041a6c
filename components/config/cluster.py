"""The EKS control plane, its access, core add-ons and system nodes."""

from __future__ import annotations

import ipaddress
import re
from typing import Any, Literal, Optional

from pydantic import Field, field_validator

from .. import catalog
from ..catalog import eks_versions
from ..catalog.addons import minor as kubernetes_minor
from ..cidrs import whole_internet
from .base import ConfigModel, ConfigValueError
from .pods import PodsPerNode, pods_per_node
from .principals import ACCESS_ENTRY_ARN, admin_listings, refuse_repeats
from .vpc_cni import VpcCniConfig

# Kubernetes versions a cluster may use: every minor EKS offers on the window's date, in standard or extended support
# (catalog/eks_versions.py, EKS's own calendar, dated), where trainstack has the pins the stack needs
# (catalog/minor_pins.py, judged in config/stack.py, where the stack is known). Why:
# docs/adr/0017-the-eks-version-window-and-upgrades.md
EKS_VERSIONS = eks_versions.offered()
# The newest minor whose every pin is established: 1.36 has no Cluster Autoscaler chart (catalog/addons.py).
DEFAULT_EKS_VERSION = "1.35"

# VPC CNI 1.18.5 is the first release that can run next to efa-only interfaces
# (EKS user guide, node-efa).
VPC_CNI_MIN_FOR_EFA_ONLY = (1, 18, 5)

# EKS Provisioned Control Plane tiers: the values pulumi-aws 7.51.1 documents for aws.eks.Cluster's
# controlPlaneScalingConfig.tier (sdk python pulumi_aws/eks/_inputs.py, ClusterControlPlaneScalingConfigArgs) and the
# EKS API accepts (docs.aws.amazon.com/eks/latest/APIReference/API_ControlPlaneScalingConfig.html, read 2026-11-28:
# standard | tier-xl | tier-2xl | tier-4xl | tier-8xl). The English API page stored then still listed four values and
# the localized one five; tier-8xl is taken because the provider pinned here and the CDK's ControlPlaneScalingTier
# (aws-cdk-lib v2.275.0) both carry it. What each tier is sized for: estimate/control_plane.py.
ControlPlaneTier = Literal["standard", "tier-xl", "tier-2xl", "tier-4xl", "tier-8xl"]
CONTROL_PLANE_TIERS: tuple[ControlPlaneTier, ...] = ("standard", "tier-xl", "tier-2xl", "tier-4xl", "tier-8xl")

PRINCIPAL_ARN = re.compile(ACCESS_ENTRY_ARN)


def _cpu_families() -> list[str]:
    """The catalog's families without accelerators, for system nodes."""
    return catalog.families(t for t in catalog.INSTANCE_TYPES if t.accelerator is None)


class SystemNodesConfig(ConfigModel):
    """The node group for cluster services (CoreDNS, controllers, operators)."""

    instance_type: str = "c5.2xlarge"
    """A CPU instance type from the catalog."""
    min_size: Optional[int] = Field(default=None, ge=1)
    """Fewest system nodes (at least 1). Default: the nodes that hold what runs on them (CoreDNS's replicas, the
    Cluster Autoscaler, the job controllers, each node's DaemonSets) with every node group at its minSize; at
    least 2. Under existingCluster: 2."""
    desired_size: Optional[int] = Field(default=None, ge=1)
    """System nodes at creation. Default: minSize."""
    max_size: Optional[int] = Field(default=None, ge=1)
    """Most system nodes. Default: one more than the nodes that hold what runs on them with every node group at its
    maxSize; at least 4. A maxSize too small to hold it is refused, with the figures. Under existingCluster: 4."""
    max_pods: Optional[int] = Field(default=None, ge=1)
    """The kubelet's maxPods. Default: the smaller of what the type's ENIs hold and the EKS
    recommendation (110, or 250 above 30 vCPUs); never above the former."""
    auto_repair: bool = True
    """EKS node auto repair: replace or reboot a system node that reports unhealthy."""
    offering_unchecked: Optional[str] = Field(default=None, min_length=1)
    """Why this group's instance type is offered where the catalog's offering data says it is not (AWS
    began offering it after the data was generated). With a reason here, validation does not check
    the offering; ``trainstack preflight`` still asks the account."""

    @field_validator("instance_type")
    @classmethod
    def _cpu_type(cls, value: str) -> str:
        entry = catalog_entry(value)
        if entry.accelerator is not None:
            raise ConfigValueError(
                f"'{value}' has accelerators; system nodes run cluster services.",
                fix=f"use a CPU type (families {', '.join(_cpu_families())}), and put accelerated instances "
                "in nodeGroups.",
            )
        return value

    @property
    def pods_per_node(self) -> PodsPerNode:
        return pods_per_node(self.instance_type, False, self.max_pods)

    @property
    def described_sizes(self) -> tuple[int, int, int]:
        """Min, desired and max of an existing cluster's system group (``existingCluster.systemNodes``, its owner's):
        as given, else 2, minSize and 4. A group trainstack makes is sized by config/system_load.py instead."""
        minimum = self.min_size if self.min_size is not None else 2
        return (minimum, self.desired_size if self.desired_size is not None else minimum,
                self.max_size if self.max_size is not None else 4)


def version_refusal(value: str) -> ConfigValueError:
    """Why a Kubernetes version is outside EKS's window on the data's date, and what to use instead."""
    offered = ", ".join(EKS_VERSIONS)
    known = eks_versions.version(value)
    if known is not None and known.support_on(eks_versions.DATA_DATE) == "ended":
        return ConfigValueError(
            f"Kubernetes {value} left EKS extended support on {known.end_of_extended_support.isoformat()}: EKS "
            "creates no cluster on it and upgrades the ones left on it itself.",
            fix=f"use one of {offered} (EKS's window on {eks_versions.DATA_DATE.isoformat()}).", value=value)
    return ConfigValueError(
        f"Kubernetes {value} is not a version EKS offers (its window on {eks_versions.DATA_DATE.isoformat()}: "
        f"{offered}).", fix=f"use one of {offered} (as a quoted string, e.g. \"{DEFAULT_EKS_VERSION}\").",
        value=value)


UpgradePart = Literal["charts", "nodeGroups"]


class UpgradeInProgress(ConfigModel):
    """The parts of the cluster still on an older minor while an upgrade is under way. ``trainstack upgrade``
    writes it with the control plane's step and removes it with the node groups' (docs/upgrades.md)."""

    from_version: str
    """The minor the held parts still run: the one ``version`` was upgraded from, one minor older."""
    held: list[UpgradePart] = Field(min_length=1)
    """What still runs ``fromVersion``: ``charts`` (the Cluster Autoscaler and the Neuron custom scheduler, whose minor
    follows the cluster's) and ``nodeGroups`` (every managed node group's kubelet and AMI; on ``nodesVersion`` where
    it is set)."""
    nodes_version: Optional[str] = None
    """The minor the held node groups run when it is older than ``fromVersion``: an upgrade over several minors
    keeps them where they were, at most three minors behind ``version``, and rolls them once. Unset:
    ``fromVersion``."""

    @field_validator("nodes_version")
    @classmethod
    def _nodes_minor(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and value not in EKS_VERSIONS:
            raise version_refusal(value)
        return value

    @field_validator("held")
    @classmethod
    def _once_each(cls, held: list[UpgradePart]) -> list[UpgradePart]:
        if len(set(held)) != len(held):
            raise ConfigValueError("a part is listed twice.", fix="list charts and nodeGroups at most once each.",
                                   value=held)
        return held


def minors_behind(newer: str, older: str) -> int:
    """How many minors ``older`` is behind ``newer``, negative when it is ahead: ``"1.36"`` and ``"v1.33.2"`` are
    3 apart. Another major counts as more minors than any skew allows."""
    (major, number), (older_major, older_number) = kubernetes_minor(newer), kubernetes_minor(older)
    return (major - older_major) * 1000 + number - older_number


class AddonVersions(ConfigModel):
    """Pinned EKS managed add-on versions (``v1.19.2-eksbuild.1``); unset means EKS's default for the cluster version.

    A field's name is the add-on's name with ``_`` for ``-`` (``core_addon`` looks it up so)."""

    vpc_cni: Optional[str] = None
    """The vpc-cni add-on version."""
    coredns: Optional[str] = None
    """The coredns add-on version."""
    kube_proxy: Optional[str] = None
    """The kube-proxy add-on version."""
    eks_pod_identity_agent: Optional[str] = None
    """The eks-pod-identity-agent add-on version."""
    eks_node_monitoring_agent: Optional[str] = None
    """The eks-node-monitoring-agent add-on version."""
    cert_manager: Optional[str] = None
    """The community cert-manager add-on, installed for the HyperPod training operator."""
    amazon_sagemaker_hyperpod_training_operator: Optional[str] = None
    """The amazon-sagemaker-hyperpod-training-operator add-on version."""
    amazon_sagemaker_hyperpod_taskgovernance: Optional[str] = None
    """The amazon-sagemaker-hyperpod-taskgovernance add-on version."""

    @field_validator("*")
    @classmethod
    def _addon_version(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and not re.match(r"^v\d+\.\d+\.\d+(-eksbuild\.\d+)?$", value):
            raise ConfigValueError(f"'{value}' is not an EKS add-on version.",
                                   fix="write it as EKS lists it, for example v1.19.2-eksbuild.1.")
        return value


class EksConfig(ConfigModel):
    """An EKS cluster for accelerated training: control plane, access, core add-ons, system nodes."""

    version: str = DEFAULT_EKS_VERSION
    """Kubernetes version of the control plane: a minor EKS offers (standard or extended support; a minor in
    extended support is billed at the extended rate, and the plan names the day its support ends)."""
    upgrade: Optional[UpgradeInProgress] = None
    """Set during an upgrade only (``trainstack upgrade`` writes and removes it): the parts still on an older minor
    while the control plane runs ``version`` (the charts one minor behind, the node groups up to three)."""
    endpoint_access: Optional[Literal["private", "public", "publicAndPrivate"]] = None
    """API server endpoint. Profile default: ``private`` for production (required there),
    ``publicAndPrivate`` for dev with ``publicAccessCidrs`` as the allowlist. A private
    endpoint means ``pulumi up`` must run where it can reach the VPC."""
    public_access_cidrs: list[str] = []
    """Who may reach a public endpoint (required when the endpoint is public; never the whole internet,
    whether written as 0.0.0.0/0 or as blocks that add up to it). Refused on a private endpoint, which
    has no public side to allow."""
    admin_principals: list[str] = []
    """IAM role or user ARNs granted cluster admin through EKS access entries."""
    log_types: list[Literal["api", "audit", "authenticator", "controllerManager", "scheduler"]] = [
        "api", "audit", "authenticator"]
    """Control plane log types sent to CloudWatch Logs."""
    system_nodes: SystemNodesConfig = SystemNodesConfig()
    """The node group for cluster services."""
    addon_versions: AddonVersions = AddonVersions()
    """Pinned versions of EKS managed add-ons; unset means EKS's default."""
    vpc_cni: VpcCniConfig = VpcCniConfig()
    """How the VPC CNI holds addresses on every node (the vpc-cni add-on's configuration)."""
    control_plane_tier: Optional[ControlPlaneTier] = None
    """EKS Provisioned Control Plane scaling tier: ``standard``, ``tier-xl``, ``tier-2xl``, ``tier-4xl`` or
    ``tier-8xl``. Unset leaves EKS's default (standard, which scales on its own and guarantees no capacity).
    A provisioned tier is billed per hour on top of the cluster's hourly fee. ``trainstack plan`` recommends
    a tier from the stack's node and pod counts and warns when this one is below it."""
    node_monitoring_agent: bool = True
    """The EKS node monitoring agent add-on on clusters with accelerated node groups: it sets
    node conditions (AcceleratedHardwareReady, NetworkingReady, ...) that node auto repair acts on."""

    @property
    def api_endpoint(self) -> Literal["private", "public", "publicAndPrivate"]:
        """The API server endpoint: as given (a stack's profile fills it in, config.profiles), else private."""
        return self.endpoint_access or "private"

    @field_validator("version")
    @classmethod
    def _version(cls, value: str) -> str:
        if value not in EKS_VERSIONS:
            raise version_refusal(value)
        return value

    @property
    def nodes_version(self) -> str:
        """The minor the managed node groups run: while the upgrade holds them, ``nodesVersion`` where set, else
        ``fromVersion``; else ``version``."""
        if self.upgrade is not None and "nodeGroups" in self.upgrade.held and self.upgrade.nodes_version is not None:
            return self.upgrade.nodes_version
        return self._held_at("nodeGroups")

    @property
    def charts_version(self) -> str:
        """The minor the Cluster Autoscaler and the Neuron scheduler are pinned for (``nodes_version``'s rule)."""
        return self._held_at("charts")

    def _held_at(self, part: UpgradePart) -> str:
        if self.upgrade is not None and part in self.upgrade.held:
            return self.upgrade.from_version
        return self.version

    @field_validator("control_plane_tier", mode="before")
    @classmethod
    def _tier(cls, value: Any) -> Any:
        if value is not None and value not in CONTROL_PLANE_TIERS:
            raise ConfigValueError(
                f"'{value}' is not an EKS Provisioned Control Plane tier.",
                fix=f"use one of {', '.join(CONTROL_PLANE_TIERS)} (or leave it unset for EKS's standard mode).")
        return value

    @field_validator("public_access_cidrs")
    @classmethod
    def _allowlist(cls, cidrs: list[str]) -> list[str]:
        for index, cidr in enumerate(cidrs):
            try:
                network = ipaddress.ip_network(cidr, strict=True)
            except ValueError:
                raise ConfigValueError(f"'{cidr}' is not a CIDR block.", fix="write it as 203.0.113.0/24.",
                                       path=(index,), value=cidr) from None
            if network.prefixlen == 0:
                raise ConfigValueError(
                    "the whole internet may not reach the Kubernetes API.",
                    fix="list your office or VPN egress ranges instead of 0.0.0.0/0.",
                    path=(index,), value=cidr,
                )
        opened = whole_internet(cidrs)
        if opened:
            # Judged by the addresses the blocks hold together: 0.0.0.0/1 and 128.0.0.0/1 are 0.0.0.0/0.
            raise ConfigValueError(
                f"these blocks together hold every address of {' and '.join(opened)}: the whole internet "
                "could reach the Kubernetes API.",
                fix="list your office or VPN egress ranges only.", value=cidrs,
            )
        return cidrs

    @field_validator("admin_principals")
    @classmethod
    def _principals(cls, arns: list[str]) -> list[str]:
        for index, arn in enumerate(arns):
            if not PRINCIPAL_ARN.match(arn):
                raise ConfigValueError(
                    f"'{arn}' is not an IAM role or user ARN; an EKS access entry names one of those (not an "
                    "assumed-role session).",
                    fix="use arn:aws:iam::<12-digit account>:role/<name> (or :user/<name>).",
                    path=(index,), value=arn,
                )
        refuse_repeats(admin_listings(arns), within=("eks", "adminPrincipals"))
        return arns


def vpc_cni_version_tuple(version: str) -> tuple[int, int, int]:
    match = re.match(r"^v(\d+)\.(\d+)\.(\d+)", version)
    if match is None:
        raise ValueError(f"'{version}' is not a vpc-cni version (v<major>.<minor>.<patch>...)")
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch)


def catalog_entry(name: str) -> catalog.InstanceType:
    try:
        return catalog.get(name)
    except catalog.UnknownInstanceTypeError as error:
        raise ConfigValueError(
            f"'{name}' is not in the instance catalog.",
            fix=f"use {' or '.join(error.close_matches)}." if error.close_matches
            else "use an instance type from the catalog (`trainstack catalog` lists them).",
        ) from None
