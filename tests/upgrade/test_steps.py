"""An upgrade is written as the ordered stack-file changes EKS requires: per minor the control plane (the charts held
one minor behind), the add-ons that follow the minor and the charts; the node groups stay where they were and roll
once, at the target, or earlier only where the next control plane step would leave their kubelets more than three
minors behind. A target outside EKS's window, a downgrade or a minor missing its pins is refused before any step is
written."""

import copy

import pytest
from support.plan_records import stack_config
from trainstack.catalog.addons import minor
from trainstack.catalog.eks_addon_versions import from_the_guide
from trainstack.config import validate_stack_config
from trainstack.upgrade.steps import UpgradeRefused, upgrade_steps


def stack_file(stack, version=None, **eks):
    config = copy.deepcopy(stack_config(stack))
    block = "trainstack:eks" if "trainstack:eks" in config else "trainstack:existingCluster"
    if version is not None:
        config[block]["version"] = version
    config[block].update(eks)
    return {"config": config}


def titles(steps):
    return [step.title for step in steps]


def validated(step):
    return validate_stack_config({key.split(":", 1)[1]: value for key, value in step.document["config"].items()}).eks


def test_one_minor_is_control_plane_add_ons_charts_and_node_groups():
    steps = upgrade_steps(stack_file("dev", "1.34"), "1.35", from_the_guide)
    assert titles(steps) == ["control plane to 1.35", "add-ons to 1.35", "charts to 1.35", "node groups to 1.35"]


def test_three_minors_walk_the_control_plane_add_ons_and_charts_minor_by_minor_and_roll_the_node_groups_once():
    steps = upgrade_steps(stack_file("dev", "1.33"), "1.36", from_the_guide)
    assert titles(steps) == [
        "control plane to 1.34", "add-ons to 1.34", "charts to 1.34",
        "control plane to 1.35", "add-ons to 1.35", "charts to 1.35",
        "control plane to 1.36", "add-ons to 1.36", "charts to 1.36", "node groups to 1.36"]


def test_the_node_groups_stay_on_their_minor_until_the_last_step_within_three_minors_of_the_control_plane():
    steps = upgrade_steps(stack_file("dev", "1.33"), "1.36", from_the_guide)
    running = [(validated(step).version, validated(step).nodes_version) for step in steps]
    assert running == [("1.34", "1.33")] * 3 + [("1.35", "1.33")] * 3 + [("1.36", "1.33")] * 3 + [("1.36", "1.36")]
    eks = steps[3].document["config"]["trainstack:eks"]
    assert eks["upgrade"] == {"fromVersion": "1.34", "held": ["charts", "nodeGroups"], "nodesVersion": "1.33"}
    assert steps[-1].notes[0].startswith("Every managed node group rolls from 1.33 to the 1.36 AMI in one update")


def test_kube_proxy_moving_with_the_control_plane_stays_within_three_minors_of_the_held_kubelets():
    # version-skew-policy: kube-proxy not newer than kube-apiserver, up to three minors older or newer than the kubelet.
    for step in upgrade_steps(stack_file("dev", "1.33"), "1.36", from_the_guide):
        eks = validated(step)
        proxy = eks.addon_versions.kube_proxy
        if proxy is not None:
            assert minor(proxy) <= minor(eks.version) and abs(minor(proxy)[1] - minor(eks.nodes_version)[1]) <= 3


def test_the_node_groups_roll_early_only_where_the_next_control_plane_step_would_leave_them_four_minors_behind():
    steps = upgrade_steps(stack_file("dev", "1.32"), "1.36", from_the_guide)
    rolls = [(index, step.title) for index, step in enumerate(steps) if step.part == "node groups"]
    assert [title for _, title in rolls] == ["node groups to 1.35", "node groups to 1.36"]
    early = rolls[0][0]
    assert (steps[early - 1].title, steps[early + 1].title) == ("charts to 1.35", "control plane to 1.36")
    assert "the control plane's move to 1.36 would leave their kubelets 4 minors behind" in steps[early].notes[0]


def test_the_control_plane_step_holds_the_charts_and_node_groups_one_minor_behind():
    control_plane = upgrade_steps(stack_file("dev", "1.33"), "1.34", from_the_guide)[0]
    eks = control_plane.document["config"]["trainstack:eks"]
    assert eks["version"] == "1.34"
    assert eks["upgrade"] == {"fromVersion": "1.33", "held": ["charts", "nodeGroups"]}


def test_the_add_ons_step_pins_kube_proxy_and_coredns_to_the_guides_versions_for_the_minor():
    add_ons = upgrade_steps(stack_file("dev", "1.33"), "1.34", from_the_guide)[1]
    assert add_ons.changes == {"trainstack:eks.addonVersions.kubeProxy": "v1.34.6-eksbuild.2",
                               "trainstack:eks.addonVersions.coredns": "v1.12.4-eksbuild.1"}
    assert add_ons.notes == []


