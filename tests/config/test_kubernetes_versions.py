"""A cluster may run any minor in EKS's window (standard or extended support on the data's date) whose pins trainstack
has; a minor past its extended support, one EKS never offered, and one whose pins are missing are refused with what
to do. During an upgrade the charts may run the previous minor and the node groups any minor up to three behind the
control plane (the kubelet's skew), never newer than the one the upgrade came from; kube-proxy stays within the skew
policy of both."""

import pytest
from support.plan_records import record, stack_config
from trainstack.config import ConfigError, validate_stack_config


def validated(stack, edit):
    config = stack_config(stack)
    edit(config)
    return validate_stack_config({key.split(":", 1)[1]: value for key, value in config.items()})


def on(version, **more):
    def edit(config):
        config["trainstack:eks"].update(version=version, **more)
    return edit


@pytest.mark.parametrize("version", ["1.32", "1.33", "1.34", "1.35", "1.36"])
def test_every_minor_in_standard_or_extended_support_plans(version):
    assert validated("dev", on(version)).eks.version == version


@pytest.mark.parametrize(("version", "said"), [
    ("1.31", "Kubernetes 1.31 left EKS extended support on 2026-11-26"),
    ("1.37", "Kubernetes 1.37 is not a version EKS offers"),
])
def test_a_minor_out_of_the_window_is_refused(version, said):
    with pytest.raises(ConfigError, match=said):
        validated("dev", on(version))


def test_a_minor_without_its_pins_is_refused_with_what_is_missing(monkeypatch):
    from trainstack.catalog import addons

    monkeypatch.delitem(addons.CLUSTER_AUTOSCALER, "1.36")
    with pytest.raises(ConfigError, match=r"trainstack cannot yet plan Kubernetes 1\.36, which EKS offers: no Cluster "
                                          "Autoscaler chart"):
        validated("dev", on("1.36"))


def test_byo_p5_plans_on_the_oldest_minor_in_the_window_and_on_the_newest(tmp_path):
    def at(version):
        def edit(config):
            config["trainstack:existingCluster"]["version"] = version
        return edit

    assert validated("byo-p5", at("1.32")).existing_cluster.version == "1.32"
    assert validated("byo-p5", at("1.36")).existing_cluster.version == "1.36"


def test_the_held_parts_must_be_one_minor_behind():
    with pytest.raises(ConfigError, match="EKS upgrades one minor at a time"):
        validated("dev", on("1.35", upgrade={"fromVersion": "1.33", "held": ["nodeGroups"]}))
    with pytest.raises(ConfigError, match="listed twice"):
        validated("dev", on("1.35", upgrade={"fromVersion": "1.34", "held": ["charts", "charts"]}))


def refusal(stack, edit):
    with pytest.raises(ConfigError) as refused:
        validated(stack, edit)
    return str(refused.value)


def test_node_groups_held_three_minors_behind_the_control_plane_are_valid():
    held = {"fromVersion": "1.35", "held": ["nodeGroups"], "nodesVersion": "1.33"}
    eks = validated("dev", on("1.36", upgrade=held)).eks
    assert (eks.version, eks.charts_version, eks.nodes_version) == ("1.36", "1.36", "1.33")


@pytest.mark.parametrize(("upgrade", "said"), [
    ({"fromVersion": "1.35", "held": ["nodeGroups"], "nodesVersion": "1.32"},
     "trainstack:eks.upgrade.nodesVersion = '1.32'\n    the node groups run 1.32 while the control plane runs 1.36: a "
     "kubelet may be at most 3 minors older than kube-apiserver (kubernetes.io/releases/version-skew-policy).\n    "
     "Fix: roll the node groups to 1.35 while the control plane is still on it (version \"1.35\" and nodeGroups out "
     "of held), then move the control plane to 1.36; trainstack upgrade writes these steps."),
    ({"fromVersion": "1.35", "held": ["charts"], "nodesVersion": "1.34"},
     "trainstack:eks.upgrade.nodesVersion = '1.34'\n    nodesVersion says the node groups run 1.34, but held does not "
     "list nodeGroups: the node groups run 1.36.\n    Fix: add nodeGroups to held, or remove nodesVersion, or use "
     "trainstack upgrade to write the steps."),
    ({"fromVersion": "1.35", "held": ["nodeGroups"], "nodesVersion": "1.36"},
     "trainstack:eks.upgrade.nodesVersion = '1.36'\n    the node groups are held on 1.36, newer than fromVersion "
     "(1.35)"),
    ({"fromVersion": "1.35", "held": ["nodeGroups"], "nodesVersion": "1.31"},
     "trainstack:eks.upgrade.nodesVersion = '1.31'\n    Kubernetes 1.31 left EKS extended support on 2026-11-26"),
])
def test_held_node_groups_out_of_the_kubelet_skew_or_not_held_are_refused_with_the_key_the_value_and_the_fix(
        upgrade, said):
    assert said in refusal("dev", on("1.36", upgrade=upgrade))


