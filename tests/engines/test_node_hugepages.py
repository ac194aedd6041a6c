"""`trainstack preflight nodes` against the real kube-apiserver (v1.35.4): Nodes registered as a kubelet would
(status.allocatable written through the status subresource), one EFA node short of huge pages and one with
enough, read through a stack's `kubeconfig` output shaped as an EKS one: the CA inline, the token from an exec
plugin (a real process printing an ExecCredential, as `aws eks get-token` does)."""

from __future__ import annotations

import base64
import copy
import json
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.control_plane import Cluster
from support.rendered_jobs import planned_record
from trainstack import cli
from trainstack.catalog import HUGEPAGES_RESOURCE
from trainstack.kube.quantity import quantity
from trainstack.launch.placement import resources
from trainstack.names import NODE_GROUP_LABEL
from trainstack.outputs import parse_outputs
from trainstack.rehearsal import engines
from trainstack.rehearsal.control_plane import ADMIN_TOKEN

pytestmark = pytest.mark.engines(engines.KUBERNETES)

GROUP = "p5-hugepages-check"
"""fsdp-p5's group under a name no other engine test labels nodes with (they share one API server)."""


def stack_outputs() -> dict[str, Any]:
    """fsdp-p5's outputs contract with its p5 group renamed to GROUP, selecting nodes by that name."""
    contract = copy.deepcopy(planned_record("fsdp-p5")["outputs"]["trainstack"])
    group = contract["acceleratedGroups"].pop("p5")
    group["nodeSelector"] = {NODE_GROUP_LABEL: GROUP}
    contract["acceleratedGroups"][GROUP] = group
    return contract


CONTRACT = stack_outputs()
TARGET = parse_outputs(CONTRACT).accelerated_groups[GROUP]
REQUEST = resources(TARGET, TARGET.accelerators_per_node)["requests"][HUGEPAGES_RESOURCE]
"""What the launchers' pods on the group request, whatever figure that is."""
HALF = f"{int(quantity(REQUEST) / 2**20) // 2}Mi"


def eks_like_kubeconfig(cluster: Cluster, plugin: Path) -> dict[str, Any]:
    """A kubeconfig as pulumi-eks writes a stack's: CA data inline, the token from an exec plugin."""
    ca = base64.b64encode(Path(cluster.session.verify).read_bytes()).decode()
    return {"apiVersion": "v1", "kind": "Config", "current-context": "aws",
            "clusters": [{"name": "kubernetes", "cluster": {"server": cluster.url, "certificate-authority-data": ca}}],
            "contexts": [{"name": "aws", "context": {"cluster": "kubernetes", "user": "aws"}}],
            "users": [{"name": "aws", "user": {"exec": {
                "apiVersion": "client.authentication.k8s.io/v1beta1", "command": str(plugin),
                "args": ["eks", "get-token", "--cluster-name", CONTRACT["cluster"]["name"]]}}}]}


@pytest.fixture
def outputs_file(cluster: Cluster, tmp_path: Path) -> Path:
    """`pulumi stack output --json --show-secrets` of the stack: the contract and the kubeconfig (a JSON string)."""
    plugin = tmp_path / "aws"
    plugin.write_text(f"#!{sys.executable}\nimport json\nprint(json.dumps({{'apiVersion': "
                      f"'client.authentication.k8s.io/v1beta1', 'kind': 'ExecCredential', "
                      f"'status': {{'token': {ADMIN_TOKEN!r}}}}}))\n")
    plugin.chmod(plugin.stat().st_mode | stat.S_IXUSR)
    path = tmp_path / "outputs.json"
    kubeconfig = json.dumps(eks_like_kubeconfig(cluster, plugin))  # pulumi-eks exports it as a JSON string
    path.write_text(json.dumps({"trainstack": CONTRACT, "kubeconfig": kubeconfig}))
    return path


@pytest.fixture
def nodes(cluster: Cluster) -> Iterator[dict[str, dict[str, Any]]]:
    """Two nodes of the group, as their kubelets registered them: one offers what a pod requests, one half of it."""
    registered = {}
    for name, offers in (("ip-10-0-7-1.ec2.internal", REQUEST), ("ip-10-0-7-2.ec2.internal", HALF)):
        labels = {NODE_GROUP_LABEL: GROUP, "node.kubernetes.io/instance-type": TARGET.instance_type}
        created = cluster.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}})
        allocatable = {"cpu": "191450m", "memory": "2000Gi", "pods": "51", HUGEPAGES_RESOURCE: offers}
        registered[name] = cluster.patch_status(created, {"capacity": allocatable, "allocatable": allocatable})
    try:
        yield registered
    finally:
        for node in registered.values():
            cluster.delete(node)


def preflight(outputs: Path, *flags: str) -> tuple[int, list[dict[str, Any]]]:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["preflight", "nodes", "--outputs", str(outputs), "--json", *flags])
    return code, json.loads(out.getvalue())


def huge_pages(checks: list[dict[str, Any]]) -> dict[str, Any]:
    """The huge-pages check among preflight nodes' checks (beside it: each group's devices, node_devices.py)."""
    (check,) = [c for c in checks if c["name"] == "node huge pages"]
    return check


def test_the_node_short_of_huge_pages_fails_its_group_by_name_with_what_it_offers(outputs_file, nodes, cluster):
    short = cluster.get("/api/v1/nodes/ip-10-0-7-2.ec2.internal")
    assert short["status"]["allocatable"][HUGEPAGES_RESOURCE] == HALF  # as the API server keeps it

    code, checks = preflight(outputs_file)
    assert code == 1
    check = huge_pages(checks)
    assert (check["name"], check["subject"], check["status"]) == ("node huge pages", f"{GROUP} (p5.48xlarge)", "fail")
    assert "1 of 2 nodes offer less" in check["reason"]
    assert f"ip-10-0-7-2.ec2.internal offers {HALF}" in check["reason"]
    assert "ip-10-0-7-1.ec2.internal" not in check["reason"]
    assert f"the {REQUEST} of hugepages-2Mi each pod on {GROUP} requests" in check["reason"]


def test_once_every_node_offers_enough_the_group_passes(outputs_file, nodes, cluster):
    short = nodes["ip-10-0-7-2.ec2.internal"]
    cluster.patch_status(short, {"allocatable": {HUGEPAGES_RESOURCE: REQUEST}})
    code, checks = preflight(outputs_file)
    check = huge_pages(checks)
    assert check["status"] == "pass", check["reason"]
    assert check["reason"].startswith("2 nodes offer enough")
    assert code == (0 if all(c["status"] == "pass" for c in checks) else 1), checks


def test_a_token_the_api_server_refuses_is_a_check_that_could_not_run(cluster, nodes, tmp_path):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "c",
        "clusters": [{"name": "k", "cluster": {"server": cluster.url,
                                               "certificate-authority": cluster.session.verify}}],
        "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u"}}],
        "users": [{"name": "u", "user": {"token": "not-a-token-it-knows"}}]}))
    record = tmp_path / "plan.json"
    record.write_text(json.dumps({**planned_record("fsdp-p5"), "outputs": {"trainstack": CONTRACT}}))
    code, checks = preflight(record, "--kubeconfig", str(kubeconfig))
    assert code == 1 and {c["status"] for c in checks} == {"could-not-check"}
    assert f"nodes at {cluster.url} answered HTTP 401" in huge_pages(checks)["reason"]
