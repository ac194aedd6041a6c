"""HyperPod instance groups, rendered from the one ``hyperpod`` config block.

Group names, Slurm node types and partitions all come from the same list, so
the names that cluster-config.json and provisioning_parameters.json had to keep
in agreement by hand cannot drift apart here. Slurm is configured through the
API (``SlurmConfig`` per group, FSx through ``InstanceStorageConfigs``); no
provisioning_parameters.json is written, as the API expresses everything
trainstack sets.
"""

from __future__ import annotations

from typing import Any, Optional

import pulumi

from .. import catalog
from ..catalog import AcceleratorKind
from ..config import HyperPodConfig, InstanceGroupConfig, WorkerGroupConfig
from ..names import EFA_PRESENT_LABEL, GPU_PRESENT_LABEL, NEURON_PRESENT_LABEL, NODE_GROUP_LABEL
from .lifecycle import ENTRYPOINT


def render_instance_groups(settings: HyperPodConfig, *, execution_role_arn: pulumi.Input[str],
                           lifecycle_uri: Optional[pulumi.Input[str]], fsx_mount: Optional[dict]) -> list[dict]:
    groups = []
    roles = ([("Controller", settings.controller)] if settings.controller else []) + (
        [("Login", settings.login)] if settings.login else []) + [("Compute", w) for w in settings.workers]
    for node_type, group in roles:
        rendered: dict[str, Any] = {
            "instance_group_name": group.name,
            "instance_type": group.instance_type,
            "instance_count": group.count,
            "execution_role": execution_role_arn,
            "threads_per_core": group.threads_per_core,
            "instance_storage_configs": _storage(group, fsx_mount),
        }
        if lifecycle_uri is not None:
            # OnInitComplete runs after HyperPod's own setup (Slurm, FSx); OnCreate would make
            # the script own the whole node setup.
            rendered["life_cycle_config"] = {"source_s3_uri": lifecycle_uri, "on_init_complete": ENTRYPOINT}
        if settings.orchestrator == "slurm":
            rendered["slurm_config"] = {"node_type": node_type}
            if isinstance(group, WorkerGroupConfig):  # the Compute groups
                rendered["slurm_config"]["partition_names"] = [group.slurm_partition]
        else:
            rendered["kubernetes_config"] = {"labels": _accelerator_labels(group)}
        if group.deep_health_checks:
            rendered["on_start_deep_health_checks"] = list(group.deep_health_checks)
        if group.training_plan_arn:
            rendered["training_plan_arn"] = group.training_plan_arn
        groups.append(rendered)
    return groups


def _storage(group: InstanceGroupConfig, fsx_mount: Optional[dict]) -> list[dict]:
    storage = []
    if fsx_mount is not None:
        storage.append({"fsx_lustre_config": dict(fsx_mount)})
    if group.ebs_volume_gib:
        storage.append({"ebs_volume_config": {"volume_size_in_gb": group.ebs_volume_gib}})
    return storage


def _accelerator_labels(group: InstanceGroupConfig) -> dict[str, str]:
    """EKS-orchestrated nodes get the labels trainstack's device plugins select on."""
    instance = catalog.get_hyperpod(group.instance_type)
    labels = {NODE_GROUP_LABEL: group.name}
    if instance.accelerator is not None:
        labels[GPU_PRESENT_LABEL if instance.accelerator.kind is AcceleratorKind.GPU else NEURON_PRESENT_LABEL] = "true"
    if instance.efa.supported:
        labels[EFA_PRESENT_LABEL] = "true"
    return labels
