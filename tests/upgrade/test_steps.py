"""An upgrade is written as the ordered stack-file changes EKS requires: per minor the control plane (the charts and
node groups held one minor behind), the add-ons that follow the minor, the charts, then the node groups; a target
outside EKS's window, a downgrade or a minor missing its pins is refused before any step is written."""

import copy

import pytest
from support.plan_records import stack_config
from trainstack.catalog.eks_addon_versions import from_the_guide
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


def test_two_minors_are_two_rounds_of_control_plane_add_ons_charts_and_node_groups():
    steps = upgrade_steps(stack_file("dev", "1.33"), "1.35", from_the_guide)
    assert titles(steps) == [
        "control plane to 1.34", "add-ons to 1.34", "charts to 1.34", "node groups to 1.34",
        "control plane to 1.35", "add-ons to 1.35", "charts to 1.35", "node groups to 1.35"]


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


def test_a_stack_mid_upgrade_finishes_its_minor_first():
    held = stack_file("dev", "1.34", upgrade={"fromVersion": "1.33", "held": ["nodeGroups"]})
    assert titles(upgrade_steps(held, "1.35", from_the_guide)) == [
        "node groups to 1.34", "control plane to 1.35", "add-ons to 1.35", "charts to 1.35", "node groups to 1.35"]


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
