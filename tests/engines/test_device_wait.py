"""`trainstack up`'s device wait (deviceWait; preflight/devices.py) against the real kube-apiserver: Nodes
registered as a kubelet would (status.allocatable through the status subresource, what a device plugin makes the
kubelet advertise), and ResourceSlices as a DRA driver's kubelet plugin publishes them (resource.k8s.io/v1). A
node short of a device fails `trainstack up`, naming the node and the device; once every node shows its devices,
up passes and its JSON carries what the wait saw.

The engine's own part of `up` is stood in for here (its outcome: the stack's kubeconfig output, as pulumi-eks
writes it, a JSON string): tests/deploy runs the real engine; this file runs what `up` does after it."""

from __future__ import annotations

import base64
import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.control_plane import ApiError, Cluster
from trainstack import cli
from trainstack.config import validate_stack_config
from trainstack.config.device_wait import device_needs
from trainstack.deploy import engine
from trainstack.names import NODE_GROUP_LABEL
from trainstack.preflight import devices
from trainstack.preflight.devices import wait_for_devices
from trainstack.rehearsal import engines
from trainstack.rehearsal.control_plane import ADMIN_TOKEN

pytestmark = pytest.mark.engines(engines.KUBERNETES)

REPO = Path(__file__).resolve().parents[2]
P5, B200 = "wait-p5", "wait-b200"
"""Group names no other engine test labels nodes with (they share one API server)."""
STACK = {"profile": "production", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
         "eks": {"adminPrincipals": ["arn:aws:iam::123456789012:role/ml-platform-admin"], "version": "1.34"},
         "nodeGroups": [{"name": P5, "instanceType": "p5.48xlarge", "desiredSize": 1, "maxSize": 1,
                         "zone": "us-east-1a"},
                        {"name": B200, "instanceType": "p6-b200.48xlarge", "minSize": 1, "desiredSize": 1,
                         "maxSize": 1, "zone": "us-east-1a", "deviceAllocation": "dra"}],
         "deviceWait": {"timeoutMinutes": 1, "pollSeconds": 1}}


def kubeconfig(cluster: Cluster) -> str:
    ca = base64.b64encode(Path(cluster.session.verify).read_bytes()).decode()
    return json.dumps({"apiVersion": "v1", "kind": "Config", "current-context": "aws",
                       "clusters": [{"name": "k", "cluster": {"server": cluster.url,
                                                              "certificate-authority-data": ca}}],
                       "contexts": [{"name": "aws", "context": {"cluster": "k", "user": "u"}}],
                       "users": [{"name": "u", "user": {"token": ADMIN_TOKEN}}]})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "Pulumi.yaml").write_text(yaml.safe_dump(
        {"name": "trainstack", "runtime": "python", "main": str(REPO / "stacks"), "stackConfigDir": "."}))
    (tmp_path / "Pulumi.waits.yaml").write_text(yaml.safe_dump(
        {"config": {f"trainstack:{key}": value for key, value in STACK.items()}}))
    return tmp_path


