"""One principal, one access entry: each IAM principal the stack gives access to the cluster is listed once.

EKS gives a principal at most one access entry per cluster ("An IAM principal can't be included in more than one
access entry", https://docs.aws.amazon.com/eks/latest/userguide/creating-access-entries.html; CreateAccessEntry,
``principalArn``: "You can't specify the same ARN in more than one access entry",
https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateAccessEntry.html). trainstack makes one entry for each
cluster admin (``eks.adminPrincipals``, cluster/eks_cluster.py through pulumi-eks) and one for each team member and
queue viewer (``scheduling.teams[].members``, ``scheduling.viewers``: tenancy/teams.py). So a principal named in two
of those places, or twice in one, is refused here rather than by EKS half way through `pulumi up`. A member who is
also a viewer would get one entry with both groups, but a member reaches its team's namespace and nothing else
(docs/adr/0016-teams-as-tenants.md), so that is refused too: each principal plays one part.

Two ARNs name one principal when IAM would take them for one:

* the same partition and account, exactly: another account's role of the same name is another principal (a STANDARD
  entry may name a principal of another account: creating-access-entries.html);
* the same kind, exactly: ``role/x`` and ``user/x`` are two resources with two ARNs;
* the same name, whatever its case: "IAM user, group, role, and policy names must be unique within the account.
  Names are not distinguished by case" (IAM API reference, CreateRole ``RoleName`` and CreateUser ``UserName``,
  https://docs.aws.amazon.com/IAM/latest/APIReference/API_CreateRole.html);
* whatever the path: the path is a separate parameter of CreateRole and CreateUser, not part of the name that must be
  unique in the account (IAM User Guide, "IAM identifiers", Friendly names and paths,
  https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html). ``role/a/ml`` and ``role/b/ml``
  cannot both exist: they are one role written twice, or one of them names no role, and neither belongs in a stack
  file twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .base import ConfigValueError

ACCESS_ENTRY_ARN = r"^arn:aws(-cn|-us-gov)?:iam::\d{12}:(role|user)/[\w+=,.@/-]+$"
"""An IAM role or user: what an EKS access entry's principal may be (CreateAccessEntry, ``principalArn``: "You can't
use the STS session principal type with access entries", so an assumed-role session ARN is no principal)."""

ADMIN, VIEWER = "a cluster admin", "a queue viewer"

KeyPath = tuple[str | int, ...]


@dataclass(frozen=True)
class Listing:
    """One place the stack file lists a principal that gets an access entry."""

    arn: str
    path: KeyPath
    """The key's whole path in the stack file, ``("eks", "adminPrincipals", 0)``."""
    part: str
    """What the principal is there: ``a cluster admin``, ``a member of team 'llm'``, ``a queue viewer``."""

    @property
    def key(self) -> str:
        """The key as the stack file writes it: ``scheduling.teams[0].members[1]``."""
        return "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in self.path).lstrip(".")


def principal(arn: str) -> tuple[str, str, str, str]:
    """(partition, account, kind, name) as IAM tells principals apart: the name in lower case, the path left out.
    ``arn`` matches :data:`ACCESS_ENTRY_ARN`."""
    _, partition, _, _, account, resource = arn.split(":", 5)
    kind, _, path_and_name = resource.partition("/")
    return partition, account, kind, path_and_name.rsplit("/", 1)[-1].lower()


def admin_listings(arns: Sequence[str]) -> list[Listing]:
    return [Listing(arn, ("eks", "adminPrincipals", index), ADMIN) for index, arn in enumerate(arns)]


def team_listings(teams: Sequence[tuple[str, Sequence[str]]], viewers: Sequence[str]) -> list[Listing]:
    """The members of each team (its name, its member ARNs) and the queue viewers."""
    listed = [Listing(arn, ("scheduling", "teams", index, "members", member), f"a member of team '{team}'")
              for index, (team, members) in enumerate(teams) for member, arn in enumerate(members)]
    return listed + [Listing(arn, ("scheduling", "viewers", index), VIEWER) for index, arn in enumerate(viewers)]


def refuse_repeats(listings: Iterable[Listing], *, within: KeyPath = ()) -> None:
    """ConfigValueError at the second listing of a principal, with a path relative to ``within`` (the path of the
    model that checks)."""
    seen: dict[tuple[str, str, str, str], Listing] = {}
    for listing in listings:
        first = seen.setdefault(principal(listing.arn), listing)
        if first is listing:
            continue
        if first.arn == listing.arn and first.part == listing.part:
            said = f"{listing.arn} is listed twice as {first.part} ({first.key} and {listing.key})"
        elif first.arn == listing.arn:
            said = f"{listing.arn} is {first.part} ({first.key}) and {listing.part} ({listing.key})"
        else:
            said = (f"{listing.arn} ({listing.key}, {listing.part}) and {first.arn} ({first.key}, {first.part}) name "
                    f"one IAM {principal(first.arn)[2]}: {_spelling(first.arn, listing.arn)}")
        raise ConfigValueError(f"{said}; EKS gives a principal one access entry per cluster, so each is listed once.",
                               fix=_fix(first, listing), path=listing.path[len(within):], value=listing.arn)


def _spelling(first: str, second: str) -> str:
    """Why two spellings are one principal: the case of the name, the path, or both."""
    paths = {arn.split(":", 5)[5].rpartition("/")[0] for arn in (first, second)}
    names = {arn.rsplit("/", 1)[-1] for arn in (first, second)}
    reasons = (["IAM names ignore case"] if len(names) > 1 else []) + (
        ["a path is not part of the name"] if len(paths) > 1 else [])
    return " and ".join(reasons)


def _fix(first: Listing, second: Listing) -> str:
    if first.part == second.part:
        return f"remove one of them (keep {first.key})."
    if ADMIN in (first.part, second.part):
        other = second if first.part == ADMIN else first
        return f"remove it from {other.key}: a cluster admin reaches every namespace and queue already."
    if VIEWER in (first.part, second.part):
        return ("keep it in one of the two, and give the queue viewing a role of its own (an IAM Identity Center "
                "permission set): a member reaches its team's namespace and nothing else.")
    return "use one role per team (an IAM Identity Center permission set each)."
