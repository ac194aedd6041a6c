"""Node objects shaped as a stack's EKS node groups would register them, read from the
stack's plan record and the catalog, for the real API server and scheduler of
``support/control_plane.py`` (no kubelet runs: the test creates the Node and writes its
status as the kubelet would).

Two shapes per node group:

* ``registered``: what the kubelet of a launched instance reports, from the library's own node
  model (``trainstack.rehearsal.nodes``, the rehearsal's: nodeadm's reservations, huge pages,
  device plugins), built by ``support/engine_cluster.py``.
* ``template``: the node the Cluster Autoscaler imagines for a group at zero
  (kubernetes/autoscaler, cluster-autoscaler/cloudprovider/aws/aws_manager.go, ``buildNodeFromTemplate``):
  cpu, memory, pods and GPUs from its instance-type table, extended resources from the
  Auto Scaling group's ``k8s.io/cluster-autoscaler/node-template/resources/*`` tags, labels
  and taints from the managed node group (EKS DescribeNodegroup) and the
  ``node-template/label|taint`` tags. No kube-reserved is subtracted and no huge pages
  exist unless a tag names them. This is the tests' own reading of the autoscaler, kept
  apart from the library's (``controllers.cluster_autoscaler.template_node``) on purpose:
  it found a bug in that model once (tests/engines/test_scheduling.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from trainstack import catalog

TAINT_EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}
TEMPLATE_TAG = "k8s.io/cluster-autoscaler/node-template/"


@dataclass(frozen=True)
class NodeGroup:
    """One aws:eks/nodeGroup:NodeGroup of a plan record, with what its nodes need."""
    name: str
    """The trainstack name (the ``trainstack.io/node-group`` label)."""
    instance_type: str
    labels: dict[str, str]
    taints: list[dict[str, str]]
    min_size: int
    max_size: int
    efa_interfaces: int
    zone: str | None
    template_tags: dict[str, str]
    autoscaler: str = "cluster-autoscaler"
    """``karpenter`` for a Karpenter NodePool: no Cluster Autoscaler template node applies."""


def node_groups(record: dict[str, Any]) -> list[NodeGroup]:
    resources = record["resources"]
    by_id = {r.get("id"): r for r in resources}
    tags_by_asg: dict[str, dict[str, str]] = {}
    for r in resources:
        if r["type"] == "aws:autoscaling/tag:Tag":
            tag = r["inputs"]["tag"]
            tags_by_asg.setdefault(r["inputs"]["autoscalingGroupName"], {})[tag["key"]] = tag["value"]
    groups = []
    for r in resources:
        if r["type"] != "aws:eks/nodeGroup:NodeGroup":
            continue
        inputs = r["inputs"]
        template = by_id.get((inputs.get("launchTemplate") or {}).get("id"))
        interfaces = (template or {}).get("inputs", {}).get("networkInterfaces") or []
        subnet = by_id.get((inputs.get("subnetIds") or [None])[0])
        asg = next((name for name in tags_by_asg if name.startswith(f"eks-{r['name']}-")), None)
        groups.append(_group(
            inputs, efa_interfaces=sum(1 for i in interfaces if i.get("interfaceType") in ("efa", "efa-only")),
            zone=(subnet or {}).get("inputs", {}).get("availabilityZone"),
            template_tags=tags_by_asg.get(asg, {}) if asg else {}))
    return groups + hyperpod_groups(record) + karpenter_groups(record) + existing_groups(record)


def _group(inputs: dict[str, Any], *, efa_interfaces: int, zone: str | None,
           template_tags: dict[str, str]) -> NodeGroup:
    """A group from the inputs a managed node group (or a described one, in the same shape) records."""
    return NodeGroup(
        name=inputs["labels"]["trainstack.io/node-group"], instance_type=inputs["instanceTypes"][0],
        labels=dict(inputs["labels"]),
        taints=[{"key": t["key"], "value": t.get("value", ""), "effect": TAINT_EFFECTS[t["effect"]]}
                for t in inputs.get("taints") or []],
        min_size=inputs["scalingConfig"]["minSize"], max_size=inputs["scalingConfig"]["maxSize"],
        efa_interfaces=efa_interfaces, zone=zone, template_tags=template_tags)


def existing_groups(record: dict[str, Any]) -> list[NodeGroup]:
    """The groups of a cluster made elsewhere (cluster/existing.py's ExistingNodeGroup), as described."""
    groups = []
    for r in record["resources"]:
        if r["type"] != "trainstack:index:ExistingNodeGroup":
            continue
        inputs = r["inputs"]
        groups.append(_group(inputs, efa_interfaces=inputs["efaInterfaces"], zone=inputs.get("zone"),
                             template_tags={}))
    return groups


def karpenter_groups(record: dict[str, Any]) -> list[NodeGroup]:
    """Karpenter NodePools (nodegroups/karpenter_pool.py): the one instance type and zone their
    requirements allow, the template's labels and taints, no EFA; at most ``limits`` allow."""
    groups = []
    for r in record["resources"]:
        if r["type"] != "kubernetes:karpenter.sh/v1:NodePool":
            continue
        template = r["inputs"]["spec"]["template"]
        allowed = {q["key"]: q["values"] for q in template["spec"]["requirements"] if q["operator"] == "In"}
        instance = catalog.get(allowed["node.kubernetes.io/instance-type"][0])
        accelerator = instance.require("the accelerator", instance.accelerator, "model a Karpenter node")
        limit = int(r["inputs"]["spec"]["limits"][accelerator.resource_names[0]]) // accelerator.count
        groups.append(NodeGroup(
            name=template["metadata"]["labels"]["trainstack.io/node-group"], instance_type=instance.name,
            labels=dict(template["metadata"]["labels"]), taints=[dict(t) for t in template["spec"].get("taints", [])],
            min_size=0, max_size=limit, efa_interfaces=0, zone=allowed["topology.kubernetes.io/zone"][0],
            template_tags={}, autoscaler="karpenter"))
    return groups


# SageMaker developer guide, HyperPod EKS node health labels: a node that passed its health
# checks carries this label, which trainstack's HyperPod launcher requires.
HYPERPOD_HEALTHY = {"sagemaker.amazonaws.com/node-health-status": "Schedulable"}


def hyperpod_groups(record: dict[str, Any]) -> list[NodeGroup]:
    """HyperPod instance groups of an EKS-orchestrated cluster, joined as nodes with their
    ``KubernetesConfig`` labels and taints, every EFA interface of the type attached (HyperPod
    attaches them itself; there is no launch template to read)."""
    groups = []
    for r in record["resources"]:
        if r["type"] != "aws-native:sagemaker:Cluster" or "eks" not in (r["inputs"].get("orchestrator") or {}):
            continue
        for group in r["inputs"]["instanceGroups"]:
            instance_type = group["instanceType"].removeprefix("ml.")
            efa = catalog.get(instance_type).efa
            kubernetes = group.get("kubernetesConfig") or {}
            groups.append(NodeGroup(
                name=group["instanceGroupName"], instance_type=instance_type,
                labels={**kubernetes.get("labels", {}), **HYPERPOD_HEALTHY},
                taints=[{"key": t["key"], "value": t.get("value", ""), "effect": t["effect"]}
                        for t in kubernetes.get("taints") or []],
                min_size=group["instanceCount"], max_size=group["instanceCount"],
                efa_interfaces=(efa.max_interfaces or 0) if efa else 0, zone=None, template_tags={}))
    return groups


def _node(name: str, group: NodeGroup, labels: dict[str, str], taints: list[dict[str, str]],
          capacity: dict[str, str], allocatable: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {
                **labels, "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64", "node.kubernetes.io/instance-type": group.instance_type,
                **({"topology.kubernetes.io/zone": group.zone} if group.zone else {})}},
            "spec": {"taints": taints} if taints else {},
            "status": {"capacity": capacity, "allocatable": allocatable,
                       "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                       "message": "kubelet is posting ready status"}]}}


def template(group: NodeGroup, index: int) -> dict[str, Any]:
    """The node the Cluster Autoscaler builds from the group's template when it is at zero."""
    facts = catalog.get(group.instance_type)
    vcpus = facts.require("vCPUs", facts.vcpus, "shape a template node")
    memory_gib = facts.require("memory", facts.memory_gib, "shape a template node")
    capacity = {"cpu": str(vcpus), "memory": f"{memory_gib}Gi",
                "pods": "110"}  # aws_manager.go: pods capacity is a flat 110 for template nodes
    gpus = facts.accelerator.count if facts.accelerator and facts.accelerator.kind.value == "nvidia-gpu" else 0
    if gpus:
        capacity["nvidia.com/gpu"] = str(gpus)
    labels, taints = dict(group.labels), list(group.taints)
    for key, value in group.template_tags.items():
        rest = key[len(TEMPLATE_TAG):]
        if rest.startswith("resources/"):
            capacity[rest[len("resources/"):]] = value
        elif rest.startswith("label/"):
            labels[rest[len("label/"):]] = value
        elif rest.startswith("taint/"):
            taint_value, _, effect = value.partition(":")
            taints.append({"key": rest[len("taint/"):], "value": taint_value, "effect": effect})
    return _node(f"{group.name}-template-{index}", group, labels, taints, capacity, dict(capacity))
