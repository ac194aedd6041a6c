"""What a stack needs of each AWS quota at max size, against AWS's published defaults.

The quotas and their defaults are the catalog's (``catalog/service_quotas.py``, each with its source and the
date it was read). A need above a default is not refused: large clusters run on raised quotas. The plan says
which quota to raise, by how much, and its code (the ``quotas`` section); ``trainstack preflight`` reads the
account's own value of each code and fails where it is too low (``preflight/quotas.py``). Both read the needs
from here, so they say the same numbers.

What each need counts, at every group's maxSize:

* managed node groups per cluster: the system nodes' group and every group the Cluster Autoscaler scales, a
  pool counting each of its parts (a Karpenter group makes a NodePool, no managed node group);
* nodes per managed node group: the largest managed node group's maxSize (EKS keeps a group within the quota;
  a pool is split into parts within the default, so only a group made whole can pass it);
* network interfaces per Region: per node, every interface of its launch template's layout, EFA-only ones
  included (a p5.48xlarge attaches 33: ``catalog/efa_layout.py``), plus the ENIs the VPC CNI attaches for pod
  addresses at steady state, as the IP budget sizes them (``config/ip_budget.py``, whose per-node figures
  these are). Only the nodes are counted: the NAT gateways, the control plane's ENIs, FSx and endpoints add
  a few dozen more, and HyperPod's instances run in SageMaker's account, not counted here;
* On-Demand vCPUs per family class: the system nodes and every group not on a capacity block (a block is
  bought capacity, outside the On-Demand quota).

IPs in each subnet are the IP budget's (``ipBudget`` section; a config whose nodes cannot hold their
steady-state addresses is refused there), not repeated here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Optional

from .. import catalog
from ..catalog.service_quotas import (
    MANAGED_NODE_GROUPS_PER_CLUSTER,
    NETWORK_INTERFACES_PER_REGION,
    NODES_PER_MANAGED_NODE_GROUP,
    READ,
    ServiceQuota,
    vcpu_quota,
)
from .ip_budget import IpBudget, ip_budget
from .node_pool import parts

if TYPE_CHECKING:
    from .stack import StackConfig


@dataclass(frozen=True)
class QuotaNeed:
    """What the stack needs of one quota, and what adds up to it."""

    quota: ServiceQuota
    need: int
    lines: tuple[str, ...]

    @property
    def raise_by(self) -> Optional[int]:
        """How far the need passes AWS's default; None when it does not, or when AWS publishes no default."""
        default = self.quota.default
        return self.need - default if default is not None and self.need > default else None

    def said(self) -> str:
        quota = self.quota
        head = f"{quota.name} ({quota.service_code} {quota.code}, {quota.scope}): needs {self.need:,}"
        if quota.default is None:
            return f"{head}; AWS publishes no default: `trainstack preflight` reads the account's value"
        if self.raise_by is None:
            return f"{head}, default {quota.default:,}"
        return (f"{head}, default {quota.default:,}: raise it by {self.raise_by:,} to at least {self.need:,} "
                f"(aws service-quotas request-service-quota-increase --service-code {quota.service_code} "
                f"--quota-code {quota.code} --desired-value {self.need})")

    def as_dict(self) -> dict[str, Any]:
        quota = self.quota
        return {"serviceCode": quota.service_code, "quotaCode": quota.code, "name": quota.name,
                "scope": quota.scope, "default": quota.default, "need": self.need, "raiseBy": self.raise_by,
                "source": quota.source, "lines": list(self.lines)}


@dataclass(frozen=True)
class QuotaPlan:
    """The ``quotas`` section of a plan: every quota the stack's size reaches, against AWS's defaults."""

    key: ClassVar[str] = "quotas"
    needs: tuple[QuotaNeed, ...]

    @property
    def exceeded(self) -> tuple[QuotaNeed, ...]:
        return tuple(need for need in self.needs if need.raise_by is not None)

    def as_dict(self) -> dict[str, Any]:
        return {"read": READ, "quotas": [need.as_dict() for need in self.needs],
                "exceeded": [need.quota.code for need in self.exceeded]}

    def render(self) -> str:
        lines = [f"AWS quotas at max size, against AWS's published defaults (read {READ}); a need past a default "
                 "is not refused: raise the quota before deploying, and `trainstack preflight` checks the "
                 "account's value:"]
        for need in self.needs:
            mark = "RAISE" if need.raise_by is not None else "ok" if need.quota.default is not None else "?"
            lines.append(f"  {mark:<6}{need.said()}")
            lines += [f"        {line}" for line in need.lines]
        return "\n".join(lines)


