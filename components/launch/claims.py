"""Devices of a DRA group (``deviceAllocation: dra``) as a pod claims them: a ResourceClaimTemplate per group and
device count, a pod-level claim made from it, and containers that use the claim.

A pod on a device-plugin group requests ``nvidia.com/gpu`` and ``vpc.amazonaws.com/efa``; a pod on a DRA group
requests neither (no device plugin advertises them there) and instead names a ResourceClaimTemplate whose
requests count the devices: the GPUs or Neuron devices it uses and, as on device-plugin groups, every EFA
interface of the node, which also keeps one pod per node. The scheduler allocates a claim per pod from the node's
ResourceSlices.

A TrainJob's pods claim them through a TrainingRuntime of the job's own (``training_runtime``). Trainer v2.3.0 has
no other way: a TrainJob's ``runtimePatches`` cannot add pod-level claims (``PodSpecPatch`` has no
``resourceClaims``, ``pkg/apis/trainer/v1alpha1/trainjob_types.go``), and its ``resourcesPerNode`` replaces the
node container's resources with their limits and requests alone (``pkg/runtime/core/trainingruntime.go``: the
merged requirements are applied as limits and requests), dropping the container's claims. Seen so with the real
Trainer and JobSet: with ``resourcesPerNode`` the JobSet's node container has no ``claims`` and cannot use the
devices its pod holds; without it, the runtime's claims and resources reach the pods. So the job brings trainstack's
torch runtime (``catalog/torch_runtime.py``) as a TrainingRuntime named as the job, whose node pods claim the
group's devices and whose node container requests the whole node, and sets no ``resourcesPerNode``.

A TrainJob across instances of a P6e-GB200 UltraServer also needs an IMEX channel to reach the other instances'
GPUs over NVLink: the NVIDIA DRA driver hands one out through a ComputeDomain, "one per workload"
(``resource.nvidia.com/v1beta1``; kubernetes-sigs/dra-driver-nvidia-gpu ``api/nvidia.com/resource/v1beta1/
computedomain.go`` at v0.4.1, the pinned chart's version). The driver's controller makes the ResourceClaimTemplate
the ComputeDomain names, and the pods claim a channel from it. ``numNodes`` is 0: at v0.4.1 it is deprecated and,
with the IMEXDaemonsWithDNSNames feature gate on (its default there, ``pkg/featuregates/featuregates.go``), only
feeds the domain's status; the API's own comment recommends zero.

API: ``resource.k8s.io/v1`` (GA in Kubernetes 1.34): ``ResourceClaimTemplate.spec.spec.devices.requests[]``
with ``exactly: {deviceClassName, allocationMode: ExactCount, count}``; ``PodSpec.resourceClaims[]``
(``name``, ``resourceClaimTemplateName``) and ``ResourceRequirements.claims[]`` (``name``)
(kubernetes/api v0.34.0 ``resource/v1/types.go`` and ``core/v1/types.go``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..catalog import AcceleratorKind, neuron_dra
from ..catalog.device_allocation import EFA, GPU, NEURON, RESOURCE_API_VERSION
from ..catalog.torch_runtime import CHECK_RUNTIME, NODE, RESTARTS, torch_runtime
from ..catalog.ultraservers import needs_compute_domain
from ..outputs import AcceleratedGroup, StackOutputs
from .placement import DRA_CLAIM, LaunchError, group, resources

NEURON_REQUEST = "neurons"
"""A Neuron claim's request, named as the Neuron docs' templates name theirs."""


def is_dra(target: AcceleratedGroup) -> bool:
    return target.device_allocation == "dra"


def refuse_dra_on_the_training_operator(outputs: StackOutputs, target: AcceleratedGroup, group_name: str) -> None:
    """Found by the real kube-apiserver (tests/engines/test_admission.py) with the operator's own CRD: its
    PyTorchJob pod template schema predates the pod's resourceClaims[].resourceClaimTemplateName, so strict
    decoding refuses every PyTorchJob that claims devices. Asked before whether the stack runs the operator at all:
    on a DRA group the way to train is a TrainJob, whichever operator the stack runs
    (config/checks/job_operators.py)."""
    if not is_dra(target):
        return
    if outputs.operators.trainer_runtime is not None:
        instead = "launch a TrainJob (trainstack launch trainjob), whose pods claim them: this stack runs Trainer v2"
    else:
        instead = ("run Kubeflow Trainer v2 (set operators.trainer: true and operators.trainingOperator: false) and "
                   "launch a TrainJob (trainstack launch trainjob), whose pods claim them; or put the group on "
                   "deviceAllocation: device-plugins")
    raise LaunchError(f"group '{group_name}' hands out its devices through DRA (deviceAllocation: dra), and the "
                      "Kubeflow training operator v1.8.1's PyTorchJob refuses a pod that claims them (its CRD's pod "
                      f"schema has no resourceClaims[].resourceClaimTemplateName); {instead}.")


def refuse_dra(target: AcceleratedGroup, group_name: str, kind: str, instead: str) -> None:
    """Launchers that cannot yet hand a pod a ResourceClaim refuse a DRA group by name."""
    if is_dra(target):
        raise LaunchError(f"group '{group_name}' hands out its devices through DRA (deviceAllocation: dra), and "
                          f"trainstack's {kind} does not yet claim them; launch it with {instead}.")


def template_name(group_name: str, devices: int) -> str:
    """One template per group and device count, shared by every job that asks for the same."""
    return f"{group_name}-{devices}-devices"


def pod_claims(target: AcceleratedGroup, group_name: str, devices: int) -> dict[str, Any]:
    """The pod-spec keys that give a pod its claim (none on a device-plugin group)."""
    if not is_dra(target):
        return {}
    return {"resourceClaims": [{"name": DRA_CLAIM, "resourceClaimTemplateName": template_name(group_name, devices)}]}


def claim_template(target: AcceleratedGroup, group_name: str, devices: int, namespace: str | None) -> dict[str, Any]:
    """The ResourceClaimTemplate a pod of ``devices`` accelerators on the group names: the accelerators and, with
    EFA, every EFA interface of the node."""
    requests = [_accelerators(target, devices)]
    if target.efa_interfaces_per_node:
        requests.append({"name": "efa", "exactly": {"deviceClassName": EFA.device_class,
                                                    "allocationMode": "ExactCount",
                                                    "count": target.efa_interfaces_per_node}})
    claimed: dict[str, Any] = {"requests": requests}
    group = (neuron_dra.connected_group_attribute(devices, target.accelerators_per_node,
                                                  bool(target.efa_interfaces_per_node))
             if target.accelerator_kind == AcceleratorKind.NEURON.value else None)
    if group:
        # A part of a Trainium node: connected devices, as the Neuron scheduler extension gives device-plugin pods.
        claimed["constraints"] = [{"requests": [NEURON_REQUEST], "matchAttribute": group}]
    metadata = {"name": template_name(group_name, devices), **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": RESOURCE_API_VERSION, "kind": "ResourceClaimTemplate", "metadata": metadata,
            "spec": {"spec": {"devices": claimed}}}


def _accelerators(target: AcceleratedGroup, devices: int) -> dict[str, Any]:
    """The request for the accelerators: GPUs of the NVIDIA DRA driver, or Neuron devices of the Neuron DRA driver
    (its UltraServer node devices left out, catalog/neuron_dra.py)."""
    if target.accelerator_kind == AcceleratorKind.GPU.value:
        return {"name": "gpus", "exactly": {"deviceClassName": GPU.device_class, "allocationMode": "ExactCount",
                                            "count": devices}}
    return {"name": NEURON_REQUEST, "exactly": {
        "deviceClassName": NEURON.device_class, "allocationMode": "ExactCount", "count": devices,
        "selectors": [{"cel": {"expression": neuron_dra.DEVICE_SELECTOR}}]}}


def _claimed_templates(node: Any) -> Iterator[str]:
    """Every ``resourceClaimTemplateName`` in a rendered job, wherever its pod templates sit."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "resourceClaimTemplateName" and isinstance(value, str):
                yield value
            else:
                yield from _claimed_templates(value)
    elif isinstance(node, list):
        for item in node:
            yield from _claimed_templates(item)


