"""HyperPod on EKS: will HyperPod's nodes join the cluster and run its pods?

A HyperPod cluster with EKS orchestration launches its instances in SageMaker's account
with interfaces in the stack's subnet and security groups, and they join the EKS cluster as
nodes (SageMaker developer guide, sagemaker-hyperpod-eks-prerequisites). From then on they
are EKS nodes, and need what EKS nodes need:

* Network (EKS user guide, sec-group-reqs, "Restricting cluster traffic": the minimum rules):
  the kubelet reaches the API server (TCP 443 to the control plane's interfaces, which carry
  the cluster security group); the control plane reaches the kubelet (TCP 10250: logs, exec,
  metrics); pods and the node resolve names through CoreDNS (TCP and UDP 53) on the nodes
  it may run on: the EKS add-on's pods tolerate no NoSchedule taint other than
  CriticalAddonsOnly, so every untainted managed node group.
* Identity: the execution role is the nodes' role. The VPC CNI's ipamd runs with it
  (AWS managed policy reference, AmazonEKS_CNI_Policy v5: the CNI's documented
  permissions, which AWS's HyperPod EKS template also grants: aws-samples/
  awsome-distributed-training 1.architectures/7.sagemaker-hyperpod-eks/cfn-templates/
  nested-stacks/sagemaker-iam-role-stack.yaml @ 7217859f), and so does the Pod Identity
  agent, which calls ``eks-auth:AssumeRoleForPodIdentity`` (EKS user guide, pod-id-agent-setup).
* Versions: a Kubernetes version HyperPod supports, and a VPC CNI from 1.18.3 where one is
  pinned (same prerequisites page; ``catalog.hyperpod_eks``).

Not modelled: routes and NACLs (trainstack renders neither for these subnets), the
EKS access entry HyperPod creates for the role (the service does it), the cluster
endpoint's private DNS, and anything HyperPod's own agents need beyond the managed policy.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from ..catalog.hyperpod_eks import (
    HYPERPOD_EKS_KUBERNETES_VERSIONS,
    HYPERPOD_EKS_MIN_VPC_CNI,
    HYPERPOD_EKS_VERSIONS_SOURCE,
)
from ..catalog.managed_policies import EKS_CNI, EKS_WORKER_NODE
from ..names import (
    EKS_ADDON,
    EKS_COMPONENT_CLUSTER,
    HYPERPOD_CLUSTER,
    IAM_ROLE,
    IAM_ROLE_POLICY,
    IAM_ROLE_POLICY_ATTACHMENT,
    LAUNCH_TEMPLATE,
    NODE_GROUP,
)
from ..policy.model import Resource, Stack
from .cluster_controllers import one_controller_per_kind
from .model import Finding
from .security_groups import Reachability
from .versions import cluster_version

CONTROLLER = "hyperpod-eks"
NETWORK_SOURCE = "EKS user guide, sec-group-reqs (default cluster security group; restricting cluster traffic)"
CNI_SOURCE = ("AWS managed policy reference, AmazonEKS_CNI_Policy v5; "
              "HyperPod EKS template sagemaker-iam-role-stack.yaml")
POD_IDENTITY_SOURCE = "EKS user guide, pod-id-agent-setup (node role needs eks-auth:AssumeRoleForPodIdentity)"

CNI_POLICY = EKS_CNI
CNI_ACTIONS = ("ec2:AssignPrivateIpAddresses", "ec2:AttachNetworkInterface", "ec2:CreateNetworkInterface",
               "ec2:DeleteNetworkInterface", "ec2:DescribeInstances", "ec2:DescribeTags",
               "ec2:DescribeNetworkInterfaces", "ec2:DescribeInstanceTypes", "ec2:DescribeSubnets",
               "ec2:DetachNetworkInterface", "ec2:ModifyNetworkInterfaceAttribute",
               "ec2:UnassignPrivateIpAddresses", "ec2:CreateTags")
"""What AmazonEKS_CNI_Policy (v5) grants: what ipamd may call."""
POD_IDENTITY = "eks-auth:AssumeRoleForPodIdentity"
WORKER_NODE_POLICY = EKS_WORKER_NODE
"""Grants ``eks-auth:AssumeRoleForPodIdentity`` among the node's permissions (managed policy reference)."""
COREDNS_TOLERATED = {"CriticalAddonsOnly"}