@pytest.fixture
def engine_done(cluster: Cluster, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's `up` as done: its outcome with the stack's kubeconfig output."""
    def run(project: Any, stack: str, action: str, **_: Any) -> engine.Outcome:
        return engine.Outcome(action, [], {"create": 1}, {"kubeconfig": kubeconfig(cluster)}, 0.1, [])  # type: ignore[arg-type]
    monkeypatch.setattr(engine, "run", run)


class MinuteInSeconds:
    """The device wait's clock, where a poll's sleep moves the clock on at once: the wait still reads the real API
    server at every poll of its minute, but the test does not spend the minute."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def fast_clock(monkeypatch: pytest.MonkeyPatch) -> MinuteInSeconds:
    clock = MinuteInSeconds()
    monkeypatch.setattr(devices, "time", clock)
    return clock


def register(cluster: Cluster, name: str, group: str, allocatable: dict[str, str]) -> dict[str, Any]:
    created = cluster.create({"apiVersion": "v1", "kind": "Node",
                              "metadata": {"name": name, "labels": {NODE_GROUP_LABEL: group}}})
    shown = {"cpu": "192", "memory": "2000Gi", "pods": "100", **allocatable}
    return cluster.patch_status(created, {"capacity": shown, "allocatable": shown})


def publish(cluster: Cluster, node: str, driver: str, devices: int) -> dict[str, Any]:
    return cluster.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                           "metadata": {"name": f"{node}-{driver}"},
                           "spec": {"nodeName": node, "driver": driver,
                                    "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                                    "devices": [{"name": f"dev-{i}"} for i in range(devices)]}})


@pytest.fixture
def nodes(cluster: Cluster) -> Iterator[dict[str, dict[str, Any]]]:
    """A p5 node whose EFA plugin advertises 31 of its 32 interfaces; a DRA p6-b200 node with all 8 GPUs and 8
    EFA interfaces in its ResourceSlices."""
    made = {"p5": register(cluster, "ip-10-0-9-1.ec2.internal", P5,
                           {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "31"}),
            "b200": register(cluster, "ip-10-0-9-2.ec2.internal", B200, {})}
    slices = [publish(cluster, "ip-10-0-9-2.ec2.internal", driver, 8) for driver in ("gpu.nvidia.com", "dra.net")]
    try:
        yield made
    finally:
        for thing in [*slices, *made.values()]:
            with contextlib.suppress(ApiError):  # a test deleted it already
                cluster.delete(thing)


def up(project: Path) -> tuple[int, dict[str, Any], str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["up", "--stack", "waits", "--cwd", str(project), "--json"])
    return code, json.loads(out.getvalue()), err.getvalue()


def test_a_node_short_of_an_efa_interface_fails_up_naming_the_node_and_the_device(project, engine_done, nodes,
                                                                                  fast_clock):
    code, outcome, err = up(project)
    assert fast_clock.now >= 59  # the whole minute was waited, a read at each second of it
    assert code == cli.EXIT_FAILURE
    assert f"{P5}: node ip-10-0-9-1.ec2.internal shows 31 of 32 vpc.amazonaws.com/efa" in err
    assert B200 not in err.split("error:", 1)[1]
    wait = outcome["deviceWait"]
    assert not wait["done"] and wait["timeoutSeconds"] == 60
    assert {g["group"]: g["nodes"] for g in wait["groups"]}[B200] == {
        "ip-10-0-9-2.ec2.internal": {"gpu.nvidia.com": 8, "dra.net": 8}}


def test_once_every_node_shows_its_devices_up_is_done(project, engine_done, nodes, cluster):
    cluster.patch_status(nodes["p5"], {"allocatable": {"vpc.amazonaws.com/efa": "32"}})
    code, outcome, err = up(project)
    assert code == cli.EXIT_OK, err
    assert outcome["deviceWait"]["done"] and outcome["deviceWait"]["seconds"] < 60


def test_a_dra_node_missing_its_gpu_slices_is_short_of_gpus_until_they_are_published(nodes, cluster):
    needs = device_needs(validate_stack_config(STACK).node_groups)
    cluster.delete({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                    "metadata": {"name": "ip-10-0-9-2.ec2.internal-gpu.nvidia.com"}})
    result = wait_for_devices(cluster, needs, timeout_seconds=2, poll_seconds=1)
    assert f"{B200}: node ip-10-0-9-2.ec2.internal shows 0 of 8 gpu.nvidia.com" in result.problems()
    publish(cluster, "ip-10-0-9-2.ec2.internal", "gpu.nvidia.com", 8)
    cluster.patch_status(nodes["p5"], {"allocatable": {"vpc.amazonaws.com/efa": "32"}})
    assert wait_for_devices(cluster, needs, timeout_seconds=2, poll_seconds=1).done


def preflight_nodes(project: Path, cluster: Cluster, *flags: str) -> tuple[int, dict[str, dict[str, Any]], str]:
    """`trainstack preflight nodes` as a user who deployed with `pulumi up` runs it: the stack's outputs (its
    contract, from the offline plan here, and its kubeconfig output), in the stack's project. Its device checks
    by group."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["plan", "--stack", "waits", "--cwd", str(project), "--json"]) == 0
    outputs = project / "outputs.json"
    outputs.write_text(json.dumps({"trainstack": json.loads(out.getvalue())["outputs"]["trainstack"],
                                   "kubeconfig": kubeconfig(cluster)}))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["preflight", "--cwd", str(project), "nodes", "--outputs", str(outputs), "--json", *flags])
    checks = {c["subject"].split()[0]: c for c in json.loads(out.getvalue()) if c["name"] == "node devices"}
    return code, checks, err.getvalue()


def test_preflight_nodes_names_a_node_short_of_a_device_in_one_read(project, nodes, cluster):
    code, checks, err = preflight_nodes(project, cluster)
    assert code == cli.EXIT_POLICY and "did not pass" in err
    assert checks[P5]["status"] == "fail"
    assert checks[P5]["reason"].startswith("node ip-10-0-9-1.ec2.internal shows 31 of 32 vpc.amazonaws.com/efa")
    assert checks[B200]["status"] == "pass", checks[B200]["reason"]
    assert "1 node shows 8 gpu.nvidia.com, 8 dra.net each in ResourceSlices (DRA); 1 nodes expected" in \
        checks[B200]["reason"]


def test_preflight_nodes_wait_reads_again_until_the_devices_show(project, nodes, cluster):
    import threading

    # The EFA plugin finds its last interface a moment after the check began; huge pages as the AMI reserves them.
    pages = {"hugepages-2Mi": "64Gi"}
    cluster.patch_status(nodes["b200"], {"allocatable": pages})
    later = threading.Timer(2, lambda: cluster.patch_status(nodes["p5"], {"allocatable": {
        "vpc.amazonaws.com/efa": "32", **pages}}))
    later.start()
    try:
        code, checks, err = preflight_nodes(project, cluster, "--wait", "1")
    finally:
        later.join()
    assert code == cli.EXIT_OK, err
    assert "waiting for devices: wait-p5: node ip-10-0-9-1.ec2.internal shows 31 of 32" in err
    assert {group: check["status"] for group, check in checks.items()} == {P5: "pass", B200: "pass"}