RUNTIME_COPIED_FROM = "trainstack.io/runtime-copied-from"
"""The annotation on a TrainJob that brings its runtime: the cluster runtime its runtime copies (the check runtime's
JobSet never restarts, so a failed floor fails once)."""
COMPUTE_DOMAIN_API_VERSION = "resource.nvidia.com/v1beta1"
IMEX_CHANNEL = "imex-channel"
"""The claim a pod of a job across GB200 instances names for its IMEX channel."""


def needs_imex_channel(target: AcceleratedGroup, nodes: int) -> bool:
    """Whether a job of ``nodes`` nodes on the group spans an NVLink domain across instances (P6e-GB200)."""
    return is_dra(target) and nodes > 1 and needs_compute_domain(target.instance_type)


def channel_template_name(job_name: str) -> str:
    """The ResourceClaimTemplate the job's ComputeDomain has the driver make."""
    return f"{job_name}-{IMEX_CHANNEL}"


def compute_domain(job_name: str, namespace: str | None) -> dict[str, Any]:
    """The job's ComputeDomain, named as the job."""
    metadata = {"name": job_name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": COMPUTE_DOMAIN_API_VERSION, "kind": "ComputeDomain", "metadata": metadata,
            "spec": {"numNodes": 0, "channel": {"resourceClaimTemplate": {"name": channel_template_name(job_name)}}}}