def test_an_add_on_the_guide_has_no_row_for_is_left_running_and_named():
    add_ons = upgrade_steps(stack_file("dev", "1.34"), "1.35", from_the_guide)[1]
    assert add_ons.changes == {"trainstack:eks.addonVersions.kubeProxy": "v1.35.3-eksbuild.2"}
    [note] = add_ons.notes
    assert "coredns for 1.35" in note and "--aws" in note and "describe-addon-versions" in note


def test_the_last_step_removes_the_upgrade_block_and_leaves_the_stack_file_as_a_new_one_on_the_target():
    steps = upgrade_steps(stack_file("dev", "1.34"), "1.35", from_the_guide)
    eks = steps[-1].document["config"]["trainstack:eks"]
    assert "upgrade" not in eks and eks["version"] == "1.35"
    assert steps[-1].changes == {"trainstack:eks.upgrade": None}


def test_a_stack_mid_upgrade_moves_its_held_charts_first_and_keeps_its_node_groups_held_to_the_target():
    held = stack_file("dev", "1.34", upgrade={"fromVersion": "1.33", "held": ["charts", "nodeGroups"]})
    steps = upgrade_steps(held, "1.35", from_the_guide)
    assert titles(steps) == ["charts to 1.34", "control plane to 1.35", "add-ons to 1.35", "charts to 1.35",
                             "node groups to 1.35"]
    assert steps[1].document["config"]["trainstack:eks"]["upgrade"]["nodesVersion"] == "1.33"


def test_a_stack_mid_upgrade_asked_for_its_own_minor_finishes_it():
    held = stack_file("dev", "1.35", upgrade={"fromVersion": "1.34", "held": ["nodeGroups"], "nodesVersion": "1.33"})
    steps = upgrade_steps(held, "1.35", from_the_guide)
    assert titles(steps) == ["node groups to 1.35"]
    assert "upgrade" not in steps[0].document["config"]["trainstack:eks"]


@pytest.mark.parametrize(("version", "target", "said"), [
    ("1.35", "1.37", "not a minor EKS offers"),
    ("1.35", "1.34", "not newer"),
])
def test_a_target_outside_the_window_or_a_downgrade_is_refused(version, target, said):
    with pytest.raises(UpgradeRefused, match=said):
        upgrade_steps(stack_file("dev", version), target, from_the_guide)


def test_a_target_without_its_pins_is_refused(monkeypatch):
    from trainstack.catalog import addons

    monkeypatch.delitem(addons.CLUSTER_AUTOSCALER, "1.36")  # every minor of the window has its pins today
    with pytest.raises(UpgradeRefused, match=r"no Cluster Autoscaler chart runs the autoscaler of Kubernetes 1\.36"):
        upgrade_steps(stack_file("dev", "1.35"), "1.36", from_the_guide)


@pytest.mark.parametrize(("target", "fix"), [
    ("1.34", "name a newer minor. To roll back to 1.34 instead (EKS takes a control plane back one minor within 7 days "
             "of its upgrade to 1.35), revert the upgrade's changes in reverse order, the node groups' first and the "
             "control plane's last, each judged by `trainstack diff`."),
    ("1.33", "name a newer minor; EKS rolls a control plane back to the previous minor only (1.34), within 7 days of "
             "the upgrade."),
    ("1.35", "name a newer minor."),
])
def test_an_older_target_says_what_eks_rolls_back_as_the_gate_does(target, fix):
    # The gate (review/kubernetes_version.py) passes a one-minor rollback with a warning and refuses two minors.
    with pytest.raises(UpgradeRefused) as refused:
        upgrade_steps(stack_file("dev", "1.35"), target, from_the_guide)
    assert refused.value.fix == fix


def test_a_bring_your_own_cluster_stack_moves_its_own_layer_after_the_owner_moved_the_cluster():
    steps = upgrade_steps(stack_file("byo-p5", "1.34"), "1.36", from_the_guide)
    assert titles(steps) == ["existing cluster to 1.35", "existing cluster to 1.36"]
    first = steps[0].notes[0]
    assert first.startswith("First, the cluster's owner: the control plane to 1.35")
    assert "within 3 minors" in first


def test_a_stack_file_without_a_version_starts_from_the_models_default_not_the_newest_minor():
    managed = stack_file("dev")
    managed["config"]["trainstack:eks"].pop("version", None)
    assert titles(upgrade_steps(managed, "1.36", from_the_guide)) == [
        "control plane to 1.36", "add-ons to 1.36", "charts to 1.36", "node groups to 1.36"]
    existing = stack_file("byo-p5")
    existing["config"]["trainstack:existingCluster"].pop("version", None)
    assert titles(upgrade_steps(existing, "1.36", from_the_guide)) == ["existing cluster to 1.36"]
