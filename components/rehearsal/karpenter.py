"""Karpenter itself in the rehearsal: the core release that aws/karpenter-provider-aws v1.14.1 builds on
(sigs.k8s.io/karpenter v1.14.1, engines/karpenter-kwok/go.mod says why that tag) with its kwok cloud provider
(kwok/main.go), launching the nodes of the stack's NodePools for the pods that wait for them. Karpenter makes a
NodeClaim, the provider creates its Node (kwok/cloudprovider/cloudprovider.go ``Create``), kwok makes it Ready,
and Karpenter registers it with the labels and taints of the NodePool's template. The rehearsal then reports the
node's capacity and allocatable as its kubelet would (``Watch.nodes``), which kwok cannot know.

What the provider may launch is its instance-type file (``--instance-types-file-path``, kwok/options/options.go,
read by kwok/cloudprovider/helpers.go ``ConstructInstanceTypes``), written here from the rehearsal's own node
model: each pool's instance type with the resources of the running node the model gives it (rehearsal.nodes,
``controllers.cluster_autoscaler.running_node``) and an offering per capacity type the pool allows, in its zone,
at the catalog's on-demand price. The NodePool is the one the plan renders but for its ``nodeClassRef``, which
names a KWOKNodeClass of the EC2NodeClass's name: what an EC2NodeClass holds (AMI, subnets, security groups, node
role, root volume) acts on EC2 alone and is not rehearsed.

Not run: a pool of reserved capacity. Karpenter tells one reservation's offerings from another's by a label its
cloud provider names (``cloudprovider.ReservationIDLabel``: karpenter.k8s.aws/capacity-reservation-id on AWS),
which kwok/main.go at v1.14.1 never sets; such a pool's nodes are added as the model launches them.

The model stays the offline plan's (controllers/karpenter.py). The rehearsal asks it what Karpenter answered
(``Watch``): for the pods that waited for a pool, one node of the pool's type in its zone per pod that fits the
running node, up to the pool's limit; a difference from Karpenter's NodeClaims is a finding naming both.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from .. import catalog
from ..controllers.scheduling import unfit_reasons
from ..kube.client import Cluster
from ..names import (
    CAPACITY_TYPE_LABEL,
    INSTANCE_TYPE_LABEL,
    KARPENTER_NODE_POOL,
    NODE_GROUP_LABEL,
    REGION_LABEL,
    ZONE_LABEL,
)
from ..policy.model import Stack
from . import kwok
from .control_plane import ControlPlane, free_port
from .nodes import KARPENTER_POOL, GroupShape, node_object

NODE_POOL_LABEL = "karpenter.sh/nodepool"
"""The label Karpenter puts on a pool's NodeClaims and nodes (pkg/apis/v1/labels.go)."""
NODE_CLASS_API = "karpenter.kwok.sh/v1alpha1"
KWOK_KUBE_RESERVED = {"cpu": Fraction(1, 10), "memory": Fraction(10 * 2**20)}
"""What the kwok provider takes off every type's resources for the node's allocatable, whatever the type
(kwok/cloudprovider/helpers.go ``newInstanceType``: Overhead.KubeReserved 100m and 10Mi)."""
RESERVED = "reserved"  # nodegroups/karpenter_capacity.py: a pool holding a reservation or block allows it alone
UNPRICED = 0.0
"""The price of a type the catalog has none for (p5e, trn2: Capacity Blocks only). A price only orders offerings
(cloudprovider.go ``toNode`` takes the cheapest of a NodeClaim's); a pool allows one type in one zone, so it
chooses nothing but a Spot pool's capacity type, which the cross-check does not compare. The catalog has no Spot
prices either: a Spot offering is priced on-demand, and the provider picks between the two at random."""