def training_runtime(target: AcceleratedGroup, group_name: str, name: str, gpus: int, namespace: str | None,
                     imex_channel: bool = False, restarts: int = RESTARTS) -> dict[str, Any]:
    """The TrainingRuntime a TrainJob on a DRA group names: trainstack's torch runtime, its node pods claiming
    ``gpus`` GPUs (and every EFA interface) of their node, and with ``imex_channel`` the job's IMEX channel, its node
    container requesting the whole node."""
    runtime = torch_runtime(name, restarts, namespaced=True, namespace=namespace)
    node_job = next(job for job in runtime["spec"]["template"]["spec"]["replicatedJobs"] if job["name"] == NODE)
    pod = node_job["template"]["spec"]["template"]["spec"]
    pod.update(pod_claims(target, group_name, gpus))
    requested = resources(target, gpus)
    if imex_channel:
        pod["resourceClaims"].append({"name": IMEX_CHANNEL, "resourceClaimTemplateName": channel_template_name(name)})
        requested["claims"].append({"name": IMEX_CHANNEL})
    for container in pod["containers"]:
        if container["name"] == NODE:
            container["resources"] = requested
    return runtime


def _brought(target: AcceleratedGroup, group_name: str, job: dict[str, Any]) -> list[dict[str, Any]]:
    """What a TrainJob naming a runtime of its own brings: its ComputeDomain where it spans GB200 instances, then its
    TrainingRuntime (nothing for other jobs, or a TrainJob naming a cluster runtime)."""
    spec = job.get("spec", {})
    if job.get("kind") != "TrainJob" or spec.get("runtimeRef", {}).get("kind") != "TrainingRuntime":
        return []
    name, namespace = spec["runtimeRef"]["name"], job.get("metadata", {}).get("namespace")
    channel = needs_imex_channel(target, int(spec["trainer"]["numNodes"]))
    copied = job.get("metadata", {}).get("annotations", {}).get(RUNTIME_COPIED_FROM)
    runtime = training_runtime(target, group_name, name, int(spec["trainer"]["numProcPerNode"]), namespace, channel,
                               restarts=0 if copied == CHECK_RUNTIME else RESTARTS)
    return [compute_domain(name, namespace), runtime] if channel else [runtime]


def documents(outputs: StackOutputs, group_name: str, job: dict[str, Any]) -> list[dict[str, Any]]:
    """What to apply for a job on the group, in order: what a TrainJob brings (its ComputeDomain, its TrainingRuntime),
    the ResourceClaimTemplates its pods name, then the job itself (the job alone on a device-plugin group). All go
    in the job's namespace: claims are namespaced."""
    target = group(outputs, group_name)
    if not is_dra(target):
        return [job]
    brought = _brought(target, group_name, job)
    by_name = {template_name(group_name, n): n for n in range(1, target.accelerators_per_node + 1)}
    # A ComputeDomain's channel template is made by the NVIDIA DRA driver's controller, not applied with the job.
    channels = {channel_template_name(d["metadata"]["name"]) for d in brought if d["kind"] == "ComputeDomain"}
    named = sorted(set(_claimed_templates([*brought, job])) - channels)
    unknown = [name for name in named if name not in by_name]
    if unknown:
        raise LaunchError(f"the job names ResourceClaimTemplates {', '.join(unknown)}, which group '{group_name}' "
                          "does not make.")
    namespace = job.get("metadata", {}).get("namespace")
    return [*brought, *(claim_template(target, group_name, by_name[name], namespace) for name in named), job]
