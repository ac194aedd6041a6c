"""The network check of ``trainstack preflight nodes``: does the cluster enforce the teams' NetworkPolicies?

A stack with teams fences each team's namespace with a NetworkPolicy (tenancy/isolation.py). The API server accepts
a NetworkPolicy whether or not anything enforces it; the network plugin enforces it. The VPC CNI does so only with
network policy turned on, off by default (EKS user guide, https://docs.aws.amazon.com/eks/latest/userguide/
cni-network-policy-configure.html). On a cluster trainstack makes, the stack turns it on itself (the vpc-cni
add-on's ``enableNetworkPolicy``, cluster/eks_cluster.py); on one made elsewhere (``existingCluster``) it is the
owner's, and this check reads it.

What is read, from the VPC CNI's own chart (amazon-vpc-cni-k8s, charts/aws-vpc-cni/templates/daemonset.yaml and
configmap.yaml, chart 1.23.1; the EKS add-on renders the same objects): the ``aws-node`` DaemonSet in
``kube-system`` runs the network policy agent as its container ``aws-eks-nodeagent``, with the argument
``--enable-network-policy=<enableNetworkPolicy>``; the same value is written to the ConfigMap ``amazon-vpc-cni`` as
``enable-network-policy-controller``, which turns on the controller that resolves policies into the endpoints the
agent enforces (EKS user guide, auto-net-pol.html, names that ConfigMap key as the controller's switch). Both must
be on. A cluster without the ``aws-node`` DaemonSet runs another network plugin, or EKS Auto Mode (whose node class
sets ``networkPolicy``): this check cannot judge those, and says so (could not check, not a pass).

The DaemonSet's pod template is read, not each node's running pod: a template just changed may still be rolling
out. Reads only (one DaemonSet and one ConfigMap); changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from ..kube.client import ApiError, Cluster
from ..outputs import StackOutputs
from .check import Check

CHECK = "network policy"
CNI_NAMESPACE = "kube-system"
CNI_DAEMONSET = "aws-node"
AGENT_CONTAINER = "aws-eks-nodeagent"
AGENT_FLAG = "--enable-network-policy"
CNI_CONFIGMAP = "amazon-vpc-cni"
CONTROLLER_KEY = "enable-network-policy-controller"
# The agent parses its flags with spf13/pflag: a bool flag given alone is true, and a value is read by Go's
# strconv.ParseBool.
TRUE = {"1", "t", "T", "TRUE", "true", "True"}


@dataclass(frozen=True)
class NetworkPolicyNeed:
    """The team namespaces a NetworkPolicy fences."""

    namespaces: tuple[str, ...]


@dataclass(frozen=True)
class NetworkPolicyReading:
    """What the cluster says: the ``aws-node`` DaemonSet and the ``amazon-vpc-cni`` ConfigMap (None: not there)."""

    daemonset: Optional[dict[str, Any]]
    configmap: Optional[dict[str, Any]]


def network_policy_need(outputs: StackOutputs) -> Optional[NetworkPolicyNeed]:
    """The team namespaces of ``outputs``' stack (each fenced by a NetworkPolicy); None on a stack without teams."""
    if outputs.scheduling is None or not outputs.scheduling.queues:
        return None
    return NetworkPolicyNeed(tuple(sorted({q.namespace for q in outputs.scheduling.queues.values()})))


def subject(need: NetworkPolicyNeed) -> str:
    return f"NetworkPolicy of namespaces {', '.join(need.namespaces)}"


def read_network_policy(cluster: Cluster, need: Optional[NetworkPolicyNeed]) -> Optional[NetworkPolicyReading]:
    """The VPC CNI's DaemonSet and ConfigMap (nothing read without a need). A missing object is read as None; any
    other refusal is raised (the caller says the check could not run)."""
    if need is None:
        return None
    return NetworkPolicyReading(
        _get(cluster, f"/apis/apps/v1/namespaces/{CNI_NAMESPACE}/daemonsets/{CNI_DAEMONSET}"),
        _get(cluster, f"/api/v1/namespaces/{CNI_NAMESPACE}/configmaps/{CNI_CONFIGMAP}"))


