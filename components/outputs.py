"""The outputs contract: what every stack exports for job launchers.

One typed, versioned structure under the stack output ``trainstack`` (the
kubeconfig, a secret, is the separate output ``kubeconfig``). Launchers read it
from ``pulumi stack output --json`` or a StackReference and refuse a contract
version they do not know, rather than guess at renamed fields.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from .boundary import cut

if TYPE_CHECKING:
    import pulumi

CONTRACT_VERSION = 2
READABLE_VERSIONS = (1, 2)
"""Versions this library reads. Version 2 added ``datasets`` (Mountpoint for S3 claims); a version 1
document has none and reads as an empty list. Why: docs/adr/0008-outputs-contract-versions.md"""
OUTPUT_NAME = "trainstack"
KUBECONFIG_OUTPUT = "kubeconfig"


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True, validate_by_alias=True,
                              extra="forbid")


class Toleration(_Model):
    key: str
    operator: Literal["Exists", "Equal"] = "Exists"
    value: Optional[str] = None
    effect: str = "NoSchedule"


class AcceleratedGroup(_Model):
    instance_type: str
    accelerator_kind: Literal["nvidia-gpu", "neuron"]
    accelerator_resource: str
    """``nvidia.com/gpu`` or ``aws.amazon.com/neuron``."""
    accelerators_per_node: int
    neuron_cores_per_node: Optional[int] = None
    efa_interfaces_per_node: int
    """EFA interfaces each node advertises as ``vpc.amazonaws.com/efa``."""
    memory_gib_per_node: int
    vcpus_per_node: int
    node_selector: dict[str, str]
    tolerations: list[Toleration]
    max_nodes: int
    zone: str
    scheduler_name: Optional[str] = None
    """Neuron pods use the Neuron scheduler extension's scheduler."""
    auto_repair: bool = False
    """EKS node auto repair replaces or reboots the group's unhealthy nodes."""
    device_allocation: Literal["device-plugins", "dra"] = "device-plugins"
    """How jobs claim the group's devices: extended resources (``device-plugins``) or ResourceClaims from
    ResourceClaimTemplates (``dra``; absent from the outputs of groups on device plugins)."""
    capacity_type: Literal["none", "reservation", "capacityBlock"] = "none"
    capacity_ends_at: Optional[str] = None
    """When the group's capacity block (or reservation) ends, UTC, ISO 8601 (``2026-12-01T11:30:00Z``).
    EKS scales a capacity block group to zero 40 minutes before; EC2 terminates from 30 minutes before."""
    capacity_wind_down_at: Optional[str] = None
    """Capacity blocks: when trainstack holds the block's queues and signals its pods (``endsAt`` minus
    ``capacity.endLeadMinutes``), UTC; a job launched with ``--duration`` must finish before it. Absent for
    other groups."""


class Cluster(_Model):
    name: str
    endpoint: str
    node_monitoring_agent: bool = False
    """The EKS node monitoring agent sets node health conditions on the accelerated groups."""


class Storage(_Model):
    claim_name: Optional[str]
    """The PersistentVolumeClaim on EKS (None without EKS)."""
    namespace: Optional[str]
    team_namespaces: list[str] = []
    """Other namespaces holding a claim of the same name on the same file system (the teams' where
    they differ from ``namespace``); absent from stacks with one job namespace."""
    mount_path: str
    dns_name: str
    mount_name: str
    file_system_id: str
    throughput_mbps: int = Field(alias="throughputMBps")

    @property
    def claim_namespaces(self) -> list[str]:
        """Every namespace where a job can mount the claim (none without EKS)."""
        return [self.namespace, *self.team_namespaces] if self.claim_name and self.namespace else []


class Dataset(_Model):
    """An S3 bucket or prefix mounted by Mountpoint for S3 (contract version 2)."""
    name: str
    claim_name: str
    """The PersistentVolumeClaim, in the namespace of the FSx claim (or ``default``)."""
    mount_path: str
    bucket: str
    prefix: Optional[str] = None
    read_only: bool = True
    namespaces: list[str] = []
    """On a stack with teams, the namespaces that hold its claim: those of the teams given it
    (``datasets[].teams``). Empty on other stacks: every namespace jobs run in holds it."""


class HyperPodGroup(_Model):
    name: str
    instance_type: str
    count: int
    accelerators_per_node: int = 0
    accelerator_resource: Optional[str] = None
    """``nvidia.com/gpu`` or ``aws.amazon.com/neuron``; None for CPU groups."""
    efa_interfaces_per_node: int = 0
    memory_gib_per_node: Optional[int] = None


class HyperPod(_Model):
    cluster_name: str
    cluster_arn: str
    orchestrator: Literal["slurm", "eks"]
    partitions: dict[str, str]
    """Slurm partition per worker group."""
    ssm_target_prefixes: dict[str, str]
    instance_groups: list[HyperPodGroup]
    node_recovery: Literal["Automatic", "None"] = "Automatic"
    """Automatic: HyperPod reboots or replaces faulty nodes; None: it only labels them."""
    training_operator: bool = False
    """The HyperPod training operator add-on runs on the EKS cluster."""
    task_governance: bool = False


