"""The controller models' reachability counts the addresses a group's rules admit together: for every set of
ingress rules Hypothesis draws (a VPC's block, or the whole internet, cut into pieces over rules of several
port ranges), a connection into the group is allowed exactly when the CIDRs of the rules that admit its port
hold every address of the VPC (of every address, when the VPC is not recorded). The oracle judges by address
intervals (tests/support/address_sets.py)."""

import ipaddress

from hypothesis import given
from hypothesis import strategies as st
from support.address_sets import IPV4_ALL, cidr_sets, covered_by_intervals
from trainstack.controllers.security_groups import Reachability, Rule

VPC = ipaddress.ip_network("10.0.0.0/16")
OUT = Rule("egress", "sg-a", "-1", 0, 65535, peer_group="sg-b")


@st.composite
def ingress_into_b(draw):
    cidrs = draw(st.one_of(cidr_sets(VPC), cidr_sets(IPV4_ALL)))
    ranges = st.lists(st.sampled_from([0, 442, 443, 444, 65535]), min_size=2, max_size=2).map(sorted)
    if draw(st.booleans()):  # every rule on every port: the pieces then add up on each
        ranges = st.just([0, 65535])
    rules = []
    for cidr in cidrs:
        low, high = draw(ranges)
        rules.append(Rule("ingress", "sg-b", "tcp", low, high, cidr=cidr))
    return rules


@given(rules=ingress_into_b(), port=st.sampled_from([0, 443, 444]), vpc_recorded=st.booleans())
def test_a_connection_passes_exactly_when_the_admitting_rules_hold_the_whole_vpc_together(rules, port, vpc_recorded):
    admitting = [rule.cidr for rule in rules if rule.from_port <= port <= rule.to_port]
    expected = covered_by_intervals(admitting, VPC if vpc_recorded else IPV4_ALL)
    reach = Reachability([OUT, *rules], [str(VPC)] if vpc_recorded else [])
    assert reach.allows(["sg-a"], ["sg-b"], "tcp", port) == expected
