"""Assembling the outputs contract (``outputs.StackOutputs``) from a stack's config and parts.

The caller (TrainingStack) passes the parts it built; this module never imports the
stack, so the dependency runs one way: training_stack -> stack_contract -> parts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Optional

import pulumi

from . import catalog
from .config import FsxConfig, HyperPodConfig, NodeGroupConfig, StackConfig
from .names import NODE_GROUP_LABEL
from .outputs import CONTRACT_VERSION

if TYPE_CHECKING:
    from .cluster import GpuEksCluster
    from .cluster.existing import ExistingCluster, ExistingNodeGroup
    from .config.existing_cluster import ExistingFileSystem
    from .hyperpod import HyperPodCluster
    from .nodegroups import AcceleratedNodeGroup
    from .nodegroups.karpenter_pool import KarpenterNodePool
    from .nodegroups.pool import NodeGroupPool
    from .storage.lustre import LustreFileSystem
    from .storage.lustre_existing import ExistingLustre
    from .storage.s3_datasets import S3Datasets
    from .tenancy import Tenant


def build_contract(name: str, config: StackConfig, *, cluster: Optional[GpuEksCluster | ExistingCluster],
                   lustre: Optional[LustreFileSystem | ExistingLustre], hyperpod: Optional[HyperPodCluster],
                   repository_url: Optional[pulumi.Output[str]], checkpoint_bucket: Optional[pulumi.Output[str]],
                   operators: dict[str, Any], datasets: Optional[S3Datasets] = None,
                   teams: Sequence[Tenant] = ()) -> dict[str, Any]:
    """The ``trainstack`` stack output of stack ``name``: what job launchers read (outputs.py). ``teams``: the
    stack's tenants (``tenancy.tenants``), which say which namespaces hold each dataset's claim."""
    contract = {
        "contractVersion": CONTRACT_VERSION,
        "stack": name,
        "region": config.region,
        "profile": config.profile,
        "cluster": {"name": cluster.cluster_name, "endpoint": _endpoint(cluster.kubeconfig),
                    "nodeMonitoringAgent": cluster.node_monitoring_agent} if cluster else None,
        "acceleratedGroups": {g.name: group_facts(g, (cluster.node_groups | cluster.karpenter_pools)[g.name])
                              for g in config.node_groups
                              if cluster and g.name in cluster.node_groups | cluster.karpenter_pools},
        "storage": _storage(lustre, config.fsx or (config.existing_cluster.file_system
                                                   if config.existing_cluster is not None else None)),
        "datasets": [{"name": d.name, "claimName": datasets.claims[d.name], "mountPath": d.mount_path,
                      "bucket": d.bucket, "prefix": d.prefix, "readOnly": d.read_only,
                      # Only stacks with teams carry the key: the others' outputs stay as they were.
                      **({"namespaces": [t.namespace for t in teams if d.name in t.datasets]} if teams else {})}
                     for d in config.datasets] if datasets is not None else [],
        "imageRepository": repository_url,
        "checkpointBucket": checkpoint_bucket,
        "hyperpod": _hyperpod(hyperpod, config.hyperpod),
        "operators": operators,
    }
    if config.scheduling is not None and cluster is not None:
        # Only stacks that schedule through Kueue carry the block: the others' outputs stay as they were.
        from .addons import kueue

        contract["scheduling"] = kueue.contract(config.scheduling, config.node_groups)
    return contract


def group_facts(group: NodeGroupConfig,
                node_group: AcceleratedNodeGroup | NodeGroupPool | KarpenterNodePool | ExistingNodeGroup
                ) -> dict[str, Any]:
    """What a job launcher needs to place work on the group and size its requests; a Karpenter
    pool's nodes carry the labels and taints a managed group's would, so jobs place alike."""
    from .addons.device_plugins import NEURON_SCHEDULER_NAME

    instance = catalog.get(group.instance_type)
    accelerator = group.accelerator
    return {
        "instanceType": instance.name,
        "acceleratorKind": accelerator.kind.value,
        "acceleratorResource": accelerator.resource_names[0],
        "acceleratorsPerNode": accelerator.count,
        "neuronCoresPerNode": accelerator.neuron_cores,
        "efaInterfacesPerNode": group.efa_interfaces_per_node,
        "memoryGibPerNode": instance.memory_gib,
        "vcpusPerNode": instance.vcpus,
        "nodeSelector": {NODE_GROUP_LABEL: group.name},
        "tolerations": [{"key": t["key"], "operator": "Equal", "value": t["value"], "effect": t["effect"]}
                        if t.get("value") else {"key": t["key"], "operator": "Exists", "effect": t["effect"]}
                        for t in node_group.taints],
        "maxNodes": group.max_size,
        "zone": group.zone,
        # The Neuron chart's custom scheduler places device-plugin pods on connected devices; on DRA the default
        # scheduler allocates claims itself, and the chart runs no custom scheduler beside its DRA driver.
        "schedulerName": NEURON_SCHEDULER_NAME if accelerator.kind is catalog.AcceleratorKind.NEURON
        and group.device_allocation == "device-plugins" else None,
        "autoRepair": group.auto_repair,
        "capacityType": group.capacity.type,
        "capacityEndsAt": _utc(group.capacity.ends_at),
        # Only DRA groups carry the key: the outputs of groups on device plugins stay as they were.
        **({"deviceAllocation": "dra"} if group.device_allocation == "dra" else {}),
        # Only capacity block groups carry it (the others' outputs stay as they were): when trainstack winds the
        # block down (addons/block_end.py), which the launchers hold a job's --duration against.
        **({"capacityWindDownAt": _utc(group.capacity.ends_at - timedelta(minutes=lead))}
           if (lead := group.capacity.block_end_lead_minutes) is not None and group.capacity.ends_at else {}),
    }


def _utc(moment: Optional[datetime]) -> Optional[str]:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment is not None else None


def _endpoint(kubeconfig: pulumi.Output[str]) -> pulumi.Output[str]:
    # The server address is not secret; the kubeconfig as a whole is treated as one.
    return pulumi.Output.unsecret(kubeconfig.apply(
        lambda text: json.loads(text)["clusters"][0]["cluster"]["server"] if text else None))


def _storage(lustre: Optional[LustreFileSystem | ExistingLustre],
             settings: Optional[FsxConfig | ExistingFileSystem]) -> Optional[dict[str, Any]]:
    if lustre is None or settings is None:
        return None
    others = lustre.claim_namespaces[1:]
    return {"claimName": lustre.claim_name, "namespace": settings.namespace if lustre.claim_name else None,
            # Only stacks whose teams run elsewhere carry the key: the others' outputs stay as they were.
            **({"teamNamespaces": others} if others else {}),
            "mountPath": lustre.mount_path, "dnsName": lustre.dns_name, "mountName": lustre.mount_name,
            "fileSystemId": lustre.file_system_id, "throughputMBps": lustre.throughput_mbps}


def _hyperpod(hyperpod: Optional[HyperPodCluster], settings: Optional[HyperPodConfig]) -> Optional[dict[str, Any]]:
    if hyperpod is None or settings is None:
        return None
    groups = []
    for group in settings.groups:
        instance = catalog.get_hyperpod(group.instance_type)
        accelerator = instance.accelerator
        groups.append({"name": group.name, "instanceType": group.instance_type, "count": group.count,
                       "acceleratorsPerNode": accelerator.count if accelerator else 0,
                       "acceleratorResource": accelerator.resource_names[0] if accelerator else None,
                       # Assumption: HyperPod attaches every EFA interface the type supports (AWS's
                       # HyperPod EKS samples request all 32 on ml.p5.48xlarge).
                       "efaInterfacesPerNode": instance.efa.max_interfaces or 0 if instance.efa.supported else 0,
                       "memoryGibPerNode": instance.memory_gib})
    return {"clusterName": hyperpod.cluster_name, "clusterArn": hyperpod.cluster_arn,
            "orchestrator": settings.orchestrator, "partitions": hyperpod.partitions,
            "ssmTargetPrefixes": hyperpod.ssm_target_prefixes, "instanceGroups": groups,
            "nodeRecovery": hyperpod.node_recovery, "trainingOperator": hyperpod.training_operator,
            "taskGovernance": hyperpod.task_governance}
