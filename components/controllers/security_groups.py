"""Which traffic the security groups of a stack let through, between groups of the same VPC.

EC2 security groups are stateful allow-lists: a connection from an interface in groups A
to one in groups B passes when one of A's groups has an egress rule for the protocol and
port towards B (one of B's groups, or a CIDR holding B's address) and one of B's groups
has an ingress rule from A likewise; replies pass on their own (EC2 user guide, "Security
group rules"). Rules are read from every form pulumi-aws records: the ``aws.vpc``
ingress/egress rule resources, ``aws.ec2.SecurityGroupRule`` and inline rules.

The EKS cluster security group is created by EKS, not the program, so its default rules
come from the EKS user guide (sec-group-reqs, "Default cluster security group"): all
inbound from itself, all outbound to 0.0.0.0/0 and to itself.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, Optional

from ..cidrs import covers, whole_internet
from ..names import SECURITY_GROUP, SECURITY_GROUP_EGRESS_RULE, SECURITY_GROUP_INGRESS_RULE, SECURITY_GROUP_RULE, VPC
from ..policy.model import Stack

Direction = Literal["ingress", "egress"]
VPC_RULE = {"ingress": SECURITY_GROUP_INGRESS_RULE,
            "egress": SECURITY_GROUP_EGRESS_RULE}
PROTOCOL_NUMBERS = {"6": "tcp", "17": "udp", "all": "-1"}


@dataclass(frozen=True)
class Rule:
    direction: Direction
    group: str
    """The security group the rule belongs to."""
    protocol: str
    """``tcp``, ``udp`` or ``-1`` (all)."""
    from_port: int
    to_port: int
    peer_group: Optional[str] = None
    cidr: Optional[str] = None

    def allows(self, protocol: str, port: int) -> bool:
        return self.protocol == "-1" or (self.protocol == protocol and self.from_port <= port <= self.to_port)


def eks_default_rules(cluster_group: str) -> list[Rule]:
    """The rules EKS gives the cluster security group it creates (EKS user guide, sec-group-reqs)."""
    return [Rule("ingress", cluster_group, "-1", 0, 65535, peer_group=cluster_group),
            Rule("egress", cluster_group, "-1", 0, 65535, cidr="0.0.0.0/0"),
            Rule("egress", cluster_group, "-1", 0, 65535, peer_group=cluster_group)]


def _protocol(value: Any) -> str:
    text = str(value).lower()
    return PROTOCOL_NUMBERS.get(text, text)


def _ports(props: dict[str, Any], protocol: str) -> tuple[int, int]:
    if protocol == "-1":
        return 0, 65535
    return int(props.get("fromPort", 0)), int(props.get("toPort", 65535))


def _inline(group: str, direction: Direction, entry: dict[str, Any]) -> Iterator[Rule]:
    protocol = _protocol(entry.get("protocol", "-1"))
    low, high = _ports(entry, protocol)
    peers = list(entry.get("securityGroups") or []) + ([group] if entry.get("self") else [])
    for peer in peers:
        yield Rule(direction, group, protocol, low, high, peer_group=peer)
    for cidr in entry.get("cidrBlocks") or []:
        yield Rule(direction, group, protocol, low, high, cidr=cidr)


def recorded_rules(stack: Stack) -> Iterator[Rule]:
    """Every rule the program registers, whatever resource type carries it."""
    for direction in ("ingress", "egress"):
        for record in stack.of_type(VPC_RULE[direction]):
            props = record.inputs
            protocol = _protocol(props.get("ipProtocol", "-1"))
            low, high = _ports(props, protocol)
            yield Rule(direction, props["securityGroupId"], protocol, low, high,
                       peer_group=props.get("referencedSecurityGroupId"), cidr=props.get("cidrIpv4"))
        for record in stack.of_type(SECURITY_GROUP):
            for entry in record.inputs.get(direction) or []:
                yield from _inline(str(record.id), direction, entry)
    for record in stack.of_type(SECURITY_GROUP_RULE):
        props = record.inputs
        protocol = _protocol(props.get("protocol", "-1"))
        low, high = _ports(props, protocol)
        kind: Direction = "ingress" if props.get("type") == "ingress" else "egress"
        group = props["securityGroupId"]
        peer = group if props.get("self") else props.get("sourceSecurityGroupId")
        if peer:
            yield Rule(kind, group, protocol, low, high, peer_group=peer)
        for cidr in props.get("cidrBlocks") or []:
            yield Rule(kind, group, protocol, low, high, cidr=cidr)


class Reachability:
    """Answers "may an interface in these groups open this connection to one in those"."""

    def __init__(self, rules: Iterable[Rule], vpc_cidrs: Iterable[str]):
        self.rules = list(rules)
        self.vpc_cidrs = [ipaddress.ip_network(c, strict=False) for c in vpc_cidrs]

    @classmethod
    def of_stack(cls, stack: Stack, eks_cluster_groups: Iterable[str] = ()) -> Reachability:
        rules = list(recorded_rules(stack))
        for group in eks_cluster_groups:
            rules += eks_default_rules(group)
        return cls(rules, [r.inputs["cidrBlock"] for r in stack.of_type(VPC) if r.inputs.get("cidrBlock")])

    def _covers_vpc(self, cidrs: list[str]) -> bool:
        """Whether the CIDRs of the rules that allow a connection hold, together, a VPC's addresses: a rule's
        CIDR need not be the whole VPC's alone (``cidrs``: addresses judged as a set). Without a recorded VPC
        (an existing one), only rules that open every address are sure to cover it."""
        return bool(whole_internet(cidrs)) or any(covers(cidrs, vpc) for vpc in self.vpc_cidrs)

    def _passes(self, direction: Direction, own: set[str], peers: set[str], protocol: str, port: int) -> bool:
        allowing = [rule for rule in self.rules
                    if rule.direction == direction and rule.group in own and rule.allows(protocol, port)]
        return any(rule.peer_group in peers for rule in allowing) or self._covers_vpc(
            [rule.cidr for rule in allowing if rule.cidr is not None])

    def allows(self, source: Iterable[str], destination: Iterable[str], protocol: str, port: int) -> bool:
        source_groups, destination_groups = set(source), set(destination)
        return (self._passes("egress", source_groups, destination_groups, protocol, port)
                and self._passes("ingress", destination_groups, source_groups, protocol, port))
