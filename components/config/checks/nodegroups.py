"""The checks of an accelerated node group (``nodeGroups[]``, config/nodegroups.py) on its own and among the
stack's groups: sizes in order, one roll batch, EFA the instance type can lay out, pods its network card can
address; names and reservations each once, zones with a subnet, a VPC CNI that runs beside EFA."""

from __future__ import annotations

from ... import catalog
from ..base import ConfigValueError
from ..cluster import VPC_CNI_MIN_FOR_EFA_ONLY, vpc_cni_version_tuple
from ..nodegroups import NodeGroupConfig
from ..pods import pods_per_node
from ..stack import StackConfig


def check_sizes(group: NodeGroupConfig) -> None:
    """minSize <= desiredSize <= maxSize."""
    if not group.min_size <= group.desired_size <= group.max_size:
        raise ConfigValueError(
            f"sizes must satisfy minSize <= desiredSize <= maxSize, got "
            f"{group.min_size} / {group.desired_size} / {group.max_size}.",
            fix="change minSize, desiredSize or maxSize so they are in order.",
            path=("desiredSize",), value=group.desired_size)


def check_update_batch(group: NodeGroupConfig) -> None:
    """One of ``maxUnavailable`` and ``maxUnavailablePercentage``, and neither on a Karpenter pool."""
    given = [(key, value) for key, value in (("maxUnavailable", group.max_unavailable),
                                             ("maxUnavailablePercentage", group.max_unavailable_percentage))
             if value is not None]
    if len(given) > 1:
        # NodegroupUpdateConfig takes exactly one (EKS API Reference; terraform-provider-aws: ExactlyOneOf).
        raise ConfigValueError(
            "maxUnavailable and maxUnavailablePercentage are both set; EKS takes one of them.",
            fix="remove one of them.", path=("maxUnavailablePercentage",), value=group.max_unavailable_percentage)
    if given and group.autoscaler == "karpenter":
        key, value = given[0]
        raise ConfigValueError(
            f"{key} paces an EKS managed node group's roll; a Karpenter group has none (its NodePool's "
            "disruption budget paces replacements).", fix=f"remove {key}.", path=(key,), value=value)


def _efa_accelerated_kinds() -> str:
    """The families of the catalog's accelerated types with EFA."""
    return "families " + ", ".join(catalog.families(t for t in catalog.INSTANCE_TYPES
                                                    if t.efa.supported and t.accelerator is not None))


def check_efa(group: NodeGroupConfig) -> None:
    """EFA asked of a type without it, or of a type whose EFA facts the catalog lacks (its interfaces cannot be
    laid out)."""
    if group.autoscaler == "karpenter" and group.efa is None and group.capacity.type == "none":
        return  # an elastic pool: EFA only when asked (docs/adr/0007-one-autoscaler-per-group.md)
    instance = group.instance
    if not instance.efa.supported:
        if group.efa:
            efa_types = [t.name for t in catalog.INSTANCE_TYPES if t.efa.supported and t.family == instance.family]
            raise ConfigValueError(
                f"{group.instance_type} has no EFA.",
                fix="set efa: false, or use an EFA type"
                + (f" such as {', '.join(efa_types)}." if efa_types else f" ({_efa_accelerated_kinds()})."),
                path=("efa",), value=True)
        return
    if instance.efa.max_interfaces is None and group.efa is not False:
        raise ConfigValueError(
            f"EFA facts for {group.instance_type} are unknown, so its EFA interfaces cannot be laid out. "
            + " ".join(instance.notes),
            fix="set efa: false to run without EFA until the catalog has the facts.",
            path=("efa",), value=group.efa)


def check_max_pods(group: NodeGroupConfig) -> None:
    """``maxPods`` within what the EFA layout leaves on network card 0 (config/pods.py)."""
    pods_per_node(group.instance_type, group.efa_enabled, group.max_pods)


def check_groups_in_stack(stack: StackConfig) -> None:
    """Groups need a cluster; each name and each reservation or block once; each zone with a private subnet; a
    pinned VPC CNI that runs beside EFA interfaces."""
    if stack.node_groups and stack.eks is None and stack.existing_cluster is None:
        raise ConfigValueError("node groups need an EKS cluster.",
                               fix="add an eks block (eks: {} takes every default), or existingCluster.",
                               path=("nodeGroups",), value=[g.name for g in stack.node_groups])
    seen: set[str] = set()
    held: dict[str, NodeGroupConfig] = {}
    """Each reservation or block and the one group that holds it, managed node group or Karpenter pool."""
    for index, group in enumerate(stack.node_groups):
        if group.name in seen:
            raise ConfigValueError(f"node group name '{group.name}' is used twice.",
                                   fix="give each node group its own name.",
                                   path=("nodeGroups", index, "name"), value=group.name)
        seen.add(group.name)
        for reservation_id in group.capacity.reservation_ids:  # a pool's each, or the group's one
            holder = held.get(reservation_id)
            if holder is not None:
                raise ConfigValueError(
                    f"{group.capacity.type} {reservation_id} is already held by node group "
                    f"'{holder.name}' (autoscaler: {holder.autoscaler}); two groups on one reservation compete "
                    "for its instances and neither can count on them.",
                    fix="give each reservation or block to one group: remove it here, or from "
                    f"'{holder.name}'.", path=("nodeGroups", index, "capacity", "reservationId"),
                    value=reservation_id)
            held[reservation_id] = group
        if group.zone not in stack.network.private_zones:
            raise ConfigValueError(
                f"node group zone {group.zone} has no private subnet in the network "
                f"(zones: {', '.join(stack.network.private_zones)}).",
                fix=f"add {group.zone} to network.zones (or an existing subnet in it), or move the group.",
                path=("nodeGroups", index, "zone"), value=group.zone)
    pinned_cni = stack.eks.addon_versions.vpc_cni if stack.eks else None
    if pinned_cni and any(g.efa_enabled for g in stack.node_groups) and \
            vpc_cni_version_tuple(pinned_cni) < VPC_CNI_MIN_FOR_EFA_ONLY:
        raise ConfigValueError(
            f"vpc-cni {pinned_cni} cannot run beside efa-only interfaces (needs 1.18.5 or later).",
            fix="pin vpc-cni v1.18.5-eksbuild.1 or later, or remove the pin.",
            path=("eks", "addonVersions", "vpcCni"), value=pinned_cni)
