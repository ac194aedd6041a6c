"""Address blocks in a stack file are judged by the addresses they hold, for every set of blocks Hypothesis
draws: an API allowlist is refused exactly when its blocks add up to the whole internet, an existing VPC's
subnets exactly when two of them share an address, and an allowlist exactly when the endpoint it would
guard is private. The oracles are Python's ipaddress and address intervals (tests/support/address_sets.py),
not the code under test."""

import ipaddress
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.address_sets import IPV6_ALL, cidr_sets, opens_the_internet, pieces_of
from trainstack.config import ConfigError, EksConfig, ExistingVpc, validate


def eks(**settings):
    return validate(EksConfig, settings, prefix="eks")


@given(cidrs=st.one_of(cidr_sets(), cidr_sets(IPV6_ALL)))
def test_an_allowlist_is_refused_exactly_when_its_blocks_together_open_the_whole_internet(cidrs):
    if opens_the_internet(cidrs):
        with pytest.raises(ConfigError) as refused:
            eks(endpointAccess="publicAndPrivate", publicAccessCidrs=cidrs)
        (issue,) = refused.value.issues
        assert issue.path.startswith("eks:publicAccessCidrs") and "whole internet" in issue.message
    else:
        assert eks(endpointAccess="publicAndPrivate", publicAccessCidrs=cidrs).public_access_cidrs == cidrs


@given(access=st.sampled_from([None, "private", "public", "publicAndPrivate"]),
       cidrs=st.lists(st.sampled_from(["203.0.113.0/24", "198.51.100.0/24", "192.0.2.0/28"]), max_size=3,
                      unique=True))
def test_an_allowlist_is_used_by_a_public_endpoint_or_refused_naming_it(access, cidrs):
    settings = {"publicAccessCidrs": cidrs, **({"endpointAccess": access} if access else {})}
    # EKS applies publicAccessCidrs to the public endpoint only (EKS API, VpcConfigRequest).
    has_public_endpoint = access in ("public", "publicAndPrivate")
    if cidrs and not has_public_endpoint:
        with pytest.raises(ConfigError) as refused:
            eks(**settings)
        assert [issue.path for issue in refused.value.issues] == ["eks:publicAccessCidrs"]
        assert "would be dropped" in refused.value.issues[0].message
    elif has_public_endpoint and not cidrs:
        # Without an allowlist EKS opens the public endpoint to everyone (VpcConfigRequest's default, 0.0.0.0/0).
        with pytest.raises(ConfigError) as refused:
            eks(**settings)
        assert [issue.path for issue in refused.value.issues] == ["eks:publicAccessCidrs"]
        assert "no allowlist is given" in refused.value.issues[0].message
    else:
        assert eks(**settings).public_access_cidrs == cidrs


@st.composite
def subnet_sets(draw):
    """Subnets of 10.0.0.0/16: pieces of it, some left out, maybe one block drawn anywhere inside it."""
    vpc = ipaddress.ip_network("10.0.0.0/16")
    blocks = draw(pieces_of(vpc, depth=5))
    blocks = [b for b in blocks if draw(st.integers(0, 3))] or blocks[:1]
    if draw(st.booleans()):
        offset, prefix = draw(st.integers(0, 2 ** 16 - 1)), draw(st.integers(17, 28))
        blocks.append(ipaddress.ip_network((int(vpc.network_address) + offset, prefix), strict=False))
    blocks = draw(st.permutations(blocks))
    public = draw(st.lists(st.booleans(), min_size=len(blocks), max_size=len(blocks)))
    public[0] = False  # at least one private subnet
    return [(str(block), is_public) for block, is_public in zip(blocks, public, strict=True)]


@given(subnets=subnet_sets())
def test_existing_subnets_are_refused_exactly_when_two_share_an_address(subnets):
    raw = {"vpcId": "vpc-0123456789abcdef0", "privateSubnets": [], "publicSubnets": []}
    for index, (cidr, is_public) in enumerate(subnets):
        raw["publicSubnets" if is_public else "privateSubnets"].append(
            {"id": f"subnet-{index:017x}", "zone": "us-east-1a", "cidr": cidr})
    blocks = [ipaddress.ip_network(cidr) for cidr, _ in subnets]
    overlapping = {str(block) for pair in combinations(blocks, 2) if pair[0].overlaps(pair[1]) for block in pair}
    if overlapping:
        with pytest.raises(ConfigError) as refused:
            validate(ExistingVpc, raw, prefix="network:existingVpc")
        (issue,) = refused.value.issues
        assert issue.path.startswith("network:existingVpc:") and issue.path.endswith(".cidr")
        assert issue.value in overlapping and "shares addresses with" in issue.message
    else:
        assert len(validate(ExistingVpc, raw, prefix="network:existingVpc").private_subnets) >= 1
