"""The Cluster Autoscaler and the kubelet: does every rendered job fit the node its group brings?

Two nodes per managed node group, both built from the plan record:

* **The template node** (groups that may sit at zero, ``minSize`` 0). With no node to
  copy, the autoscaler imagines one, and scales the group up only for pods that fit it
  (kubernetes/autoscaler, tag cluster-autoscaler-1.35.0, the release
  ``cluster/autoscaler.py`` pins for Kubernetes 1.35;
  ``cluster-autoscaler/cloudprovider/aws/aws_manager.go``, ``buildNodeFromTemplate``):

  - capacity: 110 pods, the instance type's vCPUs, memory (``MemoryInfo.SizeInMiB``) and
    GPUs (the sum of ``GpuInfo``; none for Trainium) as DescribeInstanceTypes reports them
    (``aws_util.go``, ``transformInstanceType``; the catalog holds the same EC2 data), then
    every ``k8s.io/cluster-autoscaler/node-template/resources/<name>`` tag of the Auto
    Scaling group; allocatable is capacity (nothing reserved);
  - labels: arch, OS, instance type, region and zone, the ASG's
    ``.../node-template/label/<name>`` tags, and, because EKS tags a managed group's ASG
    with ``eks:cluster-name`` and ``eks:nodegroup-name``, the node group's labels from
    EKS DescribeNodegroup;
  - taints: the ASG's ``.../node-template/taint/<key>`` tags plus the node group's taints
    from DescribeNodegroup (``aws_wrapper.go``, ``getManagedNodegroupInfo``, maps
    ``NO_SCHEDULE`` to ``NoSchedule``).

* **The running node** (every group: once up, its nodes must admit the job too).
  Allocatable is capacity less what the EKS AMI's bootstrap reserves (``catalog/kubelet_reserved.py``;
  awslabs/amazon-eks-ami v20260724, ``nodeadm/internal/kubelet/config.go``): kube-reserved CPU by nodeadm's
  ranges (6% of the first core, 1% of the second, 0.5% of cores 3-4, 0.25% above) and
  memory ``11 * maxPods + 255`` MiB with maxPods nodeadm's own default for the type
  (``eni_max_pods.go``: it reserves before the NodeConfig's maxPods drop-in applies),
  the ``memory.available`` eviction threshold of 100Mi, and the huge pages the EFA
  installer reserves (the kubelet takes pre-allocated huge pages out of allocatable
  memory). Device-plugin resources exist only where the stack installs the plugin and
  its DaemonSet's nodeSelector and tolerations admit the node: ``nvidia.com/gpu`` per
  GPU, ``aws.amazon.com/neuron``/``neuroncore`` per device and core,
  ``vpc.amazonaws.com/efa`` per EFA interface the launch template attaches.

A DRA group's pods claim devices instead of requesting them: the autoscaler adds or keeps nodes for them only
when its DRA handling is on (``check_dra_handling``; catalog/autoscaler_dra.py says what each pinned release
needs).

Pods of any scheduler count (the Neuron jobs name ``my-scheduler``) unless the autoscaler
runs with ``--allowed-scheduler-names``; then only those schedulers' pods do
(``core/static_autoscaler.go`` ``listPods``).

Not modelled: the kernel's share of memory (``MemTotal`` is a little below the EC2
figure; the launchers leave 15% of it unrequested), DaemonSet pods' requests, and
ephemeral storage (no job requests any).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from .. import catalog
from ..catalog import EFA_HUGEPAGES, EFA_RESOURCE, HUGEPAGES_RESOURCE, AcceleratorKind, autoscaler_dra, kubelet_reserved
from ..catalog.addons import CLUSTER_AUTOSCALER, chart_reference, runs_device_plugin
from ..kube.quantity import quantity
from ..names import (
    AUTOSCALING_TAG,
    DEVICE_ALLOCATION_LABEL,
    EXISTING_NODE_GROUP_COMPONENT,
    GPU_RESOURCE,
    HELM_RELEASE,
    INSTANCE_TYPE_LABEL,
    LAUNCH_TEMPLATE,
    NEURON_RESOURCE,
    NEURONCORE_RESOURCE,
    NODE_GROUP,
    NODE_GROUP_LABEL,
    REGION_LABEL,
    SUBNET,
    ZONE_LABEL,
)
from ..policy.model import Resource, Stack
from . import daemons, dra
from .groups import ManagedGroup
from .karpenter import pool_groups  # a Karpenter pool's nodes are judged as they run
from .model import Finding
from .scheduling import Node, Taint, pod_specs, unfit_reasons

CONTROLLER = "cluster-autoscaler"
SOURCE = ("kubernetes/autoscaler cluster-autoscaler-1.35.0 cluster-autoscaler/cloudprovider/aws/aws_manager.go "
          "buildNodeFromTemplate")
SCHEDULERS_SOURCE = ("kubernetes/autoscaler cluster-autoscaler-1.35.0 cluster-autoscaler/core/static_autoscaler.go "
                     "listPods, utils/kubernetes/listers.go FilterOutPodsByScheduler")
KUBELET_SOURCE = kubelet_reserved.SOURCE


TEMPLATE_PREFIX = "k8s.io/cluster-autoscaler/node-template/"
TEMPLATE_PODS = 110  # aws_manager.go: "TODO: get a real value."
_EFFECTS = {"NO_SCHEDULE": "NoSchedule", "PREFER_NO_SCHEDULE": "PreferNoSchedule", "NO_EXECUTE": "NoExecute"}

# Which chart's device plugin advertises which resources (addons/device_plugins.py installs
# them), and where in the chart's values its DaemonSet's nodeSelector and tolerations sit.
DEVICE_PLUGINS: dict[str, tuple[str, tuple[str, ...]]] = {
    GPU_RESOURCE: ("nvidia-device-plugin", ()),
    NEURON_RESOURCE: ("oci://public.ecr.aws/neuron/neuron-helm-chart", ("devicePlugin",)),
    NEURONCORE_RESOURCE: ("oci://public.ecr.aws/neuron/neuron-helm-chart", ("devicePlugin",)),
    EFA_RESOURCE: ("aws-efa-k8s-device-plugin", ()),
}


def managed_groups(stack: Stack, accelerated_only: bool = True) -> list[ManagedGroup]:
    """The accelerated managed node groups of the stack (every group with ``accelerated_only`` off)."""
    groups = []
    for resource in stack.of_type(NODE_GROUP):
        props = resource.props
        labels = dict(props.get("labels") or {})
        instance = catalog.find((props.get("instanceTypes") or [""])[0])
        if instance is None or (accelerated_only and instance.accelerator is None):
            continue
        template = next(iter(stack.referenced(resource, "launchTemplate", LAUNCH_TEMPLATE)), None)
        subnet = next(iter(stack.referenced(resource, "subnetIds", SUBNET)), None)
        groups.append(ManagedGroup(
            resource=resource, name=labels.get(NODE_GROUP_LABEL, resource.name), instance=instance,
            min_size=int((props.get("scalingConfig") or {}).get("minSize", 0)), labels=labels,
            taints=[Taint(t["key"], t.get("value") or "", _EFFECTS[t["effect"]]) for t in props.get("taints") or []],
            asg_tags={t.props["tag"]["key"]: str(t.props["tag"]["value"])
                      for t in stack.referencing(resource, "autoscalingGroupName", AUTOSCALING_TAG)},
            zone=subnet.props.get("availabilityZone") if subnet else None,
            max_pods=_max_pods(template), efa_interfaces=_efa_interfaces(template)))
    return groups + described_groups(stack, accelerated_only)


def described_groups(stack: Stack, accelerated_only: bool = True) -> list[ManagedGroup]:
    """The groups of a cluster made elsewhere (``cluster.existing.ExistingNodeGroup``), as their facts say they
    are: their nodes are there, and no autoscaler of this stack's tags them."""
    groups = []
    for resource in stack.of_type(EXISTING_NODE_GROUP_COMPONENT):
        props = resource.props
        labels = dict(props.get("labels") or {})
        instance = catalog.find((props.get("instanceTypes") or [""])[0])
        if instance is None or (accelerated_only and instance.accelerator is None):
            continue
        groups.append(ManagedGroup(
            resource=resource, name=labels.get(NODE_GROUP_LABEL, resource.name), instance=instance,
            min_size=int((props.get("scalingConfig") or {}).get("minSize", 0)), labels=labels,
            taints=[Taint(t["key"], t.get("value") or "", _EFFECTS[t["effect"]]) for t in props.get("taints") or []],
            asg_tags={}, zone=props.get("zone"), max_pods=props.get("maxPods"),
            efa_interfaces=int(props.get("efaInterfaces") or 0)))
    return groups


