"""CIDR sets for property tests, and an oracle of what they cover that shares nothing with trainstack.cidrs.

The oracle counts addresses as integer intervals, merged by hand; trainstack merges networks with
``ipaddress.collapse_addresses``. The generators lean on the cases a string comparison gets wrong: a
network cut into pieces (``0.0.0.0/0`` as ``0.0.0.0/1`` + ``128.0.0.0/1`` and deeper), with a piece
left out or a stray block added.
"""

import ipaddress

from hypothesis import strategies as st

IPV4_ALL = ipaddress.ip_network("0.0.0.0/0")
IPV6_ALL = ipaddress.ip_network("::/0")


def covered_by_intervals(cidrs, target) -> bool:
    """Whether the blocks ``cidrs`` (strings) together hold every address of ``target``, by walking their
    address intervals in order and stopping at the first gap."""
    first, last = int(target.network_address), int(target.broadcast_address)
    spans = sorted((int(n.network_address), int(n.broadcast_address))
                   for n in map(ipaddress.ip_network, cidrs) if n.version == target.version)
    reached = first  # every address below this one is held
    for start, end in spans:
        if start > reached:
            break
        reached = max(reached, end + 1)
    return reached > last


def opens_the_internet(cidrs) -> bool:
    return covered_by_intervals(cidrs, IPV4_ALL) or covered_by_intervals(cidrs, IPV6_ALL)


@st.composite
def pieces_of(draw, network, depth: int = 4):
    """Blocks that hold exactly ``network``'s addresses: the network itself or its two halves, each cut again."""
    if depth == 0 or network.prefixlen == network.max_prefixlen or draw(st.integers(0, 3)) == 0:
        return [network]
    low, high = network.subnets()
    return draw(pieces_of(low, depth - 1)) + draw(pieces_of(high, depth - 1))


def any_block(version: int = 4, shortest: int = 1):
    bits = 32 if version == 4 else 128
    return st.builds(lambda address, prefix: ipaddress.ip_network((address, prefix), strict=False),
                     st.integers(0, 2 ** bits - 1), st.integers(shortest, bits))


@st.composite
def cidr_sets(draw, whole=IPV4_ALL):
    """A list of CIDR strings: ``whole`` cut into pieces, maybe with one piece left out, maybe with strays."""
    pieces = draw(pieces_of(whole))
    if len(pieces) > 1 and draw(st.integers(0, 2)) == 0:
        pieces.pop(draw(st.integers(0, len(pieces) - 1)))
    pieces += draw(st.lists(any_block(whole.version), max_size=2))
    return [str(block) for block in draw(st.permutations(pieces))]
