"""One preflight check's result, and the reason a call that could not reach AWS gives: the type every check of the
account and of a cluster returns, and ``checks.py``, which gathers them, reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from botocore.exceptions import ClientError

Status = Literal["pass", "fail", "could-not-check"]


@dataclass(frozen=True)
class Check:
    name: str
    subject: str
    status: Status
    reason: str
    offline: bool = False
    """Decided from the stack alone (a subnet this stack creates): no account was asked."""


def unreachable(error: Exception) -> str:
    """Why a check could not run: AWS's error code and message, or the error that stopped the call."""
    if isinstance(error, ClientError):
        return f"{error.response['Error'].get('Code')}: {error.response['Error'].get('Message')}"
    return f"{type(error).__name__}: {error}"
