"""The queues and quotas of a stack with Kueue in `trainstack plan`, `diff` and `launch`."""

import json
from pathlib import Path

import yaml
from support.rendered_jobs import planned_record
from support.scratch import write_stack
from trainstack import cli

REPO = Path(__file__).resolve().parent.parent


def kueue_p5(max_nodes=16):
    document = yaml.safe_load((REPO / "stacks" / "Pulumi.kueue-p5.yaml").read_text())["config"]
    config = {key.split(":", 1)[1]: value for key, value in document.items()}
    group = config["nodeGroups"][0]
    group["maxSize"] = group["minSize"] = group["desiredSize"] = group["capacity"]["instanceCount"] = max_nodes
    return config


def test_the_plan_shows_each_teams_queue_its_guarantee_and_reach(capsys):
    assert cli.main(["plan", "--stack", "kueue-p5", "--cwd", str(REPO)]) == 0
    out = capsys.readouterr().out
    assert "  llm: LocalQueue llm in namespace llm, cohort p5-pool" in out
    assert "    p5: 4 nodes guaranteed, up to 16 (128 nvidia.com/gpu, 512 vpc.amazonaws.com/efa)" in out


def test_the_diff_shows_the_cohorts_quota_shrink_with_the_reservation(tmp_path, capsys):
    base = tmp_path / "base.json"
    base.write_text(json.dumps(planned_record("kueue-p5")))
    (tmp_path / "head").mkdir()
    write_stack(tmp_path / "head", "kueue-p5", kueue_p5(max_nodes=12))
    assert cli.main(["diff", str(base), "--stack", "kueue-p5", "--cwd", str(tmp_path / "head")]) == 0
    out = capsys.readouterr().out
    assert "kubernetes:kueue.x-k8s.io/v1beta2:Cohort  kueue-p5-addons-cohort-p5-pool" in out
    # 16 - 10 guaranteed = 6 shared nodes before, 2 after: 48 -> 16 GPUs, 192 -> 64 EFA interfaces.
    assert 'nominalQuota: "48" -> "16"' in out and 'nominalQuota: "192" -> "64"' in out


def outputs_file(tmp_path, stack):
    path = tmp_path / "outputs.json"
    path.write_text(json.dumps(planned_record(stack)["outputs"]))
    return str(path)


def test_launch_names_the_teams_queue(tmp_path, capsys):
    assert cli.main(["launch", "trainjob", "--outputs", outputs_file(tmp_path, "kueue-p5"), "--group", "p5",
                     "--nodes", "8", "--image", "img:1", "--team", "llm", "--topology", "required", "--layer",
                     "2", "--", "torchrun", "train.py"]) == 0
    job = yaml.safe_load(capsys.readouterr().out)
    assert job["metadata"]["labels"] == {"kueue.x-k8s.io/queue-name": "llm"}
    (patch,) = job["spec"]["runtimePatches"]
    (node,) = patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"]
    assert node["template"]["spec"]["template"]["metadata"]["annotations"][
        "kueue.x-k8s.io/podset-required-topology"] == "topology.k8s.aws/network-node-layer-2"


def test_launch_refuses_a_team_on_a_stack_without_queues(tmp_path, capsys):
    assert cli.main(["launch", "device-check", "--outputs", outputs_file(tmp_path, "fsdp-p5"), "--group", "p5",
                     "--nodes", "2", "--image", "img:1", "--team", "llm"]) == 2
    assert "has no Kueue queues" in capsys.readouterr().err