def _max_pods(template: Resource | None) -> int | None:
    user_data = (template.props.get("userData") if template else None) or ""
    found = re.search(r"maxPods:\s*(\d+)", base64.b64decode(user_data).decode() if user_data else "")
    return int(found.group(1)) if found else None


def _efa_interfaces(template: Resource | None) -> int:
    interfaces = (template.props.get("networkInterfaces") if template else None) or []
    return sum(1 for i in interfaces if i.get("interfaceType") in ("efa", "efa-only"))


def template_node(group: ManagedGroup) -> Node:
    """The node the autoscaler imagines for ``group`` at zero (``buildNodeFromTemplate``)."""
    instance = group.instance
    vcpus = instance.require("vCPUs", instance.vcpus, "model the autoscaler's template node")
    memory_gib = instance.require("memory", instance.memory_gib, "model the autoscaler's template node")
    accelerator = instance.require("the accelerator", instance.accelerator, "model the autoscaler's template node")
    capacity: dict[str, Fraction] = {
        "pods": Fraction(TEMPLATE_PODS), "cpu": Fraction(vcpus), "memory": Fraction(memory_gib * 2**30),
        GPU_RESOURCE: Fraction(accelerator.count if accelerator.kind is AcceleratorKind.GPU else 0)}
    labels = {"kubernetes.io/arch": "arm64" if instance.arch == "arm64" else "amd64", "kubernetes.io/os": "linux",
              INSTANCE_TYPE_LABEL: instance.name}
    if group.zone:
        labels |= {REGION_LABEL: group.zone[:-1], ZONE_LABEL: group.zone,
                   "topology.ebs.csi.aws.com/zone": group.zone}
    taints = []
    for key, value in group.asg_tags.items():
        if not key.startswith(TEMPLATE_PREFIX):
            continue
        kind, _, name = key[len(TEMPLATE_PREFIX):].partition("/")
        if kind == "resources" and name:
            capacity[name] = quantity(value)
        elif kind == "label" and name:
            labels[name] = value
        elif kind == "taint" and name and re.fullmatch(r".*:(NoSchedule|NoExecute|PreferNoSchedule)", value):
            taint_value, effect = value.split(":", 1)
            taints.append(Taint(name, taint_value, effect))
    # The managed group's own labels win over the ASG's (joinNodeLabelsChoosingUserValuesOverAPIValues).
    return Node(f"{group.name} (template at zero)", labels | group.labels, taints + group.taints, capacity)