class Operators(_Model):
    training_operator: bool = False
    trainer_runtime: Optional[str] = None
    """The torch ClusterTrainingRuntime TrainJobs name, when Kubeflow Trainer v2 runs."""
    trainer_check_runtime: Optional[str] = None
    """The runtime checks with a verdict (the all-reduce) name: the same pods, never restarted."""
    trainer_mpi_runtime: Optional[str] = None
    """The Open MPI ClusterTrainingRuntime TrainJobs on Neuron groups name (stacks with Neuron groups)."""
    trainer_mpi_image: Optional[str] = None
    """The image that runtime's pods run (a TrainJob cannot set its node pods' image)."""
    mpi_operator: bool = False
    etcd_endpoint: Optional[str] = None
    """``host:port`` of the etcd for elastic rendezvous, when installed."""


class QueueQuota(_Model):
    guaranteed_nodes: int
    """Nodes of the group the team's ClusterQueue holds as its own."""
    max_nodes: int
    """The most nodes of the group one job of the team can be admitted on: the group's owned
    nodes when the team borrows from its cohort, else its guarantee."""
    max_resources: dict[str, int]
    """``max_nodes`` in the Kueue resources the quota counts (accelerators, EFA interfaces)."""


class Queue(_Model):
    namespace: str
    local_queue: str
    """What a job names in its ``kueue.x-k8s.io/queue-name`` label."""
    cluster_queue: str
    cohort: str
    borrowing: bool
    quotas: dict[str, QueueQuota]
    """Per accelerated group the queue may use."""
    service_account: Optional[str] = None
    """The ServiceAccount the team's jobs run as, in its namespace: its Pod Identity role holds the team's data
    (tenancy/). Absent from outputs written before teams were tenants; the launchers then name none."""
    checkpoint_prefix: Optional[str] = None
    """Where in the checkpoint bucket the team may write (``teams/<team>/``)."""


class Scheduling(_Model):
    """Kueue queues and quotas (stacks with ``scheduling``); absent otherwise."""

    queues: dict[str, Queue]
    """Per team."""
    topology_levels: dict[str, list[str]] = {}
    """Per group placed by network topology: its node labels, top layer first."""
    priority_classes: list[str] = []
    pods_ready_timeout_minutes: int


class StackOutputs(_Model):
    contract_version: int
    stack: str
    region: str
    profile: Literal["dev", "production"]
    cluster: Optional[Cluster] = None
    kubeconfig_output: str = KUBECONFIG_OUTPUT
    accelerated_groups: dict[str, AcceleratedGroup] = {}
    storage: Optional[Storage] = None
    datasets: list[Dataset] = []
    image_repository: Optional[str] = None
    checkpoint_bucket: Optional[str] = None
    hyperpod: Optional[HyperPod] = None
    operators: Operators = Operators()
    scheduling: Optional[Scheduling] = None


class ContractError(ValueError):
    """The outputs are not a trainstack contract this version of the library reads."""


def parse_outputs(document: dict[str, Any]) -> StackOutputs:
    """Read the contract from ``pulumi stack output --json`` (or its ``trainstack`` value)."""
    contract = document.get(OUTPUT_NAME, document) if isinstance(document, dict) else None
    if not isinstance(contract, dict) or "contractVersion" not in contract:
        raise ContractError(f"no trainstack outputs here: expected the '{OUTPUT_NAME}' stack output "
                            "(pulumi stack output --json).")
    version = contract["contractVersion"]
    # A StackReference hands numbers over as floats (1.0).
    if isinstance(version, bool) or not isinstance(version, (int, float)) or not math.isfinite(version) \
            or version != int(version):
        raise ContractError(f"contractVersion is {cut(version)}, not a version number; read the outputs with "
                            "`pulumi stack output --json`.")
    if version not in READABLE_VERSIONS:
        raise ContractError(
            f"the stack exports outputs contract version {version}; this trainstack reads versions "
            f"{' and '.join(map(str, READABLE_VERSIONS))}. Fix: "
            + ("`pulumi up` the stack with this trainstack version." if version < min(READABLE_VERSIONS)
               else "upgrade trainstack."))
    try:
        return StackOutputs.model_validate(contract)
    except ValidationError as error:
        first = error.errors()[0]
        raise ContractError(f"the outputs do not match contract version {CONTRACT_VERSION}: "
                            f"{cut('.'.join(map(str, first['loc'])))}: {cut(first['msg'])}") from None


def outputs_from_stack_reference(stack_name: str) -> pulumi.Output[StackOutputs]:
    """The contract of another stack, for a Pulumi program: ``Output[StackOutputs]``.

        outputs = outputs_from_stack_reference("org/trainstack/fsdp-p5")
        job = outputs.apply(lambda o: render_pytorchjob(o, ...))
    """
    import pulumi

    reference = pulumi.StackReference(stack_name)
    return reference.require_output(OUTPUT_NAME).apply(lambda contract: parse_outputs({OUTPUT_NAME: contract}))
