"""SageMaker HyperPod: instance groups, Slurm partitions, lifecycle options."""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import Field, field_validator, model_validator

from .. import catalog
from .base import ConfigModel, ConfigValueError

GROUP_NAME = r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$"


def _hyperpod_kinds() -> str:
    """The families of the catalog's HyperPod types."""
    return "families " + ", ".join(catalog.families(t for t in catalog.INSTANCE_TYPES if t.hyperpod))


class InstanceGroupConfig(ConfigModel):
    """A HyperPod instance group."""

    name: str = Field(pattern=GROUP_NAME)
    """Instance group name (letters, digits, dashes)."""
    instance_type: str
    """A HyperPod ``ml.`` type, e.g. ml.c5.xlarge or ml.p5.48xlarge."""
    count: int = Field(ge=1)
    """Instances in the group (at least 1)."""
    threads_per_core: Literal[1, 2] = 1
    """1 disables hyperthreading (the usual choice for training)."""
    ebs_volume_gib: Optional[int] = Field(default=None, alias="ebsVolumeGiB", ge=1, le=16384)
    """Extra EBS volume per instance, mounted at /opt/sagemaker."""
    deep_health_checks: list[Literal["InstanceStress", "InstanceConnectivity"]] = []
    """Deep health checks run when instances start (GPU and Trainium groups)."""
    training_plan_arn: Optional[str] = Field(default=None, pattern=r"^arn:aws[-a-z]*:sagemaker:.*:training-plan/")
    """A SageMaker training plan that reserves this group's capacity."""
    offering_unchecked: Optional[str] = Field(default=None, min_length=1)
    """Why this group's instance type is offered where the catalog's offering data says it is not (AWS
    began offering it after the data was generated). With a reason here, validation does not check
    the offering; ``trainstack preflight`` still asks the account."""

    @field_validator("instance_type")
    @classmethod
    def _hyperpod_type(cls, value: str) -> str:
        valid = catalog.hyperpod_names()
        if value not in valid:
            close = catalog.close_matches(value, valid)
            raise ConfigValueError(
                f"'{value}' is not a SageMaker HyperPod instance type"
                + (" (HyperPod types start with 'ml.')" if not value.startswith(catalog.HYPERPOD_PREFIX) else "") + ".",
                fix=f"use {' or '.join(close)}." if close else f"use an ml. type HyperPod lists ({_hyperpod_kinds()}).")
        return value


class WorkerGroupConfig(InstanceGroupConfig):
    """A HyperPod worker instance group."""

    partition: Optional[str] = Field(default=None, pattern=r"^[a-zA-Z0-9_-]{1,64}$")
    """The Slurm partition of this group (one per group). Default: the group name."""

    @property
    def slurm_partition(self) -> str:
        """The group's Slurm partition: as given, else the group name."""
        return self.partition or self.name


class PosixUser(ConfigModel):
    """A POSIX user created on every node."""

    name: str = Field(pattern=r"^[a-z_][a-z0-9_-]{0,31}$")
    """User name (lower case, at most 32 characters)."""
    uid: int = Field(ge=2000, le=60000)
    """The same uid on every node (home directories live on the shared file system)."""


class HyperPodConfig(ConfigModel):
    """A SageMaker HyperPod cluster: instance groups, lifecycle scripts, execution role."""

    orchestrator: Literal["slurm", "eks"] = "slurm"
    """Slurm, or the stack's EKS cluster."""
    cluster_name: str = Field(pattern=GROUP_NAME)
    """HyperPod cluster name (letters, digits, dashes)."""
    controller: Optional[InstanceGroupConfig] = None
    """Slurm controller group (exactly one instance); Slurm only."""
    login: Optional[InstanceGroupConfig] = None
    """Optional Slurm login group."""
    workers: list[WorkerGroupConfig] = Field(min_length=1)
    """Worker instance groups (at least one)."""
    node_recovery: Literal["Automatic", "None"] = "Automatic"
    """Automatic: HyperPod reboots or replaces a node its health checks find faulty.
    None: it only labels the node, and someone must act (BatchReplaceClusterNodes)."""
    training_operator: bool = False
    """EKS orchestration: the HyperPod training operator add-on (HyperPodPyTorchJob), with the
    cert-manager add-on it needs and its IAM through Pod Identity."""
    task_governance: bool = False
    """EKS orchestration: the HyperPod task governance add-on (Kueue-based quotas and priorities)."""
    ssh_public_key: Optional[str] = Field(default=None, pattern=r"^(ssh-(ed25519|rsa)|ecdsa-sha2-nistp\d+) ")
    """A public key installed for the default user, for access through a bastion."""
    users: list[PosixUser] = []
    """Users created on every node by the lifecycle script."""
    zone: Optional[str] = Field(default=None, pattern=r"^[a-z]{2}(-[a-z]+)+-\d+[a-z]$")
    """The one zone of the cluster (EFA does not cross zones). Default: FSx's zone, else the first zone."""

    @model_validator(mode="before")
    @classmethod
    def _retired_keys(cls, data: Any) -> Any:
        # A promise the program once trusted; it now reads the cluster instead, so the key would say
        # something nothing reads (and an unknown key's did-you-mean would not say why it went).
        if isinstance(data, dict) and "dependenciesChartInstalled" in data:
            raise ConfigValueError(
                "dependenciesChartInstalled is no longer read: pulumi up now reads the EKS cluster for HyperPod's "
                "dependencies chart before it creates the HyperPod cluster, and stops with the install command "
                "while the chart is missing.", fix="remove the key.", path=("dependenciesChartInstalled",),
                value=data["dependenciesChartInstalled"])
        return data

    @property
    def groups(self) -> list[InstanceGroupConfig]:
        return [g for g in (self.controller, self.login) if g is not None] + list(self.workers)