def running_node(group: ManagedGroup, plugins: dict[str, dict[str, Any]]) -> Node:
    """A node of ``group`` once it joined: allocatable after nodeadm's reservations, with the resources of
    the device plugins whose DaemonSet pod lands on it (``plugins``: chart name -> the release's values)."""
    instance = group.instance
    cpu_millicores, memory_mib = kubelet_reserved.allocatable(instance, "model the node's allocatable")
    accelerator = instance.accelerator
    default_max_pods = instance.require("max pods", instance.network.max_pods, "model the node's kube-reserved")
    hugepages = quantity(EFA_HUGEPAGES) if group.efa_interfaces else Fraction(0)
    allocatable: dict[str, Fraction] = {
        "pods": Fraction(group.max_pods or default_max_pods),
        "cpu": Fraction(cpu_millicores, 1000),
        "memory": Fraction(memory_mib * 2**20) - hugepages,
        HUGEPAGES_RESOURCE: hugepages,
    }
    devices = {name: accelerator.count for name in accelerator.resource_names[:1]} if accelerator else {}
    if accelerator and accelerator.neuron_cores:
        devices[NEURONCORE_RESOURCE] = accelerator.neuron_cores
    if accelerator or group.efa_interfaces:
        devices[EFA_RESOURCE] = group.efa_interfaces
    node = Node(f"{group.name} (running)", dict(group.labels), list(group.taints), allocatable)
    for name, count in devices.items():
        chart, path = DEVICE_PLUGINS[name]
        kept_off = daemons.kept_off(plugins, chart, path, node)
        if not kept_off:
            allocatable[name] = Fraction(count)
        elif count:
            node.notes.append(f"No {name} there: its device plugin ({chart}) {'; '.join(kept_off)}")
    return node


