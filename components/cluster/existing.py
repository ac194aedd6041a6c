"""ExistingCluster: an EKS cluster made elsewhere, as the rest of trainstack sees a cluster.

    kubeconfig   from the file named (one context, the others' credentials left out of the state)
                 or built from the endpoint and certificate authority with ``aws eks get-token``
    Kubernetes provider
    device plugins (NVIDIA, Neuron, EFA) for the described groups' devices, unless the cluster runs its own
    the described groups' node labels and taints, which their nodes must already carry

It makes no AWS resource: no control plane, node group, add-on or IAM role (config/existing_cluster.py).
The groups' nodes are there already, so nothing waits for them; the Cluster Autoscaler, Karpenter, the EKS
node monitoring agent and the CSI drivers are the cluster owner's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s
import yaml

from ..addons.device_plugins import efa_device_plugin, neuron_device_plugin, nvidia_device_plugin
from ..catalog import AcceleratorKind
from ..config import NodeGroupConfig, validate
from ..config.cluster_size import ClusterSize
from ..config.errors import ConfigError, ConfigIssue, format_path
from ..config.existing_cluster import ExistingClusterConfig
from ..names import EXISTING_CLUSTER_COMPONENT, EXISTING_NODE_GROUP_COMPONENT
from ..nodegroups.karpenter_pool import pool_marks
from .system_nodes import SYSTEM_LABELS

EKS_TAINT_EFFECTS = {"NoSchedule": "NO_SCHEDULE", "PreferNoSchedule": "PREFER_NO_SCHEDULE", "NoExecute": "NO_EXECUTE"}


class ExistingNodeGroup(pulumi.ComponentResource):
    """A described group, recorded with the facts an EKS managed node group's resource would carry (instance type,
    scaling, labels, taints in EKS's spelling, zone, EFA interfaces, maxPods), so that the plan, the policies, the
    controller models and the rehearsal read it as they read a group trainstack makes. It makes nothing."""

    def __init__(self, name: str, *, instance_type: str, sizes: tuple[int, int, int], labels: dict[str, str],
                 taints: list[dict[str, Any]], zone: Optional[str], efa_interfaces: int, max_pods: Optional[int],
                 opts: pulumi.ResourceOptions):
        minimum, desired, maximum = sizes
        facts = {"instanceTypes": [instance_type], "labels": labels, "zone": zone, "efaInterfaces": efa_interfaces,
                 "maxPods": max_pods, "scalingConfig": {"minSize": minimum, "desiredSize": desired, "maxSize": maximum},
                 "taints": [{"key": t["key"], **({"value": t["value"]} if t.get("value") else {}),
                             "effect": EKS_TAINT_EFFECTS[t["effect"]]} for t in taints]}
        super().__init__(EXISTING_NODE_GROUP_COMPONENT, name, facts, opts)
        self.labels = labels
        self.taints = taints
        """Kubernetes' spelling (``NoSchedule``), as the outputs contract and the plugins' tolerations take them."""
        # Registered as its outputs too: the engine hands a policy pack a component's outputs, not its inputs.
        self.register_outputs(facts)


class ExistingClusterArgs(TypedDict):
    """The ``existingCluster`` block, the described ``nodeGroups`` and the stack's region."""

    settings: ExistingClusterConfig | dict
    """The ``existingCluster`` config block."""
    node_groups: Sequence[NodeGroupConfig | dict]
    """The cluster's accelerated groups, as they are (the ``nodeGroups`` config list)."""
    region: str
    """The cluster's region (AWS's images come from its registries)."""


