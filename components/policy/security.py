"""Security rules: IMDSv2, no internet ingress, private endpoints, IAM actions.

Encryption at rest is in ``encryption``; IAM grants against AWS's reference in
``iam_conformance``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..names import (
    EKS_CLUSTER,
    IAM_POLICY,
    IAM_ROLE_POLICY,
    LAUNCH_TEMPLATE,
)
from .internet_ingress import ALL, OpenWindow, open_windows
from .model import Rule, Stack, Violation, eks_components_seen_by_inputs, is_unknown

IAM_POLICIES = (IAM_POLICY, IAM_ROLE_POLICY)


def imdsv2_required(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    """A template that does not say ``required`` leaves IMDSv1 to the AMI's ImdsSupport flag and the
    account's metadata defaults, neither of which the stack controls or shows."""
    for template in stack.of_type(LAUNCH_TEMPLATE):
        tokens = (template.props.get("metadataOptions") or {}).get("httpTokens")
        if tokens == "optional":
            yield Violation(template.urn, f"launch template {template.name} allows IMDSv1 (httpTokens 'optional'); "
                                          "set metadataOptions.httpTokens to 'required'.")
        elif tokens != "required":
            yield Violation(template.urn, f"launch template {template.name} does not require IMDSv2: IMDSv1 stays "
                                          "open unless the AMI or the account default requires tokens; set "
                                          "metadataOptions.httpTokens to 'required'.")


def _opened(window: OpenWindow) -> tuple[str, str]:
    """Who opens the window and to what: one rule and its CIDR, or the rules whose CIDRs add up to the
    internet, with the space they cover."""
    names = sorted({rule.resource.name for rule in window.rules})
    if len(window.cidrs) == 1:
        return names[0], window.cidrs[0]
    return ", ".join(names), f"{', '.join(window.cidrs)} (together every address of {' and '.join(window.spaces)})"


def no_public_ingress(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    allowed = {int(p) for p in config.get("allowedPublicPorts") or []}
    for window in open_windows(stack):
        if window.protocol == "tcp" and window.low is not None and window.high is not None \
                and set(range(window.low, window.high + 1)) <= allowed:
            continue
        who, cidrs = _opened(window)
        yield Violation(window.rules[0].resource.urn, f"{who} admits {cidrs} ({window.said()}); reference a "
                                                     "security group or a narrow CIDR instead.")


def no_ssh_from_internet(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    for window in open_windows(stack):
        if window.protocol == ALL or (window.protocol == "tcp" and window.holds(22)):
            who, cidrs = _opened(window)
            yield Violation(window.rules[0].resource.urn, f"{who} opens SSH (port 22) to {cidrs}; use SSM "
                                                         "Session Manager or a bastion reached through a narrow "
                                                         "range.")


def eks_endpoint_private_in_production(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    if stack.profile(config) != "production":
        return
    for cluster in eks_components_seen_by_inputs(stack):
        # pulumi-eks makes the endpoint public unless told otherwise.
        if cluster.props.get("endpointPublicAccess", True) is not False:
            yield Violation(cluster.urn, f"EKS cluster {cluster.name} has a public API endpoint in a "
                                         "production stack; set endpointPublicAccess false.")
    for cluster in stack.of_type(EKS_CLUSTER):
        if (cluster.props.get("vpcConfig") or {}).get("endpointPublicAccess", True) is not False:
            yield Violation(cluster.urn, f"EKS cluster {cluster.name} has a public API endpoint in a "
                                         "production stack.")


def _actions(document: dict[str, Any]) -> Iterator[str]:
    for statement in document.get("Statement") or []:
        if statement.get("Effect", "Allow") != "Allow":
            continue
        actions = statement.get("Action") or []
        yield from ([actions] if isinstance(actions, str) else actions)


def iam_no_wildcard_actions(stack: Stack, config: dict[str, Any]) -> Iterator[Violation]:
    allowed = set(config.get("allowedActions") or [])
    for policy in stack.of_type(*IAM_POLICIES):
        text = policy.props.get("policy")
        if is_unknown(text) or not isinstance(text, str):
            continue
        wildcards = sorted({a for a in _actions(json.loads(text)) if "*" in a} - allowed)
        if wildcards:
            yield Violation(policy.urn, f"IAM policy {policy.name} grants wildcard actions {wildcards}; list the "
                                        "actions, or allow-list an AWS-required one in allowedActions.")


RULES = [
    Rule("imdsv2-required", "Launch templates require IMDSv2 (httpTokens required).", "mandatory",
         imdsv2_required, source="EC2 User Guide, Configure the instance metadata options for new instances "
         "(without httpTokens the AMI's ImdsSupport and the account default decide)"),
    Rule("no-public-ingress", "No security group admits 0.0.0.0/0 or ::/0 (one rule's CIDR, or several whose CIDRs "
         "add up to it), except on allowedPublicPorts (TCP 80 and 443 by default, as AWS Security Hub's EC2.18 "
         "authorizes).", "mandatory", no_public_ingress,
         config={"allowedPublicPorts": {"type": "array", "items": {"type": "integer"}, "default": [80, 443]}},
         source="AWS Security Hub control EC2.18 (unrestricted ingress only on authorized ports, 80 and 443 "
         "by default)"),
    Rule("no-ssh-from-internet", "No security group opens SSH to the internet.", "mandatory", no_ssh_from_internet,
         source="AWS Security Hub control EC2.13 (no ingress from 0.0.0.0/0 or ::/0 to port 22)"),
    Rule("eks-endpoint-private-in-production", "Production-profile EKS clusters have no public API endpoint.",
         "mandatory", eks_endpoint_private_in_production,
         config={"profile": {"type": "string", "enum": ["dev", "production"]}},
         source="EKS API CreateCluster: endpointPublicAccess defaults to true; AWS Security Hub control EKS.1"),
    Rule("iam-no-wildcard-actions", "IAM policies name their actions; no '*' in actions.", "mandatory",
         iam_no_wildcard_actions,
         config={"allowedActions": {"type": "array", "items": {"type": "string"}, "default": []}},
         source="IAM User Guide, Security best practices: apply least-privilege permissions"),
]
