"""CIDR blocks judged as the set of addresses they hold together, never by how they are spelled.

A rule or allowlist is "open to the internet" when its blocks together hold every address of
IPv4 (0.0.0.0/0) or of IPv6 (::/0): ``0.0.0.0/1`` and ``128.0.0.0/1`` open exactly what
``0.0.0.0/0`` opens, and a string comparison lets them through. The config validators, the
policy rules and the controller models all ask here. A leaf: it imports nothing of trainstack.

Blocks are merged with Python's ``ipaddress.collapse_addresses``, which returns the fewest
networks holding exactly the given addresses; an aligned block lies inside the union of some
blocks exactly when it lies inside one of the collapsed networks (collapsing merges every pair
of sibling halves, so a fully covered block is always merged whole).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from typing import Optional

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

WHOLE_INTERNET: tuple[Network, ...] = (ipaddress.IPv4Network("0.0.0.0/0"), ipaddress.IPv6Network("::/0"))
"""Every IPv4 address and every IPv6 address."""


def parsed(cidrs: Iterable[object]) -> list[Network]:
    """The blocks among ``cidrs`` that are CIDR strings (host bits may be set, as EC2 accepts them);
    anything else (an unknown value of a preview, a malformed string) holds no address here."""
    networks: list[Network] = []
    for cidr in cidrs:
        if isinstance(cidr, str):
            try:
                networks.append(ipaddress.ip_network(cidr, strict=False))
            except ValueError:
                continue
    return networks


def union(cidrs: Iterable[object]) -> list[Network]:
    """The fewest networks that hold exactly the addresses of ``cidrs`` (IPv4 first, then IPv6)."""
    networks = parsed(cidrs)
    v4 = [n for n in networks if isinstance(n, ipaddress.IPv4Network)]
    v6 = [n for n in networks if isinstance(n, ipaddress.IPv6Network)]
    return [*ipaddress.collapse_addresses(v4), *ipaddress.collapse_addresses(v6)]


def covers(cidrs: Iterable[object], target: Network) -> bool:
    """Whether ``cidrs`` together hold every address of ``target``."""
    return any(block.version == target.version and target.subnet_of(block)  # type: ignore[arg-type]
               for block in union(cidrs))


def whole_internet(cidrs: Iterable[object]) -> tuple[str, ...]:
    """Which of ``0.0.0.0/0`` and ``::/0`` the blocks open together (empty: neither)."""
    merged = union(cidrs)
    return tuple(str(space) for space in WHOLE_INTERNET
                 if any(block.version == space.version and space.subnet_of(block)  # type: ignore[arg-type]
                        for block in merged))


def first_overlap(cidrs: Sequence[str]) -> Optional[tuple[int, int]]:
    """The indexes ``(earlier, later)`` of two blocks of ``cidrs`` that share an address; None when no two
    do. Blocks that do not parse share nothing. One sweep over the blocks sorted by first address: a
    block that starts before the furthest end seen so far overlaps the block that reaches there."""
    spans = sorted((int(network.network_address), int(network.broadcast_address), network.version, index)
                   for index, network in _indexed(cidrs))
    clashes: list[tuple[int, int]] = []
    for version in (4, 6):
        reach: Optional[tuple[int, int]] = None  # (last address, index) of the block reaching furthest so far
        for start, end, _, index in (span for span in spans if span[2] == version):
            if reach is not None and start <= reach[0]:
                clashes.append((min(index, reach[1]), max(index, reach[1])))
            if reach is None or end > reach[0]:
                reach = (end, index)
    return min(clashes, key=lambda pair: (pair[1], pair[0])) if clashes else None


def _indexed(cidrs: Sequence[str]) -> Iterable[tuple[int, Network]]:
    for index, cidr in enumerate(cidrs):
        try:
            yield index, ipaddress.ip_network(cidr, strict=False)
        except ValueError:
            continue
