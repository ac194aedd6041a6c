"""`trainstack plan` runs every controller model: a stack the controllers would stall fails the plan."""

import json

import pytest
from support import plan_records, rendered_jobs
from trainstack import cli
from trainstack.analysis import whole_node_pods
from trainstack.controllers import cluster_autoscaler
from trainstack.hyperpod import dependencies_chart
from trainstack.nodegroups import accelerated


@pytest.mark.parametrize("stack", rendered_jobs.SHIPPED_STACKS)
def test_every_shipped_stacks_plan_records_the_models_passing(stack):
    section = rendered_jobs.planned_record(stack)["controllers"]
    assert section["models"] == ["cluster-autoscaler", "eks-nodegroup-update", "versions", "hyperpod-eks",
                                 "cluster-controllers", "kueue"]
    assert section["errors"] == 0 and section["findings"] == []
    assert "every model passes" in section["text"]


@pytest.mark.parametrize("stack", ["dev", "fsdp-p5", "nemo-p4de", "trn1"])
def test_the_plan_judges_the_pod_the_launchers_render_on_each_groups_nodes(stack):
    """The plan's whole-node pod carries the launchers' own placement and requests."""
    outputs = rendered_jobs.outputs_of(stack)
    for name in outputs.accelerated_groups:
        check = next(j for j in rendered_jobs.jobs_for(outputs)
                     if j.group == name and j.launcher == "render_device_check" and j.nodes == 1)
        [pod] = list(cluster_autoscaler.pod_specs(check.document))
        judged = whole_node_pods(outputs)[f"{name}/whole-node pod"]
        assert judged["containers"][0]["resources"] == pod["containers"][0]["resources"]
        assert {k: judged[k] for k in ("nodeSelector", "tolerations")} == {
            k: pod[k] for k in ("nodeSelector", "tolerations")}


def test_a_reserved_group_rolling_with_default_fails_the_plan_naming_the_fix(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(accelerated, "update_config", lambda settings, in_placement_group: {"max_unavailable": 1})
    plan_records.write_project(tmp_path, "nemo-p4de", plan_records.stack_config("nemo-p4de"))
    assert cli.main(["plan", "--stack", "nemo-p4de", "--cwd", str(tmp_path), "--json"]) == cli.EXIT_POLICY
    section = json.loads(capsys.readouterr().out)["controllers"]
    assert section["errors"] == 1
    [finding] = section["findings"]
    assert finding["controller"] == "eks-nodegroup-update" and finding["subject"] == "nemo-p4de-eks-p4de"
    assert "updateStrategy to MINIMAL" in finding["message"]


def test_a_hyperpod_chart_printed_with_its_own_operators_on_fails_the_plan_naming_both_owners(tmp_path, monkeypatch,
                                                                                             capsys):
    """The HyperPod model runs in the plan too: the dependencies chart's training operator left on beside the
    stack's own is two controllers for every Kubeflow job kind."""
    monkeypatch.setattr(dependencies_chart, "turned_off", lambda **_: list(dependencies_chart.DEVICE_PLUGINS))
    plan_records.write_project(tmp_path, "hyperpod-eks", plan_records.stack_config("hyperpod-eks"))
    assert cli.main(["plan", "--stack", "hyperpod-eks", "--cwd", str(tmp_path), "--json"]) == cli.EXIT_POLICY
    section = json.loads(capsys.readouterr().out)["controllers"]
    assert section["errors"] > 0
    assert {f["controller"] for f in section["findings"]} == {"cluster-controllers"}
    assert "kubeflow.org/PyTorchJob" in {f["subject"] for f in section["findings"]}
