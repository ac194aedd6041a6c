"""Monitoring agents and job operators: each switch adds exactly its resources, versions
are pinned, controllers stay on system nodes and only node agents tolerate accelerators."""

import json
from pathlib import Path

import pytest
import yaml
from trainstack.addons.observability import dashboard_json
from trainstack.addons.operators import kustomization
from trainstack.plan import find_project, library_paths, run_plan, run_program
from trainstack.training_stack import TrainingStack

RELEASE = "kubernetes:helm.sh/v3:Release"
ALL_OFF = {"observability": {"containerInsights": False, "dcgmExporter": False, "prometheus": False,
                             "neuronMonitor": False},
           "operators": {"trainingOperator": False, "mpiOperator": False, "etcd": False, "kueue": False}}


def plan(observability=None, operators=None, groups=("p5.48xlarge",)):
    config = {"profile": "dev", "region": "us-east-1", "network": {"zones": ["us-east-1a", "us-east-1b"]},
              "eks": {"publicAccessCidrs": ["203.0.113.0/24"]},
              "nodeGroups": [{"name": f"g{i}", "instanceType": t, "maxSize": 2, "zone": "us-east-1a"}
                             for i, t in enumerate(groups)],
              "observability": {**ALL_OFF["observability"], **(observability or {})},
              "operators": {**ALL_OFF["operators"], **(operators or {})}}
    return run_program(lambda: TrainingStack("s", config), project="demo", stack="s")


def addon_resources(record):
    addons = record.get("trainstack:index:ClusterAddons", "s-addons")
    return {(r.type, r.name) for r in record.descendants(addons.urn)}


@pytest.fixture(scope="module")
def baseline():
    return addon_resources(plan())