@dataclass(frozen=True)
class Flow:
    what: str
    protocol: str
    port: int
    to_cluster: bool
    """From the HyperPod nodes towards the cluster (True), or from the control plane to them."""


FLOWS = (Flow("kubelet to the API server", "tcp", 443, True),
         Flow("control plane to the kubelet", "tcp", 10250, False))
DNS_FLOWS = (Flow("DNS to CoreDNS", "udp", 53, True), Flow("DNS to CoreDNS over TCP", "tcp", 53, True))


def hyperpod_eks_findings(stack: Stack, printed: Sequence[str] = ()) -> list[Finding]:
    """Every way HyperPod's EKS nodes would fail to join or run pods (:func:`check`), and the cluster's
    controller conflicts among what ``stack`` installs and the installs ``printed``."""
    return [*one_controller_per_kind(stack, printed), *check(stack)]


def check(stack: Stack) -> list[Finding]:
    """Every way HyperPod's EKS nodes would fail to join or run pods.

    The pulumi-eks component carries its inputs offline and its outputs under the engine; what is read of
    it works from either (the Kubernetes version from ``versions.cluster_version``, which falls back on
    the component's child cluster; the cluster security group from its outputs)."""
    findings = []
    eks_clusters = stack.of_type(EKS_COMPONENT_CLUSTER)
    for hyperpod in stack.of_type(HYPERPOD_CLUSTER):
        if "eks" not in (hyperpod.inputs.get("orchestrator") or {}) or not eks_clusters:
            continue
        eks = eks_clusters[0]
        findings += _version(hyperpod, cluster_version(stack))
        findings += _vpc_cni(stack, hyperpod)
        findings += _network(stack, hyperpod, eks)
        findings += _execution_roles(stack, hyperpod)
    return findings


def _version(hyperpod: Resource, version: Optional[str]) -> list[Finding]:
    if version in HYPERPOD_EKS_KUBERNETES_VERSIONS:
        return []
    return [Finding(CONTROLLER, hyperpod.name, f"Kubernetes {version or '(EKS default)'} is not a version HyperPod "
                    f"supports ({', '.join(HYPERPOD_EKS_KUBERNETES_VERSIONS)}): set eks.version to one of them.",
                    HYPERPOD_EKS_VERSIONS_SOURCE, urn=hyperpod.urn)]


def _vpc_cni(stack: Stack, hyperpod: Resource) -> list[Finding]:
    """A pinned vpc-cni add-on older than HyperPod's minimum (unpinned, EKS installs its default for the
    cluster version, newer than 1.18.3 on every version HyperPod supports)."""
    findings = []
    for addon in stack.of_type(EKS_ADDON):
        version = addon.inputs.get("addonVersion")
        parsed = re.match(r"^v(\d+)\.(\d+)\.(\d+)", str(version or ""))
        if addon.inputs.get("addonName") == "vpc-cni" and parsed is not None and \
                tuple(int(n) for n in parsed.groups()) < HYPERPOD_EKS_MIN_VPC_CNI:
            findings.append(Finding(CONTROLLER, hyperpod.name, f"vpc-cni {version} is older than the 1.18.3 HyperPod "
                                    "needs on its nodes: pin a later version.", HYPERPOD_EKS_VERSIONS_SOURCE,
                                    urn=hyperpod.urn))
    return findings


def _node_group_security_groups(stack: Stack, group: Resource, cluster_group: str) -> list[str]:
    template = (group.inputs.get("launchTemplate") or {}).get("id")
    for record in stack.of_type(LAUNCH_TEMPLATE):
        if template is not None and record.id == template:
            interfaces = record.inputs.get("networkInterfaces") or []
            return list(record.inputs.get("vpcSecurityGroupIds") or
                        [g for i in interfaces for g in i.get("securityGroups") or []] or [cluster_group])
    return [cluster_group]  # without a launch template EKS puts the nodes in the cluster security group


def _coredns_node_groups(stack: Stack) -> Iterator[Resource]:
    for group in stack.of_type(NODE_GROUP):
        taints = [t for t in group.inputs.get("taints") or [] if t.get("effect") in ("NO_SCHEDULE", "NO_EXECUTE")]
        if all(t.get("key") in COREDNS_TOLERATED for t in taints):
            yield group


