"""Doctor's add-on checks without a cluster: Helm's release records read as Helm writes them, the groups each device
plugin must reach on the shipped stacks' plans, and the findings for objects as the API server returns them. The
same checks against a real API server, real Helm records and the real DaemonSet controller: test_addons.py."""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

import pytest
from support.rendered_jobs import planned_record
from trainstack.doctor.planned_releases import PlannedRelease, planned_releases
from trainstack.doctor.plugin_coverage import coverage_findings, served_groups
from trainstack.doctor.release_pods import Workload, label_selector, not_ready_reason
from trainstack.kube.helm_records import newest_releases
from trainstack.names import NODE_GROUP_LABEL
from trainstack.plan import Plan


def helm_record(name: str, revision: int, status: str, version: str, *, storage: str = "Secret",
                compressed: bool = True) -> dict[str, Any]:
    """One revision's record as Helm v3.18.6 stores it (pkg/storage/driver/util.go encodeRelease: JSON, gzip,
    base64; secrets.go newSecretsObject, whose API base64-encodes the data once more; cfgmaps.go keeps it as is)."""
    document = {"name": name, "namespace": "kube-system", "version": revision,
                "info": {"status": status, "description": f"{status} by test"},
                "chart": {"metadata": {"name": "nvidia-device-plugin", "version": version}}}
    payload = json.dumps(document).encode()
    text = base64.b64encode(gzip.compress(payload) if compressed else payload)
    labels = {"name": name, "owner": "helm", "status": status, "version": str(revision)}
    metadata = {"name": f"sh.helm.release.v1.{name}.v{revision}", "namespace": "kube-system", "labels": labels}
    if storage == "Secret":
        return {"kind": "Secret", "type": "helm.sh/release.v1", "metadata": metadata,
                "data": {"release": base64.b64encode(text).decode()}}
    return {"kind": "ConfigMap", "metadata": metadata, "data": {"release": text.decode()}}


def test_the_newest_revision_of_each_release_is_the_release_in_either_storage_compressed_or_not():
    records = [helm_record("plugin", 1, "superseded", "0.19.0"), helm_record("plugin", 3, "failed", "0.20.0"),
               helm_record("plugin", 2, "superseded", "0.20.0"),
               helm_record("old", 1, "deployed", "0.1.0", storage="ConfigMap", compressed=False)]
    live = newest_releases(records)
    assert {key: (r.revision, r.status, r.chart, r.version, r.description) for key, r in live.items()} == {
        ("kube-system", "plugin"): (3, "failed", "nvidia-device-plugin", "0.20.0", "failed by test"),
        ("kube-system", "old"): (1, "deployed", "nvidia-device-plugin", "0.1.0", "deployed by test")}


def test_a_release_the_plan_leaves_unnamed_is_the_providers_autoname_of_its_resource_name_and_eight_hex_digits():
    release = PlannedRelease("gpu-plugin", None, "kube-system", "nvidia-device-plugin", "0.20.0", {})
    assert release.is_named("kube-system", "gpu-plugin-0a1b2c3d")
    assert not release.is_named("kube-system", "gpu-plugin-0a1b2c3")
    assert not release.is_named("kube-system", "gpu-plugin-other-0a1b2c3d")
    assert not release.is_named("default", "gpu-plugin-0a1b2c3d")


def test_a_label_selector_is_written_as_the_api_reads_the_label_selector_parameter():
    selector = {"matchLabels": {"app": "plugin", "tier": "node"}, "matchExpressions": [
        {"key": "zone", "operator": "In", "values": ["a", "b"]}, {"key": "gpu", "operator": "Exists"},
        {"key": "spot", "operator": "DoesNotExist"}, {"key": "arch", "operator": "NotIn", "values": ["arm64"]}]}
    assert label_selector(selector) == "app=plugin,tier=node,zone in (a,b),gpu,!spot,arch notin (arm64)"


@pytest.mark.parametrize(("status", "reason"), [
    ({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}, None),
    ({"phase": "Failed", "reason": "Evicted", "message": "The node was low on resource: memory. "},
     "Evicted: The node was low on resource: memory"),
    ({"phase": "Running", "conditions": [{"type": "Ready", "status": "False", "reason": "ContainersNotReady"}],
      "containerStatuses": [{"name": "plugin", "state": {"waiting": {
          "reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container=plugin"}}}]},
     "container plugin CrashLoopBackOff: back-off 5m0s restarting failed container=plugin"),
    ({"phase": "Running", "conditions": [{"type": "Ready", "status": "False", "reason": "ContainersNotReady",
                                          "message": "containers with unready status: [plugin]"}],
      "containerStatuses": [{"name": "plugin", "state": {"running": {}}}]},
     "ContainersNotReady: containers with unready status: [plugin]"),
], ids=["ready", "evicted", "crash-looping", "running-not-ready"])
def test_a_pod_not_ready_is_explained_by_what_kubectl_describe_shows_first(status, reason):
    assert not_ready_reason({"metadata": {"name": "p"}, "spec": {}, "status": status}) == reason


def _plan(stack: str) -> Plan:
    return Plan.from_dict(planned_record(stack))


