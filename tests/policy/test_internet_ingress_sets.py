"""A security group is open to the internet on a port when the CIDRs of the rules that admit that port hold,
together, every address: for every set of ingress rules Hypothesis draws (0.0.0.0/0 or ::/0 cut into pieces
spread over rules of several protocols and port ranges, in each of the forms pulumi-aws records), the
no-public-ingress and no-ssh-from-internet rules fail exactly when the oracle finds such a port. The oracle
judges each port on its own, by address intervals (tests/support/address_sets.py)."""

import ipaddress

from hypothesis import given
from hypothesis import strategies as st
from support.address_sets import IPV6_ALL, cidr_sets, opens_the_internet
from trainstack.names import SECURITY_GROUP, SECURITY_GROUP_INGRESS_RULE, SECURITY_GROUP_RULE
from trainstack.policy import Resource
from trainstack.policy.model import Stack
from trainstack.policy.security import no_public_ingress, no_ssh_from_internet

GROUP = Resource(SECURITY_GROUP, "web", "urn:test::web", {"name": "web"})
ALLOWED = [80, 443]
PORTS = [0, 21, 22, 23, 79, 80, 81, 442, 443, 444, 1024, 65535]
"""Where the drawn port ranges start and end."""
JUDGED = sorted(set(PORTS) | {port + 1 for port in PORTS if port < 65535})
"""Every port admitted by other rules than the port before it is a range's first port or the one after a
range's last: the oracle judges these, and each of the others is judged with them."""


@st.composite
def ingress_rules(draw):
    cidrs = draw(st.one_of(cidr_sets(), cidr_sets(IPV6_ALL)))
    protocols, ranges = st.sampled_from(["tcp", "tcp", "udp", "-1"]), st.lists(st.sampled_from(PORTS), min_size=2,
                                                                                 max_size=2).map(sorted)
    if draw(st.booleans()):  # every rule on one protocol and range: the pieces then add up on each port
        protocols, ranges = st.just(draw(protocols)), st.just(draw(ranges))
    rules = []
    for index, cidr in enumerate(cidrs):
        protocol, (low, high) = draw(protocols), draw(ranges)
        rules.append({"protocol": protocol, "low": low, "high": high, "cidr": cidr,
                      "form": draw(st.sampled_from(["vpc rule", "ec2 rule", "inline"])), "name": f"rule-{index}"})
    return rules


def recorded(rules) -> Stack:
    """The rules as the engine records them, on one security group."""
    resources, inline = [], []
    for rule in rules:
        v6 = ipaddress.ip_network(rule["cidr"]).version == 6
        if rule["form"] == "vpc rule":
            resources.append(Resource(SECURITY_GROUP_INGRESS_RULE, rule["name"], f"urn:test::{rule['name']}", {
                "ipProtocol": rule["protocol"], "fromPort": rule["low"], "toPort": rule["high"],
                "cidrIpv6" if v6 else "cidrIpv4": rule["cidr"]},
                property_dependencies={"securityGroupId": [GROUP.urn]}))
        elif rule["form"] == "ec2 rule":
            resources.append(Resource(SECURITY_GROUP_RULE, rule["name"], f"urn:test::{rule['name']}", {
                "type": "ingress", "protocol": rule["protocol"], "fromPort": rule["low"], "toPort": rule["high"],
                "ipv6CidrBlocks" if v6 else "cidrBlocks": [rule["cidr"]]},
                property_dependencies={"securityGroupId": [GROUP.urn]}))
        else:
            inline.append({"protocol": rule["protocol"], "fromPort": rule["low"], "toPort": rule["high"],
                           "ipv6CidrBlocks" if v6 else "cidrBlocks": [rule["cidr"]]})
    group = Resource(SECURITY_GROUP, GROUP.name, GROUP.urn, {**GROUP.props, "ingress": inline})
    return Stack([group, *resources])


def admitting(rules, protocol, port):
    """The CIDRs of the rules that admit ``protocol`` on ``port`` (-1: every protocol and port)."""
    return [r["cidr"] for r in rules if r["protocol"] == "-1"
            or (r["protocol"] == protocol and r["low"] <= port <= r["high"])]


def open_ports(rules):
    """(protocol, port) the whole internet reaches; ("-1", None) when it reaches every protocol."""
    every = [("-1", None)] if opens_the_internet(admitting(rules, "-1", None)) else []
    return every + [(protocol, port) for protocol in ("tcp", "udp") for port in JUDGED
                    if opens_the_internet(admitting(rules, protocol, port))]


@given(rules=ingress_rules())
def test_no_public_ingress_fails_exactly_when_the_internet_reaches_a_port_not_allowed(rules):
    exposed = [(protocol, port) for protocol, port in open_ports(rules)
               if not (protocol == "tcp" and port in ALLOWED)]
    violations = list(no_public_ingress(recorded(rules), {"allowedPublicPorts": ALLOWED}))
    assert bool(violations) == bool(exposed), (exposed, [v.message for v in violations])


@given(rules=ingress_rules())
def test_no_ssh_from_internet_fails_exactly_when_the_internet_reaches_port_22(rules):
    exposed = [(protocol, port) for protocol, port in open_ports(rules) if protocol == "-1" or
               (protocol, port) == ("tcp", 22)]
    violations = list(no_ssh_from_internet(recorded(rules), {}))
    assert bool(violations) == bool(exposed), (exposed, [v.message for v in violations])
