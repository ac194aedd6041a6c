"""What the Neuron DRA driver publishes and how a claim selects from it (device allocation profile ``dra`` on
Trainium groups).

Sources (read 2026-11-26):

* Neuron SDK docs, "AWS Neuron Dynamic Resource Allocation (DRA)" (aws-neuron/aws-neuron-sdk ``deploy/eks/dra.rst``
  @3afa0fd; https://awsdocs-neuron.readthedocs-hosted.com/en/latest/containers/neuron-dra.html): the attribute
  reference (``resourceType`` is ``neuron_device`` for a device and ``neuron_node`` for an UltraServer node;
  on EFA-enabled instances ``resource.aws.com/devicegroup{1,4,8,16}_id`` name the connected groups), the
  connected subsets (1, 4, 8 or 16 devices), the FAQ (the DRA driver and device plugins may share a cluster but
  not a node; node AMI 1.34.2 or later).
* aws-neuron/neuron-helm-charts ``values.yaml`` @b77a6f9 (the 1.9.0 release) and ``templates/_helpers.tpl`` (the
  version the source index holds, which names no commit; the DaemonSet calling it read @97e1b7d): the driver's
  DaemonSet affinity lists the chart's ``neuronInstances`` without the ``inf``/``ml.inf`` ones, so the driver
  runs on Trainium only; ``neuron-helm-chart.validateConfig`` refuses ``draDriver.enabled`` with
  ``devicePlugin.enabled`` or ``scheduler.enabled`` in one release. That these two templates are unchanged at
  b77a6f9 was not checked here (the index holds no copy of them at that commit).

Where sources disagree: the EKS page's prerequisites name "Trainium or Inferentia2" nodes, the chart's affinity
keeps the driver off every ``inf`` type, and the Neuron DRA page's prerequisite names trn2.48xlarge. trainstack
follows the chart (the code that places the driver): Trainium families only. It does not narrow to trn2: the
chart places the driver on trn1 and trn1n as well, and EKS names Trainium without a generation.
"""

from __future__ import annotations

from typing import Optional

DRIVER_FAMILY_PREFIX = "trn"
"""Instance families the pinned chart runs the Neuron DRA driver on (its affinity drops ``inf*``)."""

DEVICE_RESOURCE_TYPE = "neuron_device"
NODE_RESOURCE_TYPE = "neuron_node"
DEVICE_SELECTOR = f"device.attributes['neuron.aws.com'].resourceType == '{DEVICE_RESOURCE_TYPE}'"
"""A claim's CEL selector for Neuron devices only: on UltraServers the driver also publishes each node as a device
of the same driver (``resourceType`` ``neuron_node``), which the DeviceClass alone would match."""

CONNECTED_SUBSETS = (1, 4, 8, 16)
"""Device counts the driver can hand out as one connected set."""


def runs_on(instance_type: str) -> bool:
    """Whether the pinned chart places the Neuron DRA driver on nodes of this type."""
    return instance_type.split(".")[0].startswith(DRIVER_FAMILY_PREFIX)


def connected_group_attribute(devices: int, per_node: int, efa: bool) -> Optional[str]:
    """The attribute a claim's ``matchAttribute`` constraint names so that ``devices`` of a node's ``per_node`` are
    connected; None where the claim takes the whole node, a single device, or the instance publishes no group
    attributes (they are published on EFA-enabled instances only)."""
    if not efa or devices >= per_node or devices == 1 or devices not in CONNECTED_SUBSETS:
        return None
    return f"resource.aws.com/devicegroup{devices}_id"
