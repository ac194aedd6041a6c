"""What every recorded plan must satisfy, whichever test records it: its IAM policy documents
conform to IAM's Service Authorization Reference and grant '*' only where the components name
the reason, and its pulumi-aws-native resources pass their region's CloudFormation schema.

``tests/conftest.py`` runs this on every plan the suite records, so the variants the
component tests render (other regions, orchestrators, add-ons, instance types) are checked
as well as the shipped stacks.
"""

import json
from collections.abc import Iterator
from typing import Any

from trainstack.cluster import autoscaler, karpenter
from trainstack.hyperpod import iam as hyperpod_iam
from trainstack.names import IAM_ROLE
from trainstack.plan import Plan
from trainstack.policy import Stack, stack_from_plan
from trainstack.policy.iam_conformance import IDENTITY_POLICIES, document_findings

from support.cloudformation import NATIVE_PREFIX, native_resource_errors

UNSCOPED_ACTIONS: dict[str, str] = {**hyperpod_iam.UNSCOPED_ACTIONS, **autoscaler.UNSCOPED_ACTIONS,
                                    **karpenter.UNSCOPED_ACTIONS}
"""Every action trainstack grants on '*', with the reason, as the components that grant it name it."""


def policy_documents(stack: Stack) -> Iterator[tuple[str, dict[str, Any], bool]]:
    """(where, document, is a trust policy) for every IAM policy document in the stack."""
    for resource in stack.of_type(*IDENTITY_POLICIES):
        yield f"{resource.name} policy", json.loads(resource.props["policy"]), False
    for resource in stack.of_type(IAM_ROLE):
        yield f"{resource.name} trust policy", json.loads(resource.props["assumeRolePolicy"]), True
        for inline in resource.props.get("inlinePolicies") or []:
            yield f"{resource.name} inline policy {inline['name']}", json.loads(inline["policy"]), False


def star_grants(document: dict[str, Any]) -> Iterator[str]:
    """The actions an Allow statement grants on '*'."""
    for statement in document["Statement"]:
        resources = statement.get("Resource") or []
        if statement.get("Effect") == "Allow" and "*" in ([resources] if isinstance(resources, str) else resources):
            actions = statement["Action"]
            yield from ([actions] if isinstance(actions, str) else actions)


def iam_problems(stack: Stack) -> list[str]:
    problems = []
    for where, document, trust in policy_documents(stack):
        problems += [f"{where}: {finding}" for finding in document_findings(document, trust=trust)]
        if not trust:
            problems += [f"{where}: {action} is granted on '*' but no component names why (UNSCOPED_ACTIONS)"
                         for action in star_grants(document) if action not in UNSCOPED_ACTIONS]
    return problems


def native_problems(stack: Stack, default_region: str) -> list[str]:
    """``default_region``: the region of the default aws-native provider (resources without their own)."""
    problems = []
    for resource in stack.resources:
        if resource.type.startswith(NATIVE_PREFIX):
            region = (resource.provider or {}).get("region") or default_region
            problems += [f"{resource.name} ({region}): {error}"
                         for error in native_resource_errors(resource.type, resource.props, region)]
    return problems


def plan_problems(plan: Plan, config: dict[str, str], default_region: str) -> list[str]:
    """``config``: the run's stack config (``aws-native:region`` sets the default aws-native provider's region)."""
    stack = stack_from_plan(plan)
    native_region = config.get("aws-native:region") or config.get("aws:region") or default_region
    return iam_problems(stack) + native_problems(stack, native_region)