@dataclass(frozen=True)
class Pool:
    """One NodePool the real Karpenter launches nodes for."""

    shape: GroupShape
    """The pool's nodes as the rehearsal's model shapes them (rehearsal.nodes)."""
    document: dict[str, Any]
    """The NodePool as the plan renders it."""
    capacity_types: tuple[str, ...]

    @property
    def name(self) -> str:
        return str(self.document["metadata"]["name"])


def pools_to_run(stack: Stack, shapes: Iterable[GroupShape]) -> tuple[list[Pool], list[str]]:
    """The NodePools Karpenter runs here, and why each other one is left to the model."""
    by_group = {shape.name: shape for shape in shapes if shape.kind == KARPENTER_POOL}
    pools, left = [], []
    for resource in stack.of_type(KARPENTER_NODE_POOL):
        document = copy.deepcopy(resource.props)
        template = document["spec"]["template"]
        shape = by_group.get((template.get("metadata") or {}).get("labels", {}).get(NODE_GROUP_LABEL, ""))
        if shape is None:  # not an accelerated pool of one type: the rehearsal shapes no node for it
            continue
        types = next((tuple(r["values"]) for r in template["spec"]["requirements"]
                      if r["key"] == CAPACITY_TYPE_LABEL and r["operator"] == "In"), ("on-demand",))
        if RESERVED in types:
            left.append(f"NodePool/{document['metadata']['name']}: Karpenter is not run for a pool of reserved "
                        "capacity (its kwok provider names no reservation label); its nodes are added as the model "
                        "launches them")
            continue
        pools.append(Pool(shape, document, types))
    return pools, left


def _resources(shape: GroupShape) -> dict[str, str]:
    """The type's resources such that the Node the provider makes has the model's allocatable: the model's plus
    the provider's own reservation. Never more CPU than the type's vCPUs: the NodePool's cpu limit is maxSize
    times the vCPUs (nodegroups/karpenter_pool.py ``pool_limits``) and Karpenter holds a type's resources against
    it, so below 12 vCPUs, where nodeadm reserves less than 100m, the pool would otherwise fit one node fewer."""
    instance = catalog.get(shape.instance_type)
    vcpus = instance.require("vCPUs", instance.vcpus, "write Karpenter's instance types")
    amounts = dict(shape.node.allocatable)
    amounts["cpu"] = min(amounts["cpu"] + KWOK_KUBE_RESERVED["cpu"], Fraction(vcpus))
    amounts["memory"] += KWOK_KUBE_RESERVED["memory"]
    return {name: f"{int(amount * 1000)}m" if name == "cpu" else str(int(amount)) for name, amount in amounts.items()}


def instance_types(pools: Iterable[Pool]) -> list[dict[str, Any]]:
    """The provider's instance-type file (kwok/cloudprovider/helpers.go ``InstanceTypeOptions``)."""
    entries: dict[str, dict[str, Any]] = {}
    for pool in pools:
        shape = pool.shape
        if not shape.zone:
            raise ValueError(f"NodePool {pool.name}: its topology.kubernetes.io/zone requirement names no one zone "
                             f"({shape.zone!r}); the rehearsal offers a pool's type in its one zone: give the group "
                             "a zone")
        instance = catalog.get(shape.instance_type)
        price = instance.price(shape.zone[:-1])
        resources = _resources(shape)
        entry = entries.setdefault(shape.instance_type, {
            "name": shape.instance_type, "architecture": "arm64" if instance.arch == "arm64" else "amd64",
            "operatingSystems": ["linux"], "resources": resources, "offerings": []})
        if entry["resources"] != resources:
            raise ValueError(f"NodePool {pool.name}: another pool of {shape.instance_type} has nodes of other "
                             f"resources ({entry['resources']} against {resources}), and Karpenter's kwok "
                             "provider offers one shape per type: rehearse the pools one at a time")
        entry["offerings"] += [{"Price": price.usd_per_hour if price else UNPRICED, "Available": True, "Requirements": [
            {"key": CAPACITY_TYPE_LABEL, "operator": "In", "values": [capacity_type]},
            {"key": ZONE_LABEL, "operator": "In", "values": [shape.zone]},
            {"key": REGION_LABEL, "operator": "In", "values": [shape.zone[:-1]]}]}
            for capacity_type in pool.capacity_types]
    return list(entries.values())


