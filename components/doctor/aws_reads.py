"""How doctor reads the AWS account: Describe, List and Get calls only, and what their failures mean.

AWS saying that a thing the plan names is not there is an answer (the caller makes it a finding); anything else
that stops a read (no credentials, credentials refused, access denied, an endpoint out of reach) means doctor
cannot say what the account holds, which is :class:`Unreachable` (exit 2), with the call and why."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Optional

from botocore.exceptions import BotoCoreError, ClientError

from ..preflight.credentials import credentials_problem
from .finding import Unreachable

NOT_THERE = frozenset({
    "ResourceNotFoundException",  # EKS: no such cluster, node group, add-on or insight
    "InvalidCapacityReservationId.NotFound", "InvalidCapacityReservationId.Malformed",  # EC2
    "FileSystemNotFound",  # FSx
})
"""Error codes by which a service says the thing asked for does not exist (EKS API Reference, Common errors and
each action's Errors; EC2 API Reference, Error codes; FSx API Reference, DescribeFileSystems)."""
REFUSED = frozenset({"AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "AuthFailure",
                     "InvalidClientTokenId", "UnrecognizedClientException", "ExpiredToken", "ExpiredTokenException",
                     "RequestExpired", "SignatureDoesNotMatch"})
"""Error codes of credentials the service does not accept or that may not make the call."""
READS = ("ec2:DescribeCapacityReservations", "ec2:DescribeInstances", "eks:DescribeCluster", "eks:ListNodegroups",
         "eks:DescribeNodegroup", "eks:DescribeAddon", "eks:ListInsights", "eks:DescribeInsight",
         "fsx:DescribeFileSystems")
"""Every call ``doctor --aws`` makes, as IAM names the actions: what its credentials need, and all they need."""


def read(client: Any, operation: str, **params: Any) -> Optional[dict[str, Any]]:
    """One read: the response, or None when the service says the thing asked for is not there."""
    try:
        response: dict[str, Any] = getattr(client, operation)(**params)
        return response
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") in NOT_THERE:
            return None
        raise Unreachable(_why(client, operation, error)) from error
    except BotoCoreError as error:
        raise Unreachable(_why(client, operation, error)) from error


def every(client: Any, operation: str, key: str, **params: Any) -> Iterator[dict[str, Any]]:
    """Every item under ``key`` of every page of a List or Describe call (boto3's paginator for it)."""
    try:
        for page in client.get_paginator(operation).paginate(**params):
            yield from page.get(key) or []
    except ClientError as error:
        raise Unreachable(_why(client, operation, error)) from error
    except BotoCoreError as error:
        raise Unreachable(_why(client, operation, error)) from error


def _why(client: Any, operation: str, error: Exception) -> str:
    action = f"{client.meta.service_model.signing_name}:{client.meta.method_to_api_mapping[operation]}"
    where = f"the AWS account in {client.meta.region_name} could not be read ({action})"
    credentials = credentials_problem(error)
    if credentials is not None:
        return f"{where}: {credentials}"
    if isinstance(error, ClientError):
        code = error.response.get("Error", {}).get("Code", "?")
        said = error.response.get("Error", {}).get("Message", "").rstrip(".")
        if code in REFUSED:
            return (f"{where}: {code}: {said}. Fix: allow {action} to these credentials, or use a profile that may "
                    f"make doctor's reads ({', '.join(READS)}).")
        return f"{where}: {code}: {said}. Fix: run doctor again; if it says the same, check the service's health."
    return (f"{where}: {str(error).rstrip('.')}. Fix: run doctor where the AWS API endpoints can be reached (network, "
            "proxy, VPC endpoints), or leave out --aws.")