EBS = {("aws:iam/role:Role", "s-addons-ebs-csi"), ("aws:eks/addon:Addon", "s-addons-ebs-csi"),
       ("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "s-addons-ebs-csi-AmazonEBSCSIDriverPolicy"),
       ("aws:eks/podIdentityAssociation:PodIdentityAssociation", "s-addons-ebs-csi"),
       ("kubernetes:storage.k8s.io/v1:StorageClass", "s-addons-gp3")}
SWITCHES = {
    "containerInsights": ({"observability": {"containerInsights": True}}, {
        ("aws:iam/role:Role", "s-addons-cloudwatch"), ("aws:eks/addon:Addon", "s-addons-cloudwatch"),
        ("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "s-addons-cloudwatch-CloudWatchAgentServerPolicy"),
        ("aws:eks/podIdentityAssociation:PodIdentityAssociation", "s-addons-cloudwatch")}),
    "dcgmExporter": ({"observability": {"dcgmExporter": True}}, {(RELEASE, "s-addons-dcgm-exporter")}),
    "prometheus": ({"observability": {"prometheus": True}}, EBS | {
        (RELEASE, "s-addons-prometheus"), ("kubernetes:core/v1:ConfigMap", "s-addons-gpu-dashboard")}),
    "trainingOperator": ({"operators": {"trainingOperator": True}},
                         {("kubernetes:kustomize/v2:Directory", "s-addons-training-operator")}),
    "mpiOperator": ({"operators": {"mpiOperator": True}},
                    {("kubernetes:kustomize/v2:Directory", "s-addons-mpi-operator")}),
    "etcd": ({"operators": {"etcd": True}}, EBS | {
        ("kubernetes:core/v1:Namespace", "s-addons-etcd"), ("kubernetes:core/v1:Service", "s-addons-etcd"),
        ("kubernetes:apps/v1:StatefulSet", "s-addons-etcd")}),
    "kueue": ({"operators": {"kueue": True}}, {(RELEASE, "s-addons-kueue")}),
}


@pytest.mark.parametrize("switch", list(SWITCHES))
def test_each_switch_adds_exactly_its_resources(baseline, switch):
    settings, expected = SWITCHES[switch]
    assert addon_resources(plan(**settings)) - baseline == expected
    assert baseline.isdisjoint(expected)


def test_one_dcgm_exporter_per_node_whichever_side_runs_it():
    insights_only = plan(observability={"containerInsights": True, "dcgmExporter": True})
    values = json.loads(insights_only.get("aws:eks/addon:Addon", "s-addons-cloudwatch").inputs["configurationValues"])
    assert values["dcgmExporter"] == {"enabled": True}
    assert not [r for r in insights_only.by_type(RELEASE) if r.inputs["chart"] == "dcgm-exporter"]

    with_prometheus = plan(observability={"containerInsights": True, "dcgmExporter": True, "prometheus": True})
    values = json.loads(with_prometheus.get("aws:eks/addon:Addon", "s-addons-cloudwatch").inputs["configurationValues"])
    assert values["dcgmExporter"] == {"enabled": False}
    assert [r for r in with_prometheus.by_type(RELEASE) if r.inputs["chart"] == "dcgm-exporter"]


def test_no_gpu_means_no_dcgm_exporter():
    assert not [r for r in plan(observability={"dcgmExporter": True}, groups=("trn1.32xlarge",)).by_type(RELEASE)
                if r.inputs["chart"] == "dcgm-exporter"]


def test_the_training_operator_drops_its_mpijob_crd_beside_the_mpi_operator():
    both = plan(operators={"trainingOperator": True, "mpiOperator": True})
    directory = both.get("kubernetes:kustomize/v2:Directory", "s-addons-training-operator").inputs["directory"]
    assert directory.startswith("trainstack:addons/kustomize/training-operator/without-mpijob@sha256:")
    patches = yaml.safe_load((library_paths.installed(directory) / "kustomization.yaml").read_text())["patches"]
    deleted = yaml.safe_load(patches[0]["patch"])
    assert deleted["$patch"] == "delete" and deleted["metadata"]["name"] == "mpijobs.kubeflow.org"
    args = yaml.safe_load(patches[1]["patch"])[1]["value"]
    assert "--enable-scheme=pytorchjob" in args and not any("mpijob" in a for a in args)
    alone = plan(operators={"trainingOperator": True})
    assert alone.get("kubernetes:kustomize/v2:Directory", "s-addons-training-operator").inputs[
        "directory"].startswith("trainstack:addons/kustomize/training-operator/standalone@")


@pytest.mark.parametrize("parts", [("training-operator", "standalone"), ("training-operator", "without-mpijob"),
                                   ("mpi-operator",)])
def test_manifests_come_from_release_tags_and_controllers_go_to_system_nodes(parts):
    document = yaml.safe_load(Path(kustomization(*parts), "kustomization.yaml").read_text())
    (source,) = document["resources"]
    assert "?ref=v1.8.1" in source or "/mpi-operator/v0.8.0/" in source
    assert not any(branch in source for branch in ("master", "main", "HEAD"))
    placement = [yaml.safe_load(p["patch"]) for p in document["patches"] if p["target"]["kind"] == "Deployment"]
    assert placement[0][0] == {"op": "add", "path": "/spec/template/spec/nodeSelector",
                               "value": {"trainstack.io/node-group": "system"}}


def test_every_chart_is_pinned_and_atomic():
    everything = plan(observability={"containerInsights": True, "dcgmExporter": True, "prometheus": True},
                      operators={"trainingOperator": True, "mpiOperator": True, "etcd": True, "kueue": True})
    for release in everything.by_type(RELEASE):
        assert release.inputs["version"][0] in "v0123456789" and release.inputs["atomic"] is True
    etcd = everything.get("kubernetes:apps/v1:StatefulSet", "s-addons-etcd").inputs["spec"]["template"]["spec"]
    assert etcd["containers"][0]["image"] == "quay.io/coreos/etcd:v3.5.33"
    assert "--enable-v2" in etcd["containers"][0]["command"]


def test_controllers_run_on_system_nodes_and_only_node_agents_tolerate_accelerators():
    everything = plan(observability={"dcgmExporter": True, "prometheus": True},
                      operators={"etcd": True, "kueue": True})
    system = {"trainstack.io/node-group": "system"}
    values = {r.inputs["chart"].rsplit("/", 1)[-1]: r.inputs["values"] for r in everything.by_type(RELEASE)}
    stack = values["kube-prometheus-stack"]
    for selector in (stack["prometheus"]["prometheusSpec"]["nodeSelector"],
                     stack["alertmanager"]["alertmanagerSpec"]["nodeSelector"],
                     stack["prometheusOperator"]["nodeSelector"], stack["grafana"]["nodeSelector"],
                     stack["kube-state-metrics"]["nodeSelector"], values["kueue"]["controllerManager"]["nodeSelector"]):
        assert selector == system
    etcd = everything.get("kubernetes:apps/v1:StatefulSet", "s-addons-etcd").inputs["spec"]["template"]["spec"]
    assert etcd["nodeSelector"] == system and "tolerations" not in etcd
    accelerator_keys = {"nvidia.com/gpu", "aws.amazon.com/neuron"}
    for chart, chart_values in values.items():
        tolerated = {t["key"] for t in chart_values.get("tolerations", [])}
        if chart in ("dcgm-exporter", "nvidia-device-plugin", "aws-efa-k8s-device-plugin"):
            assert tolerated & accelerator_keys, chart
        else:
            assert not tolerated & accelerator_keys, chart


def test_prometheus_keeps_its_data_on_an_encrypted_volume_for_the_retention():
    stack = next(r for r in plan(observability={"prometheus": True}).by_type(RELEASE)
                 if r.inputs["chart"] == "kube-prometheus-stack").inputs["values"]
    spec = stack["prometheus"]["prometheusSpec"]
    assert spec["retention"] == "15d" and spec["serviceMonitorSelectorNilUsesHelmValues"] is False
    assert spec["storageSpec"]["volumeClaimTemplate"]["spec"]["storageClassName"] == "trainstack-gp3"
    assert stack["grafana"]["adminPassword"] == ""
    assert stack["grafana"]["sidecar"]["dashboards"]["label"] == "grafana_dashboard"


def test_the_dashboard_is_valid_json_over_the_dcgm_metrics_per_gpu_and_node():
    dashboard = json.loads(dashboard_json())
    expressions = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    for metric in ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_FI_DEV_XID_ERRORS",
                   "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE"):
        assert any(e.startswith(metric + "{") for e in expressions), metric
    assert all(t["legendFormat"] == "{{Hostname}} GPU {{gpu}}" for p in dashboard["panels"] for t in p["targets"])


@pytest.mark.parametrize("stack", ["dev", "nemo-p4de", "trn1"])
def test_shipped_stacks_plan_with_observability_on(stack):
    record = run_plan(find_project(Path(__file__).resolve().parents[2]), stack)
    assert record.get("aws:eks/addon:Addon", f"{stack}-addons-cloudwatch").inputs[
        "addonName"] == "amazon-cloudwatch-observability"
