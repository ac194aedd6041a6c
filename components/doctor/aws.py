"""``trainstack doctor --aws``: the account's side of the stack against its plan record. Each reservation and
Capacity Block the node groups launch into (aws_capacity.py), the EKS cluster's managed node groups, add-ons and
upgrade insights (aws_eks.py), and the FSx file system; each thing found by the names the plan gives it
(aws_plan.py).

Read-only: Describe, List and Get calls, all of them in ``aws_reads.READS``; an account doctor cannot read is
:class:`Unreachable` (aws_reads.py)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Optional

from ..plan import Plan
from ..preflight.credentials import credentials_problem, require_credentials
from .aws_capacity import capacity_findings
from .aws_eks import eks_findings
from .aws_plan import AwsSide, aws_side
from .aws_reads import every, read
from .finding import Finding, Unreachable

__all__ = ["DoctorClients", "findings"]


@dataclass(frozen=True)
class DoctorClients:
    """The boto3 clients doctor reads the account with, one a service, all in the stack's region."""

    ec2: Any
    eks: Any
    fsx: Any

    @classmethod
    def for_region(cls, region: str) -> DoctorClients:
        """Clients from boto3's default chain (``AWS_ENDPOINT_URL`` included, as botocore reads it), after the
        credentials are found usable; none usable is :class:`Unreachable`, in preflight's one line."""
        import boto3
        from botocore.config import Config
        from botocore.exceptions import BotoCoreError

        # As preflight (preflight/checks.py): fail fast where there is no network.
        config = Config(connect_timeout=5, read_timeout=20, retries={"max_attempts": 2})
        try:
            session = boto3.Session(region_name=region)
            require_credentials(session)
        except BotoCoreError as error:
            said = credentials_problem(error) or str(error).rstrip(".")
            raise Unreachable(f"the AWS account in {region} could not be read: {said}") from error
        return cls(ec2=session.client("ec2", config=config), eks=session.client("eks", config=config),
                   fsx=session.client("fsx", config=config))


def findings(plan: Plan, clients: DoctorClients, *, now: Optional[datetime] = None) -> list[Finding]:
    """Every way the account differs from what ``plan`` says it holds, each with its fix; empty when it holds
    it all as planned. ``now``: the moment a Capacity Block's time left is counted from (the clock's)."""
    side = aws_side(plan)
    moment = now if now is not None else datetime.now(UTC)
    found: list[Finding] = []
    for held in side.held:
        found.extend(capacity_findings(held, side.cluster, clients.ec2, moment))
    found.extend(eks_findings(side, clients.eks))
    found.extend(_file_system(side, clients.fsx))
    return found


def _file_system(side: AwsSide, fsx: Any) -> Iterator[Finding]:
    """The stack's FSx file system is AVAILABLE (FSx API Reference, FileSystem.Lifecycle; FailureDetails says why
    one FAILED or is MISCONFIGURED)."""
    region = fsx.meta.region_name
    if side.file_system_tag is not None:
        subject = f"FSx file system {side.file_system_tag}"
        systems = [system for system in every(fsx, "describe_file_systems", "FileSystems")
                   if {t.get("Key"): t.get("Value") for t in system.get("Tags") or []}.get("Name")
                   == side.file_system_tag]
        missing = f"none tagged Name={side.file_system_tag} in {region}"
    elif side.file_system_id is not None:
        subject = f"FSx file system {side.file_system_id}"
        described = read(fsx, "describe_file_systems", FileSystemIds=[side.file_system_id])
        systems = (described or {}).get("FileSystems") or []
        missing = f"no such file system in {region}"
    else:
        return
    if not systems:
        yield Finding("aws", subject, "the file system the stack mounts", missing,
                      f"aws fsx describe-file-systems --region {region} lists them; `pulumi up` makes the stack's, "
                      "or set existingCluster.fileSystem.id to one that is there")
        return
    for system in systems:
        lifecycle = system.get("Lifecycle")
        if lifecycle == "AVAILABLE":
            continue
        why = str((system.get("FailureDetails") or {}).get("Message") or "").rstrip(".")
        yield Finding("aws", f"{subject} ({system['FileSystemId']})", "AVAILABLE",
                      f"{lifecycle}{': ' + why if why else ''}",
                      f"aws fsx describe-file-systems --file-system-ids {system['FileSystemId']} --region {region}")
