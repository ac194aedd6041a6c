"""The fences of a team's namespace: its Pod Security level, who may connect to its pods, and how much it holds.

Network: the namespace denies ingress except from its own pods and from the namespaces of the stack's services
that connect to pods (Prometheus scrapes them, where the stack runs it). Everything a job's pods say to one
another stays inside the namespace: torchrun's c10d store on the first node's pod, Open MPI's ssh from the
launcher to the workers, a TrainJob's JobSet service. Egress stays open: pods reach DNS, etcd's rendezvous (its
own namespace), S3, ECR and the Hugging Face Hub. Another team's pods cannot connect in because that team's
namespace denies them, so ingress alone separates every pair of teams. EKS enforces NetworkPolicy through the
VPC CNI's network policy agent once the vpc-cni add-on has ``enableNetworkPolicy`` (EKS user guide,
cni-network-policy-configure.html), as ``cluster/eks_cluster.py`` sets on stacks with teams. On a cluster made
elsewhere the network plugin is its owner's: the access table marks the fence "not enforced until checked"
(review/access.py), and ``trainstack preflight nodes`` reads it (preflight/network_policy.py).

EFA traffic is not IP traffic: libfabric's EFA provider sends SRD packets from user space straight to the
device (OS bypass), past the kernel's network stack, where the network policy agent's eBPF programs sit (EC2
user guide, efa.html, "EFA basics": "OS-bypass traffic ... is not routable"; aws-network-policy-agent attaches
its programs to each pod's veth). NCCL's and Neuron's collectives are therefore neither helped nor fenced by a
NetworkPolicy. The EFA security group admits only its own members (network/), and one group serves every team's
nodes: nothing in the network separates one team's EFA traffic from another's.
"""

from __future__ import annotations

from typing import Any

from .model import DEFAULT_REQUEST, POD_SECURITY_WARN, TEAM_LABEL, Tenant

NETWORK_POLICY = "trainstack-team-ingress"
QUOTA = "trainstack-team"
PSA = "pod-security.kubernetes.io/"


def namespace_labels(tenant: Tenant) -> dict[str, str]:
    """Pod Security Admission's labels (Kubernetes docs, "Enforce Pod Security Standards with Namespace Labels")
    and the team's."""
    return {f"{PSA}enforce": tenant.pod_security, f"{PSA}warn": POD_SECURITY_WARN,
            f"{PSA}audit": POD_SECURITY_WARN, TEAM_LABEL: tenant.team}


def network_policy(tenant: Tenant, scrapers: list[str]) -> dict[str, Any]:
    """Ingress from the namespace's own pods and from ``scrapers`` (namespaces), nothing else."""
    sources: list[dict[str, Any]] = [{"podSelector": {}}]
    sources += [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": scraper}}}
                for scraper in scrapers]
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": {"name": NETWORK_POLICY, "namespace": tenant.namespace},
            "spec": {"podSelector": {}, "policyTypes": ["Ingress"], "ingress": [{"from": sources}]}}


def quota_objects(tenant: Tenant) -> list[dict[str, Any]]:
    """The namespace's ResourceQuota (not the accelerators: Kueue's quotas keep those) and the LimitRange that
    gives a container without requests the default ones, so the quota can count it."""
    metadata = {"name": QUOTA, "namespace": tenant.namespace}
    return [
        {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": metadata, "spec": {"hard": dict(tenant.quota)}},
        {"apiVersion": "v1", "kind": "LimitRange", "metadata": dict(metadata),
         "spec": {"limits": [{"type": "Container", "defaultRequest": dict(DEFAULT_REQUEST)}]}},
    ]


def service_account(tenant: Tenant) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": tenant.service_account, "namespace": tenant.namespace}}
