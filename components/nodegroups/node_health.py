"""Node health on EKS: the node monitoring agent notices, node auto repair replaces.

The EKS node monitoring agent (managed add-on ``eks-node-monitoring-agent``) reads each
node's kernel, network, storage, container runtime and accelerator logs and sets node
conditions: ``AcceleratedHardwareReady`` (NVIDIA XID errors, Neuron HBM/SRAM/DMA errors),
``NetworkingReady`` (including EFA), ``KernelReady``, ``StorageReady``,
``ContainerRuntimeReady``. A managed node group with ``nodeRepairConfig.enabled``
replaces or reboots a node whose condition stays unhealthy: 10 minutes for
``AcceleratedHardwareReady``, 30 for the others, and it stops repairing when more
than 20 % of a group larger than five nodes is unhealthy at once (EKS user guide,
node-health). Without the agent, repair still acts on ``NodeReady`` alone.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from ..config.node_repair import NodeRepair
from ..names import GPU_TAINT

NODE_MONITORING_AGENT = "eks-node-monitoring-agent"


def node_monitoring_configuration(gpus: bool) -> Optional[str]:
    """The add-on's configuration (JSON) for a cluster with or without GPU groups.

    The agent itself tolerates every taint, but its DCGM host engine DaemonSet tolerates
    none, so on GPU nodes carrying trainstack's ``nvidia.com/gpu`` taint it would never run and
    DCGM-based GPU checks would be silently missing (aws/eks-node-monitoring-agent
    ``charts/eks-node-monitoring-agent/values.yaml``; ``dcgmAgent.tolerations`` is in the
    add-on's configuration schema, ``charts/configuration.schema.json``)."""
    if not gpus:
        return None
    toleration = {"key": GPU_TAINT["key"], "operator": "Exists", "effect": "NoSchedule"}
    return json.dumps({"dcgmAgent": {"tolerations": [toleration]}}, sort_keys=True)


def node_repair_config(enabled: bool, tuned: Optional[NodeRepair] = None, reserved: bool = False) -> dict[str, Any]:
    """The group's ``nodeRepairConfig``. Switched off it is still rendered, as ``enabled: false``:
    leaving it out would keep whatever the group had before, not turn repair off. ``tuned``: the group's
    ``nodeRepair`` (thresholds, pace, overrides), with one repair at a time on ``reserved`` capacity by default."""
    if tuned is None or not enabled:
        return {"enabled": enabled}
    return tuned.rendered(reserved)
