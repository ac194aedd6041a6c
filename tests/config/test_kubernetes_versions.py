"""A cluster may run any minor in EKS's window (standard or extended support on the data's date) whose pins trainstack
has; a minor past its extended support, one EKS never offered, and one whose pins are missing are refused with what
to do. During an upgrade the node groups and the charts may run the previous minor."""

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


def test_a_cluster_in_extended_support_warns_with_the_day_its_support_ends_and_the_upgrade_to_run(tmp_path):
    extended = record(tmp_path / "extended", "dev", on("1.33"))
    [said] = [d["message"] for d in extended["diagnostics"] if "extended support" in d["message"]]
    assert "support ends on 2027-07-29" in said and "$0.60 per cluster-hour" in said
    assert "trainstack upgrade --stack dev --to 1.34" in said
    standard = record(tmp_path / "standard", "dev", on("1.35"))
    assert not [d for d in standard["diagnostics"] if "extended support" in d["message"]]
