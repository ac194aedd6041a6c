"""Which traffic a security group admits from the whole internet, judged by the addresses its rules open
together.

A group admits a connection when any one of its ingress rules does (EC2 User Guide, "Security group rules":
rules are permissive only, and the group allows what any rule allows), so the internet reaches a port when
the CIDRs of the rules that cover that port hold, together, every IPv4 or every IPv6 address. Two rules for
``0.0.0.0/1`` and ``128.0.0.0/1`` on port 22 open it exactly as one ``0.0.0.0/0`` rule does; comparing each
rule's CIDR with the string ``0.0.0.0/0`` let them through. The addresses are counted by ``cidrs``.

Rules are read in every form pulumi-aws records them: ``aws.vpc.SecurityGroupIngressRule``,
``aws.ec2.SecurityGroupRule`` of type ingress, and a group's inline ``ingress``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Optional

from ..cidrs import whole_internet
from ..names import SECURITY_GROUP, SECURITY_GROUP_INGRESS_RULE, SECURITY_GROUP_RULE
from .model import Resource, Stack

ALL = "-1"
"""EC2's protocol for every protocol and every port."""
_PROTOCOL_NAMES = {"6": "tcp", "17": "udp", "1": "icmp", "58": "icmpv6", "all": ALL}
_PORT_RANGE = {"tcp": (0, 65535), "udp": (0, 65535)}
_OTHER_RANGE = (-1, 65535)
"""ICMP's type and code, where -1 means every one; for a protocol without ports the range is the whole of it."""


@dataclass(frozen=True)
class Ingress:
    """One ingress rule (or one CIDR of an inline rule) of a security group."""

    resource: Resource
    group: str
    """The security group it opens: its URN where the record says it, else its id."""
    protocol: str
    low: int
    high: int
    cidr: str


@dataclass(frozen=True)
class OpenWindow:
    """A protocol and port range the whole internet reaches through one group, and the rules that open it."""

    protocol: str
    low: Optional[int]
    high: Optional[int]
    """None for ``-1``: every protocol, every port."""
    rules: tuple[Ingress, ...]
    spaces: tuple[str, ...]
    """``0.0.0.0/0`` and/or ``::/0``: the address spaces the rules' CIDRs cover together."""

    @property
    def cidrs(self) -> list[str]:
        return sorted({rule.cidr for rule in self.rules})

    def holds(self, port: int) -> bool:
        return self.low is None or self.high is None or self.low <= port <= self.high

    def said(self) -> str:
        ports = "all ports" if self.low is None else f"{self.low}-{self.high}"
        return f"{self.protocol if self.protocol != ALL else 'all protocols'} {ports}"


def open_windows(stack: Stack) -> Iterator[OpenWindow]:
    """Every protocol and port range some group admits from the whole internet, group by group."""
    by_group: dict[str, list[Ingress]] = {}
    for rule in ingress_rules(stack):
        by_group.setdefault(rule.group, []).append(rule)
    for group in sorted(by_group):
        yield from _group_windows(by_group[group])


def ingress_rules(stack: Stack) -> Iterator[Ingress]:
    for rule in stack.of_type(SECURITY_GROUP_INGRESS_RULE):
        props = rule.props
        for cidr in (props.get("cidrIpv4"), props.get("cidrIpv6")):
            if cidr:
                yield _ingress(rule, _group_of(rule), props.get("ipProtocol"), props, cidr)
    for rule in stack.of_type(SECURITY_GROUP_RULE):
        props = rule.props
        if props.get("type") == "ingress":
            for cidr in (props.get("cidrBlocks") or []) + (props.get("ipv6CidrBlocks") or []):
                yield _ingress(rule, _group_of(rule), props.get("protocol"), props, cidr)
    for group in stack.of_type(SECURITY_GROUP):
        for inline in group.props.get("ingress") or []:
            for cidr in (inline.get("cidrBlocks") or []) + (inline.get("ipv6CidrBlocks") or []):
                yield _ingress(group, group.urn, inline.get("protocol"), inline, cidr)


def _group_of(rule: Resource) -> str:
    """The group a rule resource opens: the URN its ``securityGroupId`` came from, else the id it names, else
    the rule alone (a group no other rule is known to share)."""
    urns = rule.property_dependencies.get("securityGroupId") or []
    group = rule.props.get("securityGroupId")
    return urns[0] if urns else group if isinstance(group, str) and group else rule.urn


def _ingress(resource: Resource, group: str, protocol: Any, ports: dict[str, Any], cidr: Any) -> Ingress:
    name = _PROTOCOL_NAMES.get(str(protocol).lower(), str(protocol).lower()) if protocol is not None else ALL
    first, last = _PORT_RANGE.get(name, _OTHER_RANGE)
    low, high = _port(ports.get("fromPort"), first), _port(ports.get("toPort"), last)
    if name == ALL or (low, high) == (-1, -1):  # -1 to -1: every ICMP type and code
        low, high = first, last
    return Ingress(resource, group, name, low, high, str(cidr))


def _port(value: Any, default: int) -> int:
    try:
        return int(str(value)) if value is not None else default
    except ValueError:
        return default


def _group_windows(rules: list[Ingress]) -> Iterator[OpenWindow]:
    every = [rule for rule in rules if rule.protocol == ALL]
    spaces = whole_internet(rule.cidr for rule in every)
    if spaces:
        yield OpenWindow(ALL, None, None, tuple(every), spaces)
        return  # every protocol and port is open already: each narrower window says it again
    for protocol in sorted({rule.protocol for rule in rules} - {ALL}):
        yield from _protocol_windows(protocol, [r for r in rules if r.protocol in (protocol, ALL)])


def _protocol_windows(protocol: str, rules: list[Ingress]) -> Iterator[OpenWindow]:
    """The ranges of ``protocol``'s ports open to the internet: the ports are cut where any rule's range starts
    or ends, each piece judged by the rules that hold all of it, and neighbours opened by the same rules
    joined."""
    first, last = _PORT_RANGE.get(protocol, _OTHER_RANGE)
    edges = {first, last + 1} | {r.low for r in rules} | {r.high + 1 for r in rules}
    cuts = sorted(edge for edge in edges if first <= edge <= last + 1)
    pending: Optional[OpenWindow] = None
    for low, after in pairwise(cuts):
        high = after - 1
        holding = tuple(r for r in rules if r.protocol == ALL or (r.low <= low and high <= r.high))
        spaces = whole_internet(r.cidr for r in holding)
        if pending is not None and spaces and holding == pending.rules and pending.high == low - 1:
            pending = OpenWindow(protocol, pending.low, high, holding, spaces)
            continue
        if pending is not None:
            yield pending
        pending = OpenWindow(protocol, low, high, holding, spaces) if spaces else None
    if pending is not None:
        yield pending
