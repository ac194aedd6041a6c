"""Doctor's add-on checks on the rehearsal of kueue-p5 (real kube-apiserver, kube-controller-manager with its
DaemonSet and taint-eviction controllers, kwok's kubelets), each fault made by a real mechanism and taken away
before the test returns.

The rehearsal installs no Helm release (it runs the stack's controllers as processes), so the first test reads it
bare; the others install the plan's releases with Helm itself, from stand-in charts whose device plugins render
their DaemonSets from the plan's values (support/helm_releases.py), through the Pulumi CLI and the Kubernetes
provider built from source."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from support.helm_releases import Releases, installed
from trainstack.deploy.engine import DeployError
from trainstack.doctor.addons import findings
from trainstack.doctor.finding import Finding
from trainstack.doctor.planned_releases import PlannedRelease, planned_releases
from trainstack.doctor.plugin_coverage import served_groups
from trainstack.doctor.release_pods import RELEASE_NAME_ANNOTATION
from trainstack.kube.client import Cluster
from trainstack.names import NODE_GROUP_LABEL
from trainstack.plan import Plan
from trainstack.rehearsal import engines
from trainstack.rehearsal.cluster import RehearsalCluster

from .conftest import SHARED_REHEARSAL, STACK

pytestmark = [pytest.mark.engines(*engines.REHEARSAL), SHARED_REHEARSAL]
WITH_HELM = pytest.mark.engines(*engines.REHEARSAL, engines.PULUMI, engines.PULUMI_KUBERNETES)
"""Tests that install releases with Helm (the Pulumi CLI and the Kubernetes provider); a test's own mark is the one
tests/conftest.py reads (``get_closest_marker``), so it names every engine the test starts."""
MAINTENANCE = {"key": "example.com/maintenance", "value": "true", "effect": "NoExecute"}
"""A taint no device plugin of the plan tolerates: NoExecute, so that the taint-eviction controller evicts the pods
already there and the DaemonSet controller makes none (kubernetes v1.35.4 pkg/controller/daemon, NoExecute taints
untolerated: the node should not run the pod and should not keep it)."""


def _show(found: list[Finding]) -> None:
    """What doctor prints for them, in the test's output (``pytest -s``)."""
    for finding in found:
        print(finding.line())


def _release(plan: Plan, chart_ends: str) -> PlannedRelease:
    return next(r for r in planned_releases(plan) if r.chart.endswith(chart_ends))


def _daemonsets(cluster: Cluster, release: PlannedRelease) -> list[dict[str, Any]]:
    return [d for d in cluster.list("apps/v1", "DaemonSet", release.namespace)
            if (d["metadata"].get("annotations") or {}).get(RELEASE_NAME_ANNOTATION) == release.name]


def _pods_on(cluster: Cluster, daemonset: dict[str, Any], node: str) -> list[dict[str, Any]]:
    uid = daemonset["metadata"]["uid"]
    pods = cluster.list("v1", "Pod", daemonset["metadata"]["namespace"], fieldSelector=f"spec.nodeName={node}")
    return [p for p in pods if not p["metadata"].get("deletionTimestamp")
            and any(o["uid"] == uid for o in p["metadata"].get("ownerReferences") or [])]


def _newest_revision(cluster: Cluster, release: PlannedRelease) -> int:
    """The newest revision of ``release`` by its records' labels (Helm's own ``version`` label)."""
    records = cluster.list("v1", "Secret", release.namespace, labelSelector=f"owner=helm,name={release.name}")
    return max(int(r["metadata"]["labels"]["version"]) for r in records)


def _rolled_out(cluster: Cluster, plan: Plan) -> bool:
    """Every device plugin's DaemonSet has a Ready pod on each node it selects."""
    plugins = [r for r in planned_releases(plan) if r.resource in served_groups(plan, planned_releases(plan))]
    found = [d for release in plugins for d in _daemonsets(cluster, release)]
    return len(found) == len(plugins) and all(
        (d.get("status") or {}).get("observedGeneration") == d["metadata"]["generation"]
        and 0 < d["status"].get("desiredNumberScheduled", 0) == d["status"].get("numberReady") for d in found)