class ExistingCluster(pulumi.ComponentResource):
    """An EKS cluster trainstack did not make: its provider, device plugins and described groups."""

    def __init__(self, name: str, args: ExistingClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        settings = validate(ExistingClusterConfig, args["settings"], prefix=f"ExistingCluster({name}).settings")
        described = [validate(NodeGroupConfig, g, prefix=f"ExistingCluster({name}).nodeGroups[{i}]")
                     for i, g in enumerate(args.get("node_groups", []))]
        kubeconfig = kubeconfig_of(settings, args["region"])
        # Its region recorded: a stack on it has no AWS provider, and the cost estimate prices in this region.
        super().__init__(EXISTING_CLUSTER_COMPONENT, name, {"region": args["region"]}, opts)
        self.cluster_name = settings.name
        self.region = args["region"]
        self.owns_eks_addons = False
        """The cluster's EKS add-ons are its owner's: trainstack installs none."""
        self.node_monitoring_agent = False
        """Whether the EKS node monitoring agent runs is the owner's choice; trainstack does not claim it."""
        self.kubeconfig: pulumi.Output[str] = pulumi.Output.secret(kubeconfig)
        self.ready_for_workloads: list[pulumi.Resource] = []
        """The nodes and core add-ons are there already: nothing to wait for."""
        self.provider = k8s.Provider(f"{name}-k8s", kubeconfig=self.kubeconfig,
                                     opts=pulumi.ResourceOptions(parent=self))
        child = pulumi.ResourceOptions(parent=self)
        self.node_groups = {g.name: _described(f"{name}-{g.name}", g, child) for g in described}
        """The described groups, by config name."""
        system = settings.system_nodes
        ExistingNodeGroup(f"{name}-system", instance_type=system.instance_type,
                          sizes=system.described_sizes, labels=dict(SYSTEM_LABELS),
                          taints=[], zone=None, efa_interfaces=0, max_pods=system.pods_per_node.value, opts=child)
        self.karpenter_pools: dict[str, ExistingNodeGroup] = {}
        self.accelerator_kinds = {g.accelerator.kind for g in described}
        self.size: Optional[ClusterSize] = None
        """Not known: the cluster's node groups are its owner's, so the add-ons keep their charts' sizes."""
        if settings.install_device_plugins:
            self._device_plugins(name, settings.version, described)
        self.register_outputs({"clusterName": self.cluster_name, "region": self.region})

    def _device_plugins(self, name: str, version: str, described: list[NodeGroupConfig]) -> None:
        """One plugin per kind of device the groups have, tolerating the groups' taints."""
        def taints(kind: Optional[AcceleratorKind] = None, efa: bool = False) -> list[dict[str, Any]]:
            return [t for g in described if (kind is None or g.accelerator.kind is kind) and (not efa or g.efa_enabled)
                    for t in self.node_groups[g.name].taints]

        common = dict(provider=self.provider, parent=self, depends_on=[])
        if AcceleratorKind.GPU in self.accelerator_kinds:
            nvidia_device_plugin(name, **common, group_taints=taints(AcceleratorKind.GPU))
        if AcceleratorKind.NEURON in self.accelerator_kinds:
            neuron_device_plugin(name, kubernetes_version=version, system_node_selector=SYSTEM_LABELS, **common,
                                 group_taints=taints(AcceleratorKind.NEURON))
        if any(g.efa_enabled for g in described):
            efa_device_plugin(name, region=self.region, **common, group_taints=taints(efa=True))


def _described(name: str, group: NodeGroupConfig, opts: pulumi.ResourceOptions) -> ExistingNodeGroup:
    labels, taints = pool_marks(group)
    return ExistingNodeGroup(name, instance_type=group.instance_type,
                             sizes=(group.min_size, group.desired_size, group.max_size), labels=labels, taints=taints,
                             zone=group.zone, efa_interfaces=group.efa_interfaces_per_node,
                             max_pods=group.pods_per_node.value, opts=opts)


def kubeconfig_of(settings: ExistingClusterConfig, region: str) -> str:
    """The kubeconfig (JSON) the provider reaches the cluster with: the file's chosen context alone, or
    the one ``aws eks update-kubeconfig`` writes for the endpoint (token from ``aws eks get-token``)."""
    if settings.kubeconfig is None:
        user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1", "command": "aws",
                         "args": ["--region", region, "eks", "get-token", "--cluster-name", settings.name,
                                  "--output", "json"]}}
        return _single_context(settings.name, {"server": settings.endpoint,
                                               "certificate-authority-data": settings.certificate_authority}, user)
    path = os.path.expanduser(settings.kubeconfig)
    try:
        with open(path, encoding="utf-8") as handle:
            document = yaml.safe_load(handle) or {}
    except OSError as error:
        raise _unusable("kubeconfig", settings.kubeconfig, f"the kubeconfig {path} cannot be read ({error.strerror}).",
                        "point existingCluster.kubeconfig at the file `aws eks update-kubeconfig` wrote.") from None
    wanted = settings.context or document.get("current-context")
    contexts = {c.get("name"): c.get("context") or {} for c in document.get("contexts") or []}
    if wanted not in contexts:
        raise _unusable("context", wanted, f"the kubeconfig {path} has no context {wanted!r} (it has: "
                        f"{', '.join(sorted(str(c) for c in contexts)) or 'none'}).",
                        "set existingCluster.context to one of them.")
    context = contexts[wanted]
    clusters = {c.get("name"): c.get("cluster") for c in document.get("clusters") or []}
    users = {u.get("name"): u.get("user") for u in document.get("users") or []}
    return _single_context(str(wanted), clusters.get(context.get("cluster")) or {},
                           users.get(context.get("user")) or {}, context.get("namespace"))


def _unusable(key: str, value: object, message: str, fix: str) -> ConfigError:
    """The kubeconfig is read when the program runs (it is the machine's): its problems are configuration errors."""
    return ConfigError([ConfigIssue(format_path(("existingCluster", key)), value, message, fix)])


def _single_context(name: str, cluster: dict[str, Any], user: dict[str, Any],
                    namespace: Optional[str] = None) -> str:
    context = {"cluster": name, "user": name, **({"namespace": namespace} if namespace else {})}
    return json.dumps({"apiVersion": "v1", "kind": "Config", "current-context": name,
                       "clusters": [{"name": name, "cluster": cluster}], "users": [{"name": name, "user": user}],
                       "contexts": [{"name": name, "context": context}]}, sort_keys=True)
