"""Kubernetes resource quantities (k8s.io/apimachinery ``resource.Quantity``): ``5120Mi``, ``100m``, ``8``."""

from __future__ import annotations

import re
from fractions import Fraction

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL: dict[str, Fraction] = {"m": Fraction(1, 1000), "": Fraction(1), "k": Fraction(10**3),
                                  "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
                                  "P": Fraction(10**15), "E": Fraction(10**18)}
_QUANTITY = re.compile(r"^([+-]?[0-9.]+)([eE][+-]?[0-9]+)?([a-zA-Z]*)$")


def quantity(value: str | int | float) -> Fraction:
    """A Kubernetes resource quantity (``5120Mi``, ``100m``, ``8``) in base units (bytes, cores, devices)."""
    if isinstance(value, (int, float)):
        return Fraction(value)
    match = _QUANTITY.match(value.strip())
    if match is None:
        raise ValueError(f"'{value}' is not a Kubernetes quantity")
    number, exponent, suffix = match.groups()
    if exponent:
        return Fraction(number) * Fraction(10) ** int(exponent[1:])
    if suffix in _BINARY:
        return Fraction(number) * _BINARY[suffix]
    if suffix in _DECIMAL:
        return Fraction(number) * _DECIMAL[suffix]
    raise ValueError(f"'{value}' has an unknown suffix '{suffix}'")