def _allowed_schedulers(values: dict[str, Any] | None) -> set[str]:
    """The schedulers whose pods the autoscaler considers; empty means all (``listPods``)."""
    flag = ((values or {}).get("extraArgs") or {}).get("allowed-scheduler-names")
    return {name for name in str(flag).split(",") if name} if flag else set()


def installed_charts(stack: Stack) -> dict[str, dict[str, Any]]:
    """Chart name -> values of every Helm release the stack installs (a chart released twice read as one:
    daemons.merged_values); a release of a device-plugin chart that runs no device plugin (GPU Feature Discovery
    alone) is left out, so it never stands in for the plugin's release."""
    return daemons.merged_values((chart_reference(str(r.props.get("chart"))), dict(r.props.get("values") or {}))
                                 for r in stack.of_type(HELM_RELEASE)
                                 if runs_device_plugin(str(r.props.get("chart")), dict(r.props.get("values") or {})))


def check(stack: Stack, jobs: Iterable[tuple[str, Any]]) -> list[Finding]:
    """Findings for every pod of ``jobs`` (``(job id, rendered document)``) on the group it selects.

    A pod selects a group by its ``trainstack.io/node-group`` label; pods that select none
    (an MPI launcher) and groups that are not EKS managed node groups (HyperPod) are not judged here."""
    groups = {g.name: g for g in managed_groups(stack)}
    pools = {g.name: g for g in pool_groups(stack)}
    plugins = installed_charts(stack)
    jobs = list(jobs)
    templates = dra.claim_templates(jobs)
    allowed = _allowed_schedulers(plugins.get("cluster-autoscaler"))
    findings = []
    for job_id, document in jobs:
        for pod in pod_specs(document):
            selected = (pod.get("nodeSelector") or {}).get(NODE_GROUP_LABEL, "")
            if selected in pools:
                findings += [Finding(CONTROLLER, f"{job_id} on {node.name}", _message(node, reasons), KUBELET_SOURCE)
                             for node in [running_node(pools[selected], plugins)]
                             for reasons in [unfit_reasons(pod, node)] if reasons]
                continue
            group = groups.get(selected)
            if group is None:
                continue
            scheduler = pod.get("schedulerName") or "default-scheduler"
            if allowed and scheduler not in allowed:
                findings.append(Finding(CONTROLLER, job_id, f"the autoscaler runs with --allowed-scheduler-names "
                                        f"{','.join(sorted(allowed))} and ignores this pod of scheduler {scheduler}: "
                                        "add it to the list or leave the flag unset.", SCHEDULERS_SOURCE))
            nodes = ([(template_node(group), SOURCE)] if group.min_size == 0 else []) + [
                (running_node(group, plugins), KUBELET_SOURCE)]
            for node, source in nodes:
                reasons = unfit_reasons(pod, node) + _claim_reasons(pod, group, node, plugins, templates)
                if reasons:
                    findings.append(Finding(CONTROLLER, f"{job_id} on {node.name}", _message(node, reasons), source))
    return findings