@pytest.fixture(scope="module")
def releases(kueue_p5: RehearsalCluster, kueue_p5_plan: Plan,
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[Releases]:
    began = time.monotonic()
    with installed(kueue_p5.plane.kubeconfig, tmp_path_factory.mktemp("helm-releases"),
                   planned_releases(kueue_p5_plan), progress=lambda line: None) as deployed:
        kueue_p5.cluster.wait_for("the device plugins' DaemonSets on every node they select",
                                  lambda: _rolled_out(kueue_p5.cluster, kueue_p5_plan), timeout=120)
        print(f"the plan's {len(planned_releases(kueue_p5_plan))} releases installed by Helm in "
              f"{time.monotonic() - began:.1f} s")
        yield deployed


def test_on_the_bare_rehearsal_each_release_the_plan_names_is_missing_and_pulumi_up_installs_it(
        kueue_p5: RehearsalCluster, kueue_p5_plan: Plan):
    found = findings(kueue_p5_plan, kueue_p5.cluster)
    _show(found)
    planned = planned_releases(kueue_p5_plan)
    assert len(planned) == 6
    assert found == [Finding("cluster", f"release {r.namespace}/{r.name}", f"chart {r.chart} {r.version}, status "
                             f"deployed", f"no Helm release record of it (no Secret sh.helm.release.v1.{r.name}."
                             "v<revision> labelled owner=helm)", f"pulumi up --stack {STACK} installs it")
                     for r in planned]


@WITH_HELM
def test_with_every_release_installed_at_its_pin_and_its_daemonsets_rolled_out_there_is_no_finding(
        kueue_p5: RehearsalCluster, kueue_p5_plan: Plan, releases: Releases):
    found = findings(kueue_p5_plan, kueue_p5.cluster)
    _show(found)
    assert found == []


@WITH_HELM
def test_a_device_plugin_daemonset_that_misses_a_node_after_a_taint_change_names_the_node_the_taint_and_the_fix(
        kueue_p5: RehearsalCluster, kueue_p5_plan: Plan, releases: Releases):
    cluster = kueue_p5.cluster
    node = sorted(n["metadata"]["name"] for n in cluster.list("v1", "Node", labelSelector=f"{NODE_GROUP_LABEL}=p5"))[3]
    plugins = [_release(kueue_p5_plan, "nvidia-device-plugin"), _release(kueue_p5_plan, "aws-efa-k8s-device-plugin")]
    daemonsets = [d for release in plugins for d in _daemonsets(cluster, release)]
    assert len(daemonsets) == 2 and all(_pods_on(cluster, d, node) for d in daemonsets)
    path = f"/api/v1/nodes/{node}"
    before = cluster.get(path)["spec"].get("taints") or []
    cluster.request("PATCH", path, {"spec": {"taints": [*before, MAINTENANCE]}}, "application/merge-patch+json")
    try:
        cluster.wait_for(f"the device plugins' pods gone from {node}",
                         lambda: not any(_pods_on(cluster, d, node) for d in daemonsets), timeout=60)
        found = findings(kueue_p5_plan, kueue_p5.cluster)
        _show(found)
        assert found == [Finding(
            "cluster", f"device plugin release kube-system/{release.name} on node {node}",
            "a pod of its DaemonSet on every Ready node of node group p5",
            f"none on {node}: its DaemonSet {release.name} does not tolerate the taint "
            "example.com/maintenance=true:NoExecute",
            f"kubectl describe node {node} shows the taint; if node group p5 should carry it, add it to "
            f"nodeGroups[p5].taints in the stack file and run pulumi up --stack {STACK} (the device plugins tolerate "
            f"every taint of their groups); if not, kubectl taint node {node} example.com/maintenance:NoExecute-")
            for release in sorted(plugins, key=lambda r: r.resource)]
    finally:
        cluster.request("PATCH", path, {"spec": {"taints": before or None}}, "application/merge-patch+json")
        cluster.wait_for(f"the device plugins' pods back on {node}",
                         lambda: _rolled_out(cluster, kueue_p5_plan), timeout=60)


@WITH_HELM
def test_an_addon_helm_upgraded_to_another_chart_version_than_its_pin_is_named_with_the_command_that_puts_it_back(
        kueue_p5: RehearsalCluster, kueue_p5_plan: Plan, releases: Releases):
    plugin = _release(kueue_p5_plan, "nvidia-device-plugin")
    planned = planned_releases(kueue_p5_plan)
    revision = _newest_revision(kueue_p5.cluster, plugin) + 1
    began = time.monotonic()
    releases.up(planned, {plugin.resource: "0.19.0"})
    try:
        found = findings(kueue_p5_plan, kueue_p5.cluster)
        print(f"upgraded by Helm to 0.19.0 and read by doctor in {time.monotonic() - began:.1f} s")
        _show(found)
        assert found == [Finding(
            "cluster", f"release kube-system/{plugin.name}", "chart nvidia-device-plugin 0.20.0, status deployed",
            f"chart nvidia-device-plugin 0.19.0, revision {revision} deployed",
            f"helm history {plugin.name} -n kube-system shows which revision changed it; pulumi up --refresh --stack "
            f"{STACK} puts back 0.20.0 (without --refresh Pulumi compares with its state, which still holds the "
            "version it installed)")]
    finally:
        releases.up(planned)
        kueue_p5.cluster.wait_for("the device plugins rolled out again", lambda: _rolled_out(
            kueue_p5.cluster, kueue_p5_plan), timeout=60)


@WITH_HELM
def test_a_release_whose_upgrade_the_api_server_refused_is_named_failed_with_helms_own_reason(
        kueue_p5: RehearsalCluster, kueue_p5_plan: Plan, releases: Releases):
    plugin = _release(kueue_p5_plan, "nvidia-device-plugin")
    planned = planned_releases(kueue_p5_plan)
    revision = _newest_revision(kueue_p5.cluster, plugin) + 1
    # A toleration effect the API server does not know: it refuses the DaemonSet, and Helm records the revision failed.
    bad = {"tolerations": [*plugin.values["tolerations"], {"key": "example.com/x", "operator": "Exists",
                                                            "effect": "Sometimes"}]}
    with pytest.raises(DeployError):
        releases.up(planned, values={plugin.resource: bad})
    try:
        found = findings(kueue_p5_plan, kueue_p5.cluster)
        _show(found)
        assert [(f.subject, f.expected, f.fix) for f in found] == [(
            f"release kube-system/{plugin.name}", "chart nvidia-device-plugin 0.20.0, status deployed",
            f"helm history {plugin.name} -n kube-system says why revision {revision} failed; then pulumi up --refresh "
            f"--stack {STACK}")]
        assert found[0].actual.startswith(f'chart nvidia-device-plugin 0.20.0, revision {revision} failed: Upgrade '
                                          f'"{plugin.name}" failed')
        assert 'Unsupported value: "Sometimes"' in found[0].actual
    finally:
        releases.up(planned)


@WITH_HELM
def test_a_release_pod_the_scheduler_cannot_place_is_named_with_the_schedulers_reason(
        kueue_p5: RehearsalCluster, kueue_p5_plan: Plan, releases: Releases):
    plugin = _release(kueue_p5_plan, "nvidia-device-plugin")
    planned = planned_releases(kueue_p5_plan)
    [daemonset] = _daemonsets(kueue_p5.cluster, plugin)
    # More CPU than any node has: the DaemonSet's rolling update replaces one pod, and the scheduler keeps the new one
    # Pending (the DaemonSet controller makes the pod; the default scheduler binds it).
    releases.up(planned, values={plugin.resource: {"resources": {"requests": {"cpu": "1000"}}}})
    try:
        pending = kueue_p5.cluster.wait_for("the upgraded DaemonSet's pod Unschedulable", lambda: [
            p for p in kueue_p5.cluster.list("v1", "Pod", "kube-system", labelSelector=",".join(
                f"{k}={v}" for k, v in daemonset["spec"]["selector"]["matchLabels"].items()))
            if any(c["type"] == "PodScheduled" and c.get("reason") == "Unschedulable"
                   for c in (p.get("status") or {}).get("conditions") or [])], timeout=60)
        found = findings(kueue_p5_plan, kueue_p5.cluster)
        _show(found)
        [pod] = pending
        name = pod["metadata"]["name"]
        # The DaemonSet controller names the pod's node in its node affinity; the scheduler has not bound it there.
        [term] = pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
            "nodeSelectorTerms"]
        node = term["matchFields"][0]["values"][0]
        assert [(f.subject, f.expected, f.fix) for f in found] == [(
            f"release kube-system/{plugin.name}: DaemonSet kube-system/{plugin.name}", "every pod Ready",
            f"kubectl describe pod {name} -n kube-system; kubectl logs {name} -n kube-system --all-containers")]
        assert found[0].actual.startswith(f"1 of {daemonset['status']['desiredNumberScheduled']} pods not Ready: "
                                          f"{name} waiting for node {node}: not scheduled (Unschedulable): ")
        assert "Insufficient cpu" in found[0].actual
    finally:
        releases.up(planned)
        kueue_p5.cluster.wait_for("the device plugins rolled out again", lambda: _rolled_out(
            kueue_p5.cluster, kueue_p5_plan), timeout=60)
