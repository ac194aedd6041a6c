"""`trainstack preflight nodes` on a stack with teams reads whether the cluster enforces their NetworkPolicies, from
the real kube-apiserver (v1.35.4): the VPC CNI's `aws-node` DaemonSet and `amazon-vpc-cni` ConfigMap in kube-system,
shaped as the aws-vpc-cni chart renders them (amazon-vpc-cni-k8s, charts/aws-vpc-cni/templates/daemonset.yaml and
configmap.yaml, chart 1.23.1: the container `aws-eks-nodeagent` with `--enable-network-policy=<enableNetworkPolicy>`,
and `enable-network-policy-controller` from the same value, "false" by default).

byo-p5 is a cluster made elsewhere: the stack renders each team's NetworkPolicy, and the API server accepts it
whether or not anything enforces it. So the check passes only where the agent and its controller are on."""

from __future__ import annotations

import base64
import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pytest
from support.control_plane import ApiError, Cluster
from support.rendered_jobs import planned_record
from trainstack import cli
from trainstack.rehearsal import engines
from trainstack.rehearsal.control_plane import ADMIN_TOKEN

pytestmark = pytest.mark.engines(engines.KUBERNETES)

SUBJECT = "NetworkPolicy of namespaces research"


def daemonset(agent_args: Optional[list[str]]) -> dict[str, Any]:
    """`aws-node` as the chart renders it; the agent container only where ``agent_args`` is given (VPC CNI 1.14+)."""
    labels = {"k8s-app": "aws-node"}
    containers = [{"name": "aws-node", "image": "602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni:v1.23.1"}]
    if agent_args is not None:
        containers.append({"name": "aws-eks-nodeagent", "args": agent_args,
                           "image": "602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon/aws-network-policy-agent:v1"})
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "aws-node", "namespace": "kube-system"},
            "spec": {"selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": {"containers": containers}}}}


def configmap(controller: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "amazon-vpc-cni", "namespace": "kube-system"},
            "data": {"enable-network-policy-controller": controller}}


@pytest.fixture
def vpc_cni(cluster: Cluster) -> Iterator[Any]:
    """Creates the VPC CNI's objects a test names; deletes them after (the API server is shared)."""
    made: list[dict[str, Any]] = []

    def install(*objects: dict[str, Any]) -> None:
        for obj in objects:
            made.append(cluster.create(obj))

    yield install
    for obj in made:
        with contextlib.suppress(ApiError):
            cluster.delete(obj)


@pytest.fixture
def outputs_file(cluster: Cluster, tmp_path: Path) -> Path:
    """byo-p5's plan record with a kubeconfig that reaches the engine's API server as its admin."""
    ca = base64.b64encode(Path(cluster.session.verify).read_bytes()).decode()
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "byo",
        "clusters": [{"name": "k", "cluster": {"server": cluster.url, "certificate-authority-data": ca}}],
        "contexts": [{"name": "byo", "context": {"cluster": "k", "user": "u"}}],
        "users": [{"name": "u", "user": {"token": ADMIN_TOKEN}}]}))
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(planned_record("byo-p5")))
    return path


def network_check(outputs: Path) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli.main(["preflight", "nodes", "--outputs", str(outputs), "--kubeconfig", str(outputs.parent / "kubeconfig"),
                  "--json"])
    (check,) = [c for c in json.loads(out.getvalue()) if c["name"] == "network policy"]
    assert check["subject"] == SUBJECT
    return check


def test_the_agent_and_its_controller_on_pass(outputs_file, vpc_cni):
    vpc_cni(daemonset(["--enable-ipv6=false", "--enable-network-policy=true"]), configmap("true"))
    check = network_check(outputs_file)
    assert check["status"] == "pass"
    assert check["reason"] == ("DaemonSet kube-system/aws-node runs aws-eks-nodeagent with "
                               "--enable-network-policy=true, and ConfigMap amazon-vpc-cni sets "
                               "enable-network-policy-controller")


def test_the_charts_default_fails_naming_the_agent_the_controller_and_the_add_on_fix(outputs_file, vpc_cni):
    vpc_cni(daemonset(["--enable-network-policy=false"]), configmap("false"))
    check = network_check(outputs_file)
    assert check["status"] == "fail"
    assert check["reason"].startswith(
        "its container aws-eks-nodeagent does not run with --enable-network-policy=true; ConfigMap "
        "kube-system/amazon-vpc-cni does not set enable-network-policy-controller to \"true\": the API server accepts "
        "the teams' NetworkPolicies and nothing enforces them")
    assert "aws eks update-addon --cluster-name ml-platform-prod --addon-name vpc-cni" in check["reason"]


def test_the_agent_on_with_its_controller_off_fails(outputs_file, vpc_cni):
    vpc_cni(daemonset(["--enable-network-policy=true"]), configmap("false"))
    check = network_check(outputs_file)
    assert check["status"] == "fail" and "enable-network-policy-controller" in check["reason"]


def test_a_vpc_cni_without_the_network_policy_agent_fails(outputs_file, vpc_cni):
    vpc_cni(daemonset(None))  # before VPC CNI 1.14: no agent, no ConfigMap key
    check = network_check(outputs_file)
    assert check["status"] == "fail"
    assert check["reason"].startswith("DaemonSet kube-system/aws-node runs no container aws-eks-nodeagent")


def test_a_cluster_without_aws_node_could_not_be_checked_which_is_not_a_pass(outputs_file, cluster):
    with pytest.raises(ApiError):
        cluster.get("/apis/apps/v1/namespaces/kube-system/daemonsets/aws-node")
    check = network_check(outputs_file)
    assert check["status"] == "could-not-check"
    assert "no DaemonSet kube-system/aws-node" in check["reason"] and "not fenced" in check["reason"]
