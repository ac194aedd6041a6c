"""Numbers in words, as the page writes them: nouns and verbs agree with their count."""

from __future__ import annotations

from typing import Optional


def counted(number: int, noun: str, plural: Optional[str] = None) -> str:
    """``counted(1, "resource")`` is "1 resource", ``counted(2, "resource")`` "2 resources"."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def agreeing(number: int, noun: str, verb: str) -> str:
    """``agreeing(1, "resource", "change")`` is "1 resource changes"; with 2, "2 resources change"."""
    return f"{counted(number, noun)} {verb + 's' if number == 1 else verb}"