@pytest.mark.parametrize(("stack", "served"), [
    ("kueue-p5", {"kueue-p5-eks-efa-device-plugin": ["p5"], "kueue-p5-eks-nvidia-device-plugin": ["dev", "p5"]}),
    ("b200-dra", {"b200-dra-eks-aws-dranet": ["b200"], "b200-dra-eks-nvidia-dra-driver": ["b200"]}),
    ("trn1", {"trn1-eks-efa-device-plugin": ["trn1"], "trn1-eks-neuron": ["trn1"]}),
])
def test_each_device_plugin_and_dra_driver_must_reach_the_groups_its_values_select_and_tolerate(stack, served):
    plan = _plan(stack)
    assert {resource: list(groups) for resource, groups in served_groups(plan, planned_releases(plan)).items()} \
        == served


def _node(name: str, labels: dict[str, str], taints: list[dict[str, str]] = ()) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": {NODE_GROUP_LABEL: "p5", **labels}},
            "spec": {"taints": list(taints)}, "status": {"allocatable": {"pods": "100"},
                                                          "conditions": [{"type": "Ready", "status": "True"}]}}


def _plugin(pods: list[dict[str, Any]]) -> Workload:
    return Workload({"kind": "DaemonSet", "metadata": {"name": "plugin", "namespace": "kube-system", "uid": "u"},
                     "spec": {"template": {"spec": {"nodeSelector": {"nvidia.com/gpu.present": "true"},
                                                    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]}}},
                     "status": {"desiredNumberScheduled": 2, "currentNumberScheduled": 2}}, pods)


def _coverage(nodes: list[dict[str, Any]], pods: list[dict[str, Any]]) -> list[Any]:
    plan = _plan("kueue-p5")
    plugin = next(r for r in planned_releases(plan) if r.chart == "nvidia-device-plugin")
    live = newest_releases([helm_record(str(plugin.name), 1, "deployed", "0.20.0")])
    [release] = live.values()
    return coverage_findings(release, served_groups(plan, [plugin])[plugin.resource], [_plugin(pods)], nodes,
                             "kueue-p5")


GPU = {"nvidia.com/gpu.present": "true"}


def test_a_node_that_lost_the_label_its_device_plugin_selects_is_named_with_the_label():
    found = _coverage([_node("p5-0", GPU), _node("p5-1", {})], [{"spec": {"nodeName": "p5-0"}, "metadata": {}}])
    assert [(f.subject, f.actual, f.fix) for f in found] == [(
        "device plugin release kube-system/kueue-p5-eks-nvidia-device-plugin on node p5-1",
        "none on p5-1: its DaemonSet plugin selects nvidia.com/gpu.present=true, the node has no such label",
        "kubectl get node p5-1 --show-labels against the DaemonSet's nodeSelector (kubectl get daemonset plugin -n "
        "kube-system -o yaml); the group's labels are nodeGroups[p5]'s")]


def test_a_node_whose_device_plugin_pod_waits_for_the_scheduler_is_no_coverage_gap():
    # The DaemonSet controller names the pod's node in its node affinity (ReplaceDaemonSetPodNodeNameNodeAffinity).
    name_is = {"key": "metadata.name", "operator": "In", "values": ["p5-1"]}
    for_node = {"nodeSelectorTerms": [{"matchFields": [name_is]}]}
    waiting = {"metadata": {}, "spec": {"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": for_node}}}}
    assert _coverage([_node("p5-0", GPU), _node("p5-1", GPU)], [{"spec": {"nodeName": "p5-0"}, "metadata": {}},
                                                                  waiting]) == []


def test_a_taint_of_the_nodes_own_condition_is_tolerated_by_every_daemonset_pod():
    # The DaemonSet controller adds these tolerations itself (AddOrUpdateDaemonPodTolerations): no pod there is the
    # controller's doing, and the finding says so rather than blaming the taint.
    pressure = {"key": "node.kubernetes.io/memory-pressure", "effect": "NoSchedule"}
    [finding] = _coverage([_node("p5-0", GPU, [pressure])], [])
    assert finding.actual == ("none on p5-0: its DaemonSet plugin fits the node but has no pod there (desired 2, "
                              "scheduled 2)")


def test_nodes_missing_their_device_plugin_for_one_reason_make_one_finding_that_names_five_and_counts_the_rest():
    cordon = {"key": "example.com/maintenance", "value": "true", "effect": "NoExecute"}
    nodes = [_node(f"p5-{index}", GPU, [cordon] if index % 2 else []) for index in range(2048)]
    placed = [{"spec": {"nodeName": f"p5-{index}"}, "metadata": {}} for index in range(0, 2048, 2)]
    [finding] = _coverage(nodes, placed)
    assert finding.subject == "device plugin release kube-system/kueue-p5-eks-nvidia-device-plugin on 1024 nodes of " \
                              "group p5"
    assert finding.actual == ("none on p5-1, p5-3, p5-5, p5-7, p5-9 and 1019 more: its DaemonSet plugin does not "
                              "tolerate the taint example.com/maintenance=true:NoExecute")
    assert finding.fix.endswith("kubectl taint node p5-1 example.com/maintenance:NoExecute- (likewise for each node "
                                "named)")
