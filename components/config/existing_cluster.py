"""An EKS cluster trainstack did not make (eksctl, Terraform, a platform group's own): trainstack adds
only its Kubernetes layer there (device plugins, operators, Kueue, Trainer runtimes, storage classes,
the file system's volumes, dashboards), and no AWS resource at all.

What trainstack cannot discover offline it is told here and in the stack's other blocks:
``nodeGroups`` describe the cluster's accelerated groups as they are (instance type, sizes, zone,
capacity, extra labels and taints), ``network.existingVpc`` the VPC the cluster runs in, and
``existingCluster.fileSystem`` the FSx for Lustre file system to mount. The groups' nodes must carry
the labels and taints a trainstack group would (``trainstack.io/node-group: <name>``, the device
``.present`` label, the accelerator taint; the system nodes ``trainstack.io/node-group: system``),
which an EKS managed node group changes in place: the outputs contract's ``acceleratedGroups`` give
the selector and tolerations jobs use, and the device plugins select the ``.present`` labels.
"""

from __future__ import annotations

from typing import Optional

from pydantic import Field, field_validator

from .base import ConfigModel
from .cluster import DEFAULT_EKS_VERSION, EKS_VERSIONS, SystemNodesConfig, version_refusal

K8S_NAME = r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"


class ExistingFileSystem(ConfigModel):
    """An FSx for Lustre file system that exists: mounted through a static volume and a claim
    (the FSx CSI driver must run on the cluster), never created, changed or deleted here."""

    id: str = Field(pattern=r"^fs-[0-9a-f]{8,17}$")
    """The file system id (``fs-0123456789abcdef0``)."""
    dns_name: str = Field(pattern=r"^fs-[0-9a-f]{8,17}\.fsx\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$")
    """Its DNS name (``fs-….fsx.<region>.amazonaws.com``)."""
    mount_name: str = Field(pattern=r"^[a-z0-9]{8}$|^fsx$")
    """Its mount name (eight characters; ``fsx`` for SCRATCH_1)."""
    storage_capacity_gib: int = Field(alias="storageCapacityGiB", ge=1200)
    """Its capacity, for the volume and claim (the CSI driver does not enforce it on static volumes)."""
    throughput_mbps: int = Field(alias="throughputMBps", ge=1)
    """Its aggregate throughput in MB/s (the console's "Throughput capacity"; capacity in TiB times the
    per-unit throughput for PERSISTENT_2 SSD), for the checkpoint write estimate jobs read from the outputs."""
    claim_name: str = Field(default="fsx-claim", pattern=K8S_NAME)
    """The claim jobs mount by name."""
    namespace: str = Field(default="default", pattern=K8S_NAME)
    """The namespace of the claim (where training jobs run)."""
    mount_path: str = Field(default="/fsx", pattern=r"^/")
    """Where jobs mount the file system."""


class ExistingClusterConfig(ConfigModel):
    """The cluster to add the Kubernetes layer to, and how to reach it."""

    name: str = Field(pattern=r"^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$")
    """The EKS cluster's name (outputs, the kubeconfig built from ``endpoint``)."""
    kubeconfig: Optional[str] = Field(default=None, min_length=1)
    """A kubeconfig file to reach the cluster with (``~`` expands; read at deploy time, stored as a
    secret). Either this or ``endpoint`` and ``certificateAuthority``."""
    context: Optional[str] = Field(default=None, min_length=1)
    """The kubeconfig's context to use. Default: its current context."""
    endpoint: Optional[str] = Field(default=None, pattern=r"^https://")
    """The API server's URL (``aws eks describe-cluster --query cluster.endpoint``); the kubeconfig is
    then built with ``aws eks get-token`` authentication, as ``aws eks update-kubeconfig`` writes it."""
    certificate_authority: Optional[str] = Field(default=None, min_length=1)
    """The cluster's certificate authority data, base64 (``cluster.certificateAuthority.data``)."""
    version: str = DEFAULT_EKS_VERSION
    """The cluster's Kubernetes minor version (the Neuron scheduler runs the release of the same minor)."""
    system_nodes: SystemNodesConfig = SystemNodesConfig()
    """The cluster's nodes for cluster services, as they are (labelled ``trainstack.io/node-group: system``):
    operators, the autoscaler's and Kueue's controllers and MPI launchers run there."""
    install_device_plugins: bool = True
    """Install the NVIDIA, Neuron and EFA device plugins for the groups' devices. Set false where the
    cluster already runs them (a GPU operator, a platform group's own releases): two plugins would
    advertise the same devices twice."""
    file_system: Optional[ExistingFileSystem] = None
    """The FSx for Lustre file system jobs mount; omit for none."""

    @field_validator("version")
    @classmethod
    def _version(cls, version: str) -> str:
        if version not in EKS_VERSIONS:
            raise version_refusal(version)
        return version