def managed_node_groups(config: StackConfig) -> list[tuple[str, int]]:
    """Each EKS managed node group the stack makes, with its maxSize: the system nodes' and each group the
    Cluster Autoscaler scales; a pool (``config/node_pool.py``) counts each of its parts."""
    if config.eks is None:
        return []
    system = config.system_node_sizes
    groups = [("system nodes", system.max_size if system is not None else 0)]
    for group in config.node_groups:
        if group.autoscaler == "cluster-autoscaler":
            made = parts(group)
            groups += [(group.name if len(made) == 1 else f"{group.name} part {part.index}", part.max_size)
                       for part in made]
    return groups


def vcpu_needs(config: StackConfig) -> list[QuotaNeed]:
    """On-Demand vCPUs per family class at max size, in the order of the classes' codes."""
    needs: dict[ServiceQuota, tuple[int, list[str]]] = {}

    def add(instance_type: str, count: int, label: str) -> None:
        instance = catalog.get(instance_type)
        per_node = instance.require("vCPUs", instance.vcpus, "check the vCPU quota")
        quota = vcpu_quota(instance)
        vcpus, lines = needs.get(quota, (0, []))
        needs[quota] = (vcpus + count * per_node, [*lines, f"{label} {count} x {per_node}"])

    if config.eks is not None and (system := config.system_node_sizes) is not None:
        add(config.eks.system_nodes.instance_type, system.max_size, "system")
    for group in config.node_groups:
        # Capacity blocks are bought capacity, not On-Demand quota.
        if group.capacity.type != "capacityBlock":
            add(group.instance_type, group.max_size, group.name)
    return [QuotaNeed(quota, vcpus, tuple(lines))
            for quota, (vcpus, lines) in sorted(needs.items(), key=lambda item: item[0].name)]


def network_interfaces(budget: IpBudget) -> QuotaNeed:
    """The interfaces the nodes attach at max size, from the IP budget's rows (the system nodes, which it
    counts in every zone they may run in, once)."""
    # One row per group and subnet: a pool's parts in a zone's two subnets are two rows of its nodes, not one. The
    # system nodes (no zone of their own) are one row wherever the budget counts them.
    rows = {(row.group, "", "") if row.zone is None else (row.group, row.zone, zone.label): row
            for zone in budget.zones for row in zone.groups if row.size_key[0] != "hyperpod"}
    total, lines = 0, []
    for row in rows.values():
        per_node = row.layout_interfaces + row.steady.extra_enis
        total += row.nodes * per_node
        lines.append(f"{row.group}: {row.nodes} x ({row.layout_interfaces} in the launch template + "
                     f"{row.steady.extra_enis} VPC CNI ENIs) = {row.nodes * per_node:,}")
    return QuotaNeed(NETWORK_INTERFACES_PER_REGION, total, tuple(lines))


def quota_needs(config: StackConfig, budget: Optional[IpBudget] = None) -> Optional[QuotaPlan]:
    """Every quota the stack's size reaches; None without an EKS cluster this stack makes. ``budget``: the stack's
    IP budget where the caller has it already (the plan's ``ipBudget`` section)."""
    budget = budget if budget is not None else ip_budget(config)
    if budget is None:
        return None
    groups = managed_node_groups(config)
    largest = max(size for _, size in groups)
    over = [f"{name}: maxSize {size}" for name, size in groups
            if size > (NODES_PER_MANAGED_NODE_GROUP.default or 0)]
    return QuotaPlan((
        QuotaNeed(MANAGED_NODE_GROUPS_PER_CLUSTER, len(groups), (f"{', '.join(name for name, _ in groups)}",)),
        QuotaNeed(NODES_PER_MANAGED_NODE_GROUP, largest,
                  tuple(over) or (f"largest: {next(n for n, s in groups if s == largest)}, maxSize {largest}",)),
        network_interfaces(budget),
        *vcpu_needs(config),
    ))


def quota_section(config: StackConfig, budget: Optional[IpBudget] = None) -> Optional[QuotaPlan]:
    """The plan's ``quotas`` section: only on a stack that passes an AWS default, so that the plans of stacks
    within every default keep their records."""
    plan = quota_needs(config, budget)
    return plan if plan is not None and plan.exceeded else None

