"""Network interface layouts and what they leave for pods, derived from the facts.

The layout follows current AWS guidance (EC2 user guide, "Maximize network
bandwidth ... with multiple network cards"; EKS device-management-efa):

* card 0, device 0: a plain ENA ``interface`` (the node's IP; EFA-only cannot be primary);
* card 0, device 1: ``efa-only`` when card 0 can carry EFA;
* every other card that can carry EFA: device 0 ``efa-only``.

Older guidance (eksctl, ParallelCluster before 2026) put ``efa`` on every card at
device index 1 and sized by network cards; that takes one subnet IP per card and
breaks p6-b200 (more cards than EFA interfaces) and p6-b300 (no EFA on card 0).
``efa-only`` interfaces take no IP, which is also why VPC CNI >= 1.18.5 is needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .model import InstanceType

InterfaceType = Literal["interface", "efa", "efa-only"]
EFA_INTERFACE_TYPES = ("efa", "efa-only")


@dataclass(frozen=True)
class InterfaceSlot:
    network_card_index: int
    device_index: int
    interface_type: InterfaceType

    @property
    def takes_ip(self) -> bool:
        return self.interface_type != "efa-only"

    @property
    def is_efa(self) -> bool:
        return self.interface_type in EFA_INTERFACE_TYPES


PRIMARY = InterfaceSlot(0, 0, "interface")


def efa_layout(instance: InstanceType) -> tuple[InterfaceSlot, ...]:
    """Every EFA interface the type supports, one per EFA-capable card, after the primary ENA."""
    cards = instance.require("the network cards that carry EFA", instance.efa.cards, "lay out EFA interfaces")
    if not instance.efa.supported or not cards:
        raise ValueError(f"{instance.name} has no EFA")
    return (PRIMARY, *(InterfaceSlot(card, 1 if card == 0 else 0, "efa-only") for card in cards))


def plain_layout() -> tuple[InterfaceSlot, ...]:
    return (PRIMARY,)


def layout_for(instance: InstanceType, efa: bool) -> tuple[InterfaceSlot, ...]:
    return efa_layout(instance) if efa else plain_layout()


def max_pods(instance: InstanceType, layout: tuple[InterfaceSlot, ...]) -> int:
    """Pods a node can give IPs to once the layout's interfaces sit on card 0.

    The VPC CNI attaches pod ENIs on the default card only, so every ``efa-only``
    interface there takes an ENI slot away from pods. With the plain layout this is
    nodeadm's own default: ``enis_on_card0 * (ipv4_per_eni - 1) + 2``.
    """
    enis = instance.require("ENIs on network card 0", instance.network.enis_on_card0, "size pods per node")
    ips = instance.require("IPv4 addresses per ENI", instance.network.ipv4_per_eni, "size pods per node")
    taken_on_card0 = sum(1 for slot in layout if slot.network_card_index == 0 and slot != PRIMARY)
    pod_enis = enis - taken_on_card0
    if pod_enis < 1:
        raise ValueError(f"{instance.name}: the layout leaves no ENI on card 0 for pods")
    return pod_enis * (ips - 1) + 2


def node_ip_budget(instance: InstanceType, layout: tuple[InterfaceSlot, ...]) -> int:
    """Subnet IPs one node can take: its IP-carrying interfaces plus one per pod."""
    return sum(1 for slot in layout if slot.takes_ip) + max_pods(instance, layout)
