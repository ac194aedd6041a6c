"""GPU Feature Discovery (issue 44): on the P6e-GB200 DRA groups' nodes only, from the pinned device-plugin chart with
the device plugin off, with the Node Feature Discovery it needs; stacks without such a group render none, and a GFD
release never counts as a device plugin in the controller models."""

import dataclasses

import pytest
from support import rendered_jobs
from support.policy_stacks import added, from_record
from trainstack.addons.feature_discovery import gfd_values
from trainstack.catalog.ultraservers import needs_gpu_feature_discovery
from trainstack.controllers import cluster_autoscaler
from trainstack.controllers.cluster_controllers import installed_by_stack
from trainstack.names import HELM_RELEASE

SYSTEM = {"trainstack.io/node-group": "system"}
GB200 = "p6e-gb200.36xlarge"
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}


def test_only_p6e_gb200_needs_gfd_for_its_unit_label():
    assert needs_gpu_feature_discovery(GB200)
    # Trn2 UltraServers are labelled by the Neuron device plugin; other GPUs are sold alone.
    assert not any(needs_gpu_feature_discovery(t) for t in ("trn2u.48xlarge", "p6-b200.48xlarge", "p5.48xlarge"))


def test_gfd_runs_on_the_gb200_dra_nodes_without_a_device_plugin():
    values = gfd_values([GB200], system_node_selector=SYSTEM, group_taints=[GPU_TAINT])
    assert values["devicePlugin"] == {"enabled": False} and values["gfd"] == {"enabled": True}
    assert values["nodeSelector"] == {"trainstack.io/device-allocation": "dra",
                                      "trainstack.io/accelerator": "nvidia-gpu"}
    # The chart's default affinity wants NFD's PCI label or nvidia.com/gpu.present (kept off DRA nodes): replaced.
    [term] = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert {e["key"]: e["values"] for e in term["matchExpressions"]} == {
        "trainstack.io/accelerator": ["nvidia-gpu"], "trainstack.io/device-allocation": ["dra"],
        "node.kubernetes.io/instance-type": [GB200]}
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in values["tolerations"]


def test_nfd_workers_run_where_gfd_does_and_its_master_on_the_system_nodes():
    values = gfd_values([GB200], system_node_selector=SYSTEM, group_taints=[GPU_TAINT])
    nfd = values["nfd"]
    assert nfd["worker"]["nodeSelector"] == values["nodeSelector"] and nfd["worker"]["affinity"] == values["affinity"]
    # The chart's default worker toleration is nvidia.com/gpu=present, which trainstack's taint (=true) defeats.
    assert nfd["worker"]["tolerations"] == values["tolerations"]
    assert nfd["master"]["nodeSelector"] == SYSTEM and nfd["gc"]["nodeSelector"] == SYSTEM
    assert nfd["master"]["config"]["extraLabelNs"] == ["nvidia.com"]


@pytest.mark.parametrize("stack", ["b200-dra", "fsdp-p5", "dev"])
def test_stacks_without_a_gb200_group_install_no_gfd(stack):
    record = rendered_jobs.planned_record(stack)
    releases = from_record(record).of_type(HELM_RELEASE)
    assert not [r for r in releases if (r.props.get("values") or {}).get("gfd", {}).get("enabled")]
    assert not [r for r in releases if "gpu-feature-discovery" in r.name]


def _with_gfd_release(stack_name):
    """The stack with a GFD release of the device-plugin chart added after its device plugin's."""
    stack = from_record(rendered_jobs.planned_record(stack_name))
    [plugin] = [r for r in stack.of_type(HELM_RELEASE) if r.props["chart"] == "nvidia-device-plugin"]
    values = gfd_values([GB200], system_node_selector=SYSTEM)
    gfd = dataclasses.replace(plugin, urn=plugin.urn.replace(plugin.name, "gfd"), name="gfd",
                              props={**plugin.props, "values": values})
    return added(stack, gfd), plugin


def test_a_gfd_release_never_stands_in_for_the_device_plugin_in_the_models():
    stack, plugin = _with_gfd_release("fsdp-p5")
    assert cluster_autoscaler.installed_charts(stack)["nvidia-device-plugin"] == plugin.props["values"]
    owners = [who for owned, who in installed_by_stack(stack) if owned == "resource/nvidia.com/gpu"]
    assert owners == [f"Helm release {plugin.name}"]


def test_the_cluster_installs_gfd_for_the_dra_groups_that_need_it(tmp_path, monkeypatch):
    """The wiring, on b200-dra with p6-b200 standing in for p6e-gb200 (which the catalog refuses until it has
    EC2's network facts for it): one release, on that group's type, waiting for its node group."""
    from support import plan_records
    from trainstack.cluster import eks_cluster

    monkeypatch.setattr(eks_cluster, "needs_gpu_feature_discovery", lambda t: t == "p6-b200.48xlarge")
    stack = from_record(plan_records.record(tmp_path, "b200-dra"))
    [gfd] = [r for r in stack.of_type(HELM_RELEASE) if r.name.endswith("gpu-feature-discovery")]
    assert gfd.props["chart"] == "nvidia-device-plugin" and gfd.props["namespace"] == "kube-system"
    assert gfd.props["values"] == gfd_values(["p6-b200.48xlarge"], system_node_selector=SYSTEM,
                                             group_taints=[GPU_TAINT])