def _network(stack: Stack, hyperpod: Resource, eks: Resource) -> list[Finding]:
    cluster_group = str(eks.outputs.get("clusterSecurityGroupId"))
    nodes = list((hyperpod.inputs.get("vpcConfig") or {}).get("securityGroupIds") or [])
    reach = Reachability.of_stack(stack, eks_cluster_groups=[cluster_group])
    findings = []
    for flow in FLOWS:
        source, destination = (nodes, [cluster_group]) if flow.to_cluster else ([cluster_group], nodes)
        if not reach.allows(source, destination, flow.protocol, flow.port):
            findings.append(_blocked(hyperpod, flow, "the control plane (cluster security group)"))
    for group in _coredns_node_groups(stack):
        groups = _node_group_security_groups(stack, group, cluster_group)
        for flow in DNS_FLOWS:
            if not reach.allows(nodes, groups, flow.protocol, flow.port):
                findings.append(_blocked(hyperpod, flow, f"node group {group.name}, where CoreDNS may run"))
    return findings


def _blocked(hyperpod: Resource, flow: Flow, peer: str) -> Finding:
    direction = f"from HyperPod's nodes to {peer}" if flow.to_cluster else f"from {peer} to HyperPod's nodes"
    return Finding(CONTROLLER, hyperpod.name,
                   f"{flow.what} ({flow.protocol.upper()} {flow.port}) {direction} is not allowed by the security "
                   "groups: the nodes cannot join or serve the cluster. Put HyperPod's nodes in the EKS cluster "
                   "security group, or add the rules both ways.", NETWORK_SOURCE, urn=hyperpod.urn)


def _execution_roles(stack: Stack, hyperpod: Resource) -> list[Finding]:
    findings = []
    arns = {g.get("executionRole") for g in hyperpod.inputs.get("instanceGroups") or []}
    for role in stack.of_type(IAM_ROLE):
        if role.outputs.get("arn") not in arns:
            continue
        names = {role.id, role.outputs.get("name")}
        managed = {a.inputs.get("policyArn") for a in stack.of_type(IAM_ROLE_POLICY_ATTACHMENT)
                   if a.inputs.get("role") in names}
        statements = [s for p in stack.of_type(IAM_ROLE_POLICY) if p.inputs.get("role") in names
                      for s in _statements(p.inputs.get("policy"))]
        missing = [a for a in CNI_ACTIONS if not _allowed(statements, a)] if CNI_POLICY not in managed else []
        if missing:
            findings.append(Finding(CONTROLLER, role.name, f"the VPC CNI on HyperPod's nodes runs with this role, "
                                    f"which lacks {', '.join(missing)}: pods get no IP addresses. Attach "
                                    f"{CNI_POLICY}.", CNI_SOURCE, urn=role.urn))
        cluster_arn = (hyperpod.inputs.get("orchestrator") or {}).get("eks", {}).get("clusterArn", "*")
        if WORKER_NODE_POLICY not in managed and not _allowed(statements, POD_IDENTITY, cluster_arn):
            findings.append(Finding(CONTROLLER, role.name, f"the Pod Identity agent on HyperPod's nodes runs with "
                                    f"this role, which lacks {POD_IDENTITY}: pods with a Pod Identity association "
                                    "get no credentials. Grant it on the EKS cluster.", POD_IDENTITY_SOURCE,
                                    urn=role.urn))
    return findings


def _statements(policy: Any) -> list[dict[str, Any]]:
    document = json.loads(policy) if isinstance(policy, str) else (policy or {})
    statements = document.get("Statement") or []
    return [statements] if isinstance(statements, dict) else list(statements)


def _allowed(statements: list[dict[str, Any]], action: str, resource: str = "*") -> bool:
    """Whether an Allow statement grants ``action`` on ``resource`` (wildcards as IAM matches them;
    actions case-insensitively). ``resource`` "*" checks the action only: the CNI acts on
    interfaces not known before it runs, and the conformance tests check each grant's resources
    against the Service Authorization Reference."""
    def listed(statement: dict[str, Any], key: str) -> list[str]:
        value = statement.get(key) or []
        return [value] if isinstance(value, str) else list(value)
    return any(s.get("Effect") == "Allow"
               and any(fnmatch.fnmatch(action.lower(), n.lower()) for n in listed(s, "Action"))
               and (resource == "*" or any(fnmatch.fnmatchcase(resource, r) for r in listed(s, "Resource")))
               for s in statements)