def _get(cluster: Cluster, path: str) -> Optional[dict[str, Any]]:
    try:
        return cluster.get(path)
    except ApiError as error:
        if error.status == 404:
            return None
        raise


def check_network_policy(need: Optional[NetworkPolicyNeed], reading: Optional[NetworkPolicyReading],
                         cluster_name: Optional[str]) -> list[Check]:
    """One check for the stack's teams: pass when the VPC CNI's agent and controller are both on, fail naming what
    is off and how to turn it on, could not check where the cluster does not run the VPC CNI's DaemonSet."""
    if need is None or reading is None:
        return []
    said = subject(need)
    if reading.daemonset is None:
        return [Check(CHECK, said, "could-not-check",
                      f"the cluster has no DaemonSet {CNI_NAMESPACE}/{CNI_DAEMONSET}: it does not run the VPC CNI as "
                      "its add-on or chart make it (another network plugin, or EKS Auto Mode, whose node class sets "
                      "networkPolicy). Check that its network plugin enforces NetworkPolicy: until then the teams' "
                      "namespaces are not fenced from one another")]
    agent = _agent_flag(reading.daemonset)
    controller = _controller(reading.configmap)
    off = []
    if agent is None:
        off.append(f"DaemonSet {CNI_NAMESPACE}/{CNI_DAEMONSET} runs no container {AGENT_CONTAINER} (the network "
                   "policy agent; VPC CNI 1.14 or later)")
    elif not agent:
        off.append(f"its container {AGENT_CONTAINER} does not run with {AGENT_FLAG}=true")
    if controller is False:
        off.append(f"ConfigMap {CNI_NAMESPACE}/{CNI_CONFIGMAP} does not set {CONTROLLER_KEY} to \"true\"")
    if not off:
        return [Check(CHECK, said, "pass",
                      f"DaemonSet {CNI_NAMESPACE}/{CNI_DAEMONSET} runs {AGENT_CONTAINER} with {AGENT_FLAG}=true"
                      + ("" if controller is None else f", and ConfigMap {CNI_CONFIGMAP} sets {CONTROLLER_KEY}"))]
    return [Check(CHECK, said, "fail",
                  "; ".join(off) + ": the API server accepts the teams' NetworkPolicies and nothing enforces them, so "
                  f"any pod of the cluster can connect to any team's pods. Fix: {_fix(cluster_name)}")]


def _agent_flag(daemonset: Mapping[str, Any]) -> Optional[bool]:
    """Whether the agent container enforces policy (None: no agent container)."""
    containers = (((daemonset.get("spec") or {}).get("template") or {}).get("spec") or {}).get("containers") or []
    agent = next((c for c in containers if c.get("name") == AGENT_CONTAINER), None)
    if agent is None:
        return None
    enabled = False
    for arg in agent.get("args") or []:  # the last one given wins, as pflag reads them
        if arg == AGENT_FLAG:
            enabled = True
        elif str(arg).startswith(f"{AGENT_FLAG}="):
            enabled = str(arg).split("=", 1)[1] in TRUE
    return enabled


def _controller(configmap: Optional[Mapping[str, Any]]) -> Optional[bool]:
    """Whether the ConfigMap turns the controller on (None: no ConfigMap or no such key, so not judged)."""
    value = ((configmap or {}).get("data") or {}).get(CONTROLLER_KEY)
    return None if value is None else value == "true"


def _fix(cluster_name: Optional[str]) -> str:
    cluster = cluster_name or "<cluster>"
    return (f"add \"enableNetworkPolicy\": \"true\" to the vpc-cni add-on's configuration values, keeping those it "
            f"has (`aws eks describe-addon --cluster-name {cluster} --addon-name vpc-cni`, then `aws eks update-addon "
            f"--cluster-name {cluster} --addon-name vpc-cni --configuration-values <the values with that key>`), or "
            "`--set enableNetworkPolicy=true` on an aws-vpc-cni chart install "
            "(https://docs.aws.amazon.com/eks/latest/userguide/cni-network-policy-configure.html)")