@pytest.mark.parametrize(("pinned", "version"), [
    ("v1.36.1-eksbuild.1", "1.35"),  # newer than kube-apiserver
    ("v1.32.6-eksbuild.2", "1.36"),  # four minors older than kube-apiserver
])
def test_a_pinned_kube_proxy_outside_the_skew_policy_is_refused(pinned, version):
    said = refusal("dev", on(version, addonVersions={"kubeProxy": pinned}))
    assert f"trainstack:eks.addonVersions.kubeProxy = '{pinned}'" in said
    assert f"Fix: pin the kube-proxy release EKS gives {version} (aws eks describe-addon-versions" in said


def test_kube_proxy_three_minors_ahead_of_held_kubelets_is_within_the_skew_policy():
    eks = validated("dev", on("1.36", addonVersions={"kubeProxy": "v1.36.1-eksbuild.1"},
                              upgrade={"fromVersion": "1.35", "held": ["nodeGroups"], "nodesVersion": "1.33"})).eks
    assert (eks.addon_versions.kube_proxy, eks.nodes_version) == ("v1.36.1-eksbuild.1", "1.33")


def test_a_dra_group_held_on_a_minor_without_dra_names_nodes_version():
    said = refusal("b200-dra", on("1.36", upgrade={"fromVersion": "1.35", "held": ["nodeGroups"],
                                                   "nodesVersion": "1.33"}))
    assert "needs Kubernetes 1.34 or later on the control plane and the nodes; eks.upgrade.nodesVersion is 1.33" in said


def node_group_versions(document):
    return {r["name"]: r["inputs"]["version"] for r in document["resources"]
            if r["type"] == "aws:eks/nodeGroup:NodeGroup"}


def autoscaler_chart(document):
    [release] = [r for r in document["resources"] if r["type"] == "kubernetes:helm.sh/v3:Release"
                 and r["inputs"]["chart"] == "cluster-autoscaler"]
    return release["inputs"]["version"]


def test_held_node_groups_and_charts_run_the_previous_minor_while_the_control_plane_runs_the_new_one(tmp_path):
    held = record(tmp_path / "held", "dev",
                  on("1.35", upgrade={"fromVersion": "1.34", "held": ["charts", "nodeGroups"]}))
    [control_plane] = [r for r in held["resources"] if r["type"] == "eks:index:Cluster"]
    assert control_plane["inputs"]["version"] == "1.35"
    assert set(node_group_versions(held).values()) == {"1.34"}
    assert autoscaler_chart(held) == "9.52.0"
    moved = record(tmp_path / "moved", "dev", on("1.35"))
    assert set(node_group_versions(moved).values()) == {"1.35"}
    assert autoscaler_chart(moved) == "9.59.0"


def test_node_groups_held_three_minors_behind_run_that_minor_while_the_charts_run_the_control_planes(tmp_path):
    held = record(tmp_path / "held", "dev",
                  on("1.36", upgrade={"fromVersion": "1.35", "held": ["nodeGroups"], "nodesVersion": "1.33"}))
    [control_plane] = [r for r in held["resources"] if r["type"] == "eks:index:Cluster"]
    assert control_plane["inputs"]["version"] == "1.36"
    assert set(node_group_versions(held).values()) == {"1.33"}
    assert autoscaler_chart(held) == "9.59.0"


def test_a_cluster_in_extended_support_warns_with_the_day_its_support_ends_and_the_upgrade_to_run(tmp_path):
    extended = record(tmp_path / "extended", "dev", on("1.33"))
    [said] = [d["message"] for d in extended["diagnostics"] if "extended support" in d["message"]]
    assert "support ends on 2027-07-29" in said and "$0.60 per cluster-hour" in said
    assert "trainstack upgrade --stack dev --to 1.34" in said
    standard = record(tmp_path / "standard", "dev", on("1.35"))
    assert not [d for d in standard["diagnostics"] if "extended support" in d["message"]]
