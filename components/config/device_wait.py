"""A deploy that is done when the nodes are usable (``trainstack:deviceWait``): what ``trainstack up`` waits for.

After the engine has made the node groups and the device plugins (or DRA drivers), ``trainstack up`` reads the
cluster's Nodes (and, on DRA groups, ResourceSlices) until every accelerated node shows the devices the catalog
says its instance type has, or the timeout passes; a node short of a device fails the deploy, naming the node and
the device (``preflight/devices.py``). This module says what to wait for, from the config and the catalog alone,
so the offline plan shows the wait (its ``deviceWait`` section) and its timeout before anything is deployed.

Why the wait runs in ``trainstack up`` and not as a Job the provider awaits: docs/adr/0014-device-wait-after-up.md.
Off unless the stack sets the key, so the records of the stacks that do not are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import Field

from .. import catalog
from ..catalog import EFA_RESOURCE, AcceleratorKind
from ..catalog.device_allocation import EFA, accelerator_device
from ..catalog.interconnect import GPU_PEER_LINKS
from ..names import NODE_GROUP_LABEL
from .base import ConfigModel
from .hyperpod import HyperPodConfig
from .nodegroups import NodeGroupConfig

DEVICE_WAIT_KEY = "deviceWait"

FABRIC_MANAGER_UNCHECKED = (
    "not checked by the wait: NVIDIA Fabric Manager, which sets up the NVLink fabric of NVSwitch systems, is a host "
    "service (nvidia-fabricmanager), and neither the NVIDIA device plugin nor the DRA driver reports it through the "
    "Kubernetes API; the device check (trainstack launch device-check) reads each GPU's fabric registration from "
    "inside its pod on Hopper and later GPUs")
"""What the wait says of the fabric manager on an NVSwitch type: nothing the API server holds shows it. NVIDIA Fabric
Manager User Guide (https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html, read 2026-11-26):
Fabric Manager is set up for "NVSwitch-based single-node HGX and DGX systems" and runs as the
``nvidia-fabricmanager`` service (Managing Fabric Manager Service).