def arguments(pools: list[Pool]) -> Callable[[Path, int], list[str]]:
    """The controller's flags (pkg/operator/options/options.go): the instance types, free ports for its metrics and
    health probes (it binds them on every interface, pkg/operator/operator.go), no leader election; the rest at the
    defaults the chart leaves them (its feature gates, batching windows and preference policy)."""
    def configure(work: Path, _webhook_port: int) -> list[str]:
        path = work / "instance-types.json"
        path.write_text(json.dumps(instance_types(pools), indent=1))
        return [f"--instance-types-file-path={path}", f"--metrics-port={free_port()}",
                f"--health-probe-port={free_port()}", "--disable-leader-election"]
    return configure


def node_pool(pool: Pool) -> dict[str, Any]:
    """The stack's NodePool, its class a KWOKNodeClass of the same name."""
    document = copy.deepcopy(pool.document)
    reference = document["spec"]["template"]["spec"]["nodeClassRef"]
    reference |= {"group": NODE_CLASS_API.split("/")[0], "kind": "KWOKNodeClass"}
    return document


def apply_pools(plane: ControlPlane, pools: list[Pool]) -> None:
    """The KWOKNodeClasses and NodePools, waited for until Karpenter calls each pool Ready."""
    for pool in pools:
        name = pool.document["spec"]["template"]["spec"]["nodeClassRef"]["name"]
        plane.cluster.create_unless_there({"apiVersion": NODE_CLASS_API, "kind": "KWOKNodeClass",
                                           "metadata": {"name": name}})
        plane.cluster.create(node_pool(pool))
    for pool in pools:
        plane.processes.wait_for("karpenter", f"NodePool {pool.name} Ready",
                                 functools.partial(_ready, plane.cluster, pool.name))


def not_applied(kind_name: str) -> str | None:
    """Why a Karpenter object of the stack is not applied as the plan renders it (None: it is, by ``apply_pools``)."""
    kind, _, name = kind_name.partition("/")
    if kind == "NodePool":
        return None
    if kind == "EC2NodeClass":
        return (f"{kind_name}: its AMI, subnets, security groups, node role and root volume act on EC2 alone; the "
                f"pool's NodePool names a KWOKNodeClass {name} in its place (Karpenter's kwok provider)")
    return f"{kind_name}: not a kind the rehearsal applies"


def _ready(cluster: Cluster, name: str) -> bool:
    pool = cluster.get(f"{cluster.collection('karpenter.sh/v1', 'NodePool')}/{name}")
    return any(c["type"] == "Ready" and c["status"] == "True" for c in (pool.get("status") or {}).get("conditions", []))


@dataclass(frozen=True)
class Launch:
    """Nodes launched for a pool: their instance types, zones and number."""

    instance_types: tuple[str, ...]
    zones: tuple[str, ...]
    nodes: int

    def __str__(self) -> str:
        return f"{self.nodes} node(s) of {', '.join(self.instance_types) or '-'} in {', '.join(self.zones) or '-'}"


