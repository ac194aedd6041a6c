"""Switches for monitoring agents and job operators on EKS clusters."""

from __future__ import annotations

from typing import Optional

from pydantic import Field

from .base import ConfigModel


class ObservabilityConfig(ConfigModel):
    """Metrics and logs for the cluster."""

    container_insights: bool = True
    """The Amazon CloudWatch Observability add-on (Container Insights with GPU, Neuron and EFA metrics)."""
    dcgm_exporter: bool = True
    """NVIDIA DCGM exporter on GPU nodes (skipped where Container Insights already runs one)."""
    prometheus: bool = False
    """Prometheus and Grafana (kube-prometheus-stack) with the trainstack GPU dashboard."""
    neuron_monitor: bool = True
    """neuron-monitor on Trainium nodes (it comes with the CloudWatch Observability add-on)."""
    retention_days: int = Field(default=15, ge=1, le=3650)
    """Prometheus and Alertmanager retention."""
    prometheus_storage_gib: int = Field(default=100, ge=10, le=16384, alias="prometheusStorageGiB")
    """Prometheus's persistent volume (gp3, encrypted)."""


class OperatorsConfig(ConfigModel):
    """Job operators on the EKS cluster."""

    training_operator: bool = True
    """Kubeflow training operator v1 (PyTorchJob)."""
    trainer: bool = False
    """Kubeflow Trainer v2 (TrainJob with trainstack's torch ClusterTrainingRuntime), v1's successor;
    not together with trainingOperator."""
    mpi_operator: bool = False
    """Kubeflow MPI operator (MPIJob, used by Neuron jobs)."""
    etcd: bool = False
    """etcd for elastic PyTorchJob rendezvous."""
    kueue: bool = False
    """Kueue job queueing."""


class HelmChartsConfig(ConfigModel):
    """Where the Helm charts the stack installs come from."""

    directory: Optional[str] = Field(default=None, min_length=1)
    """A directory of charts pulled beforehand (``helm pull … --version <pin>``: ``<chart>-<version>.tgz``, or
    the chart's directory), for a cluster whose deploy cannot reach the chart repositories (air-gapped, a
    private mirror). Default: each chart's own repository. A chart missing there is an error at deploy."""


class CostConfig(ConfigModel):
    """Cost guard rails."""

    max_hourly_usd: float | None = Field(default=None, gt=0)
    """Ceiling on on-demand spend per hour with every group at maxSize; the policy pack enforces it."""
    max_monthly_increase_usd: float | None = Field(default=None, gt=0)
    """Ceiling on what a change may add to the monthly cost at desired size (730 hours, reserved capacity
    included); `trainstack diff`'s gate closes above it."""