The validation job checks it from inside its pod: each GPU's ``fabric.state`` and ``fabric.status`` through
``nvidia-smi --query-gpu`` (its own ``--help-query-gpu``: "Current state of GPU fabric registration process", and the
status "valid only if gpu fabric registration state is completed"), which NVML reports for "Hopper or newer" (NVML API
Reference, Fabric definitions, https://docs.nvidia.com/deploy/nvml-api/group__nvmlFabricDefs.html, read 2026-11-26).
Seen on a 4 x H200 host, driver 580.159.04: "Completed, Success" for each GPU (docs/validation/
nvidia-smi-fabric-h200.txt). A100 types (p4d, p4de) predate the API and stay unchecked
(``catalog.interconnect.reports_fabric_registration``)."""


HYPERPOD_NOT_WAITED = (
    "not waited for: HyperPod checks the instances it launches itself (its deep health checks count the GPUs and "
    "NVLinks, or the Neuron devices, and its health-monitoring agent watches them after) and labels each node "
    "sagemaker.amazonaws.com/node-health-status=Schedulable once it passes; node recovery reboots or replaces one "
    "that fails")
"""What the wait says of a HyperPod cluster's EKS workers. SageMaker HyperPod EKS deep health checks
(https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-resiliency-deep-health-checks.html) and its
resilience node labels (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-resiliency-node-labels.html),
read 2026-11-27. The wait could read their devices as it reads a node group's, but HyperPod already gates the nodes on
a deeper check than a count, and reading them twice would say less than its label does; so they are named, not
silently passed over."""


class DeviceWait(ConfigModel):
    """Wait, after ``trainstack up`` has deployed, until every accelerated node shows its devices; set it to turn
    the wait on. A node still short of a GPU, Neuron device or EFA interface when the timeout passes fails the
    deploy, naming the node and the device."""

    timeout_minutes: int = Field(default=20, ge=1, le=240)
    """How long to wait for every node of every accelerated group to show its devices."""
    poll_seconds: int = Field(default=15, ge=1, le=300)
    """How often to read the nodes again while waiting."""


@dataclass(frozen=True)
class DeviceNeed:
    """What every node of one accelerated group must show before the deploy is done."""

    group: str
    instance_type: str
    allocation: Literal["device-plugins", "dra"]
    devices: dict[str, int]
    """Device-plugin groups: extended resource -> count in the node's allocatable. DRA groups: DRA driver ->
    devices that driver publishes for the node in ResourceSlices."""
    nodes: int
    """Nodes to wait for: the group's desired size (a group at zero has none to wait for)."""
    node_selector: dict[str, str] = field(default_factory=dict)
    fabric_manager: str = ""
    """On NVSwitch types, what the wait says of the fabric manager; empty elsewhere."""

    def as_dict(self) -> dict[str, Any]:
        return {"group": self.group, "instanceType": self.instance_type, "allocation": self.allocation,
                "devices": dict(self.devices), "nodes": self.nodes,
                **({"fabricManager": self.fabric_manager} if self.fabric_manager else {})}


def device_needs(groups: list[NodeGroupConfig]) -> list[DeviceNeed]:
    """Each accelerated group's devices per node, from the catalog: its accelerators and, with EFA, the EFA
    interfaces its launch template attaches (``efa_interfaces_per_node``)."""
    return [_need(group) for group in groups]


def _need(group: NodeGroupConfig) -> DeviceNeed:
    efa = group.efa_interfaces_per_node if group.efa_enabled else 0
    nodes = 0 if group.autoscaler == "karpenter" else group.desired_size
    return DeviceNeed(group.name, group.instance_type, group.device_allocation,
                      group_devices(group.device_allocation, group.instance_type, efa), nodes,
                      {NODE_GROUP_LABEL: group.name}, fabric_manager_note(group.instance_type))


def hyperpod_groups_not_waited(hyperpod: HyperPodConfig | None) -> tuple[str, ...]:
    """The HyperPod worker groups that join the stack's EKS cluster as nodes, which the wait does not read
    (``HYPERPOD_NOT_WAITED`` says why): ``gpu (ml.p5.48xlarge, 2 instances)``. None under Slurm, where no worker
    joins the cluster."""
    if hyperpod is None or hyperpod.orchestrator != "eks":
        return ()
    return tuple(f"{group.name} ({group.instance_type}, {group.count} instance{'s' if group.count != 1 else ''})"
                 for group in hyperpod.workers)


def group_devices(allocation: Literal["device-plugins", "dra"], instance_type: str, efa_interfaces: int
                  ) -> dict[str, int]:
    """What each node of a group of ``instance_type`` must show: its accelerators (catalog) and its
    ``efa_interfaces`` (0: none), as extended resources (device plugins) or per DRA driver (``dra``). The one
    derivation for the config's groups (``device_needs``) and the outputs' (``preflight nodes``)."""
    instance = catalog.get(instance_type)
    accelerator = instance.require("the accelerator", instance.accelerator, "check an accelerated group's devices")
    if allocation == "dra":
        return {accelerator_device(accelerator.kind).driver: accelerator.count,
                **({EFA.driver: efa_interfaces} if efa_interfaces else {})}
    return {accelerator.resource_names[0]: accelerator.count,
            **({EFA_RESOURCE: efa_interfaces} if efa_interfaces else {})}


def fabric_manager_note(instance_type: str) -> str:
    """On NVSwitch types, what the wait says of the fabric manager; empty elsewhere."""
    return FABRIC_MANAGER_UNCHECKED if nvswitch(instance_type) else ""


def nvswitch(instance_type: str) -> bool:
    """GPUs joined by NVSwitch (catalog/interconnect.py), which need the fabric manager running to start."""
    accelerator = catalog.get(instance_type).accelerator
    link = GPU_PEER_LINKS.get(accelerator.name) if accelerator and accelerator.kind is AcceleratorKind.GPU else None
    return link is not None and "NVSwitch" in link.link


@dataclass(frozen=True)
class DeviceWaitPlan:
    """The plan's ``deviceWait`` section: the wait ``trainstack up`` will do, and its timeout."""

    settings: DeviceWait
    needs: tuple[DeviceNeed, ...]
    hyperpod_groups: tuple[str, ...] = ()
    """HyperPod worker groups in the cluster that the wait does not read (``hyperpod_groups_not_waited``)."""

    @property
    def key(self) -> str:
        return DEVICE_WAIT_KEY

    def as_dict(self) -> dict[str, Any]:
        return {"timeoutMinutes": self.settings.timeout_minutes, "pollSeconds": self.settings.poll_seconds,
                "groups": [need.as_dict() for need in self.needs],
                **({"hyperPodGroupsNotWaited": {"groups": list(self.hyperpod_groups), "why": HYPERPOD_NOT_WAITED}}
                   if self.hyperpod_groups else {})}

    def render(self) -> str:
        lines = [f"Device wait: after up, until every accelerated node shows its devices (timeout "
                 f"{self.settings.timeout_minutes} min, read every {self.settings.poll_seconds} s)"]
        for need in self.needs:
            where = "allocatable" if need.allocation == "device-plugins" else "ResourceSlices (DRA)"
            devices = ", ".join(f"{count} {name}" for name, count in need.devices.items())
            lines.append(f"  {need.group} ({need.instance_type}, {need.nodes} nodes): {devices} in {where}")
            if need.fabric_manager:
                lines.append(f"    fabric manager: {need.fabric_manager}")
        if self.hyperpod_groups:
            lines.append(f"  HyperPod {', '.join(self.hyperpod_groups)}: {HYPERPOD_NOT_WAITED}")
        return "\n".join(lines)