class Watch:
    """The pods that waited for each pool Karpenter runs, since the last ``findings``: the question both answer."""

    def __init__(self, cluster: Cluster, pools: Iterable[Pool] = ()):
        self.cluster = cluster
        self.pools = {pool.shape.name: pool for pool in pools}
        """By the group name the pool's pods select."""
        self._waited: dict[str, dict[str, dict[str, Any]]] = {group: {} for group in self.pools}
        self._earlier: dict[str, set[str]] = {group: set() for group in self.pools}

    def saw(self, pod: dict[str, Any]) -> bool:
        """Note a pod that waits unscheduled; whether it waits for a pool Karpenter runs."""
        group = (pod["spec"].get("nodeSelector") or {}).get(NODE_GROUP_LABEL, "")
        if group not in self.pools:
            return False
        self._waited[group][pod["metadata"]["uid"]] = pod["spec"]
        return True

    def _of_pool(self, group: str, api_version: str, kind: str) -> list[dict[str, Any]]:
        return self.cluster.list(api_version, kind, labelSelector=f"{NODE_POOL_LABEL}={self.pools[group].name}")

    def nodes(self, group: str) -> int:
        """The pool's nodes there now, each reporting its machine as its kubelet would (``_report``)."""
        found = self._of_pool(group, "v1", "Node")
        for node in found:
            self._report(node, self.pools[group].shape)
        return len(found)

    def _report(self, node: dict[str, Any], shape: GroupShape) -> None:
        """What a kubelet reports of its machine and kwok cannot know: the capacity and allocatable the rehearsal's
        own nodes register with (``nodes.node_object``), in place of the provider's, which takes its NodeClaim's
        requests for capacity (kwok/cloudprovider/cloudprovider.go ``toNode``). Karpenter counts an initialized node
        against its pool's limits by that capacity (pkg/controllers/state/statenode.go ``Capacity``): a node first
        launched for pods that ask no GPU would otherwise count none, and the pool would grow past its limit."""
        kwok.schedulable(self.cluster, node)
        reported = node_object(shape, 0)["status"]
        if any(node["status"].get(key, {}).get(name) != amount
               for key, amounts in reported.items() for name, amount in amounts.items()):
            self.cluster.patch_status({"apiVersion": "v1", "kind": "Node", "metadata": node["metadata"]}, reported)

    def karpenters(self, group: str) -> Launch:
        """What Karpenter launched for the pool since the last ``findings``: its new NodeClaims, by the instance type
        and zone each was launched as (its labels once launched, its requirements before)."""
        new = [claim for claim in self._of_pool(group, "karpenter.sh/v1", "NodeClaim")
               if claim["metadata"]["name"] not in self._earlier[group]]

        def chosen(claim: dict[str, Any], key: str) -> str:
            values = [r["values"] for r in claim["spec"].get("requirements") or [] if r["key"] == key]
            return str((claim["metadata"].get("labels") or {}).get(key) or ",".join(values[0] if values else ["?"]))

        return Launch(tuple(sorted({chosen(c, INSTANCE_TYPE_LABEL) for c in new})),
                      tuple(sorted({chosen(c, ZONE_LABEL) for c in new})), len(new))

    def models(self, group: str) -> Launch:
        """The model's answer (the rehearsal's scale-up before Karpenter ran): a node per waiting pod that fits the
        pool's running node, up to the pool's limit less the nodes it had."""
        shape = self.pools[group].shape
        fitting = sum(1 for spec in self._waited[group].values() if not unfit_reasons(spec, shape.node))
        nodes = max(0, min(fitting, shape.maximum - len(self._earlier[group])))
        return Launch((shape.instance_type,) if nodes else (), (str(shape.zone),) if nodes else (), nodes)

    def answers(self, group: str) -> tuple[Launch, Launch]:
        """Karpenter's launch and its model's, for the pods that waited for the pool since the last ``findings``."""
        return self.karpenters(group), self.models(group)

    def findings(self) -> list[str]:
        """Where Karpenter and its model answered differently since the last call, naming both; then a new question."""
        found = []
        for group, pool in self.pools.items():
            real, model = self.answers(group)
            if real != model:
                found.append(f"Karpenter launched {real} for the {len(self._waited[group])} pod(s) that waited for "
                             f"NodePool {pool.name}; its model (controllers/karpenter.py: a node per pod that fits, up "
                             f"to the limit of {pool.shape.maximum}) launches {model}")
            self._waited[group] = {}
            self._earlier[group] = {c["metadata"]["name"] for c in self._of_pool(group, "karpenter.sh/v1", "NodeClaim")}
        return found