def check_dra_handling(stack: Stack) -> list[Finding]:
    """One finding per managed DRA group the autoscaler may resize (maxSize above minSize) where the stack's
    autoscaler release does not handle DRA: it would judge the group's claiming pods by CPU and memory alone."""
    release = next((r for r in stack.of_type(HELM_RELEASE)
                    if chart_reference(str(r.props.get("chart"))) == _AUTOSCALER_CHART), None)
    if release is None:
        return []
    version = str(release.props.get("version"))
    reasons = autoscaler_dra.missing(version, dict(release.props.get("values") or {}))
    if not reasons:
        return []
    handling = autoscaler_dra.BY_CHART_VERSION.get(version)
    findings = []
    for group in managed_groups(stack):
        scaling = group.resource.props.get("scalingConfig") or {}
        if (group.resource.type != NODE_GROUP or group.labels.get(DEVICE_ALLOCATION_LABEL) != "dra"
                or int(scaling.get("maxSize", 0)) <= group.min_size):
            continue
        findings.append(Finding(CONTROLLER, f"group {group.name}", (
            f"the Cluster Autoscaler (chart {version}) does not handle DRA: {'; '.join(reasons)}. It then judges "
            f"the group's pods, whose devices come through ResourceClaims, by CPU and memory alone: it adds no "
            f"node for their claims and may remove a node whose devices they hold. Set extraArgs "
            f"{autoscaler_dra.FLAG}: true and rbac.additionalRules granting "
            f"{', '.join(autoscaler_dra.VERBS)} on {', '.join(autoscaler_dra.RESOURCES)} in "
            f"{autoscaler_dra.API_GROUP} (cluster/autoscaler.py does), or set minSize to maxSize."),
            handling.source if handling else _DRA_SOURCE, urn=group.resource.urn))
    return findings


_AUTOSCALER_CHART = next(iter(CLUSTER_AUTOSCALER.values())).name
_DRA_SOURCE = "kubernetes/autoscaler cluster-autoscaler-1.34.1 cluster-autoscaler/config/flags/flags.go"


def published_devices(group: ManagedGroup, node: Node,
                      plugins: dict[str, dict[str, Any]]) -> tuple[dict[str, int], list[str]]:
    """The devices a DRA group's running ``node`` publishes (controllers/dra.py), and why a class is missing."""
    accelerator = group.instance.accelerator
    return dra.published(node, accelerator.count if accelerator else 0, accelerator.kind if accelerator else None,
                         group.efa_interfaces, plugins)


def _claim_reasons(pod: dict[str, Any], group: ManagedGroup, node: Node, plugins: dict[str, dict[str, Any]],
                   templates: dict[str, dict[str, Any]]) -> list[str]:
    """On a running node of a DRA group, why the pod's claims find no devices (controllers/dra.py); the
    template node at zero is not judged here: a DRA group keeps a node up (config/checks/device_allocation.py)."""
    if group.labels.get(DEVICE_ALLOCATION_LABEL) != "dra" or "template" in node.name:
        return []
    devices, notes = published_devices(group, node, plugins)
    node.notes.extend(note for note in notes if note not in node.notes)
    return dra.claim_reasons(pod, templates, devices)


def _message(node: Node, reasons: list[str]) -> str:
    what = ("the autoscaler never scales the group up for it: the pod stays Pending"
            if "template" in node.name else "the scheduler never places it on the group's nodes")
    return f"{what}; the pod {'; '.join(reasons)}." + "".join(f" {note}." for note in node.notes)
